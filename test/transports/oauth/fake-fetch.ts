/** A recording fake fetch for the OAuth unit tests, and a helper to await an OAuthError. */
import { expect } from "vitest";
import type {
  AuthorizationServerMetadata,
  OAuthFetch,
} from "../../../src/transports/http/oauth/discovery.js";
import { OAuthError } from "../../../src/transports/http/oauth/errors.js";

export interface Call {
  readonly url: string;
  readonly method: string | undefined;
  readonly headers: Record<string, string>;
  /** Present only when the request had a string body. */
  readonly body?: string;
}

export type Route = { readonly status?: number; readonly body: unknown } | (() => Response);

/** The request headers by lower-cased name. */
function headerRecord(init: HeadersInit | undefined): Record<string, string> {
  const record: Record<string, string> = {};
  new Headers(init).forEach((value, name) => {
    record[name] = value;
  });
  return record;
}

/** A fetch that records every call and answers from `routes` (404 for anything else). */
export function fakeFetch(routes: Record<string, Route>) {
  const calls: Call[] = [];
  const fetch: OAuthFetch = async (input, init) => {
    const call: Call = { url: input.href, method: init.method, headers: headerRecord(init.headers) };
    calls.push(typeof init.body === "string" ? { ...call, body: init.body } : call);
    const route = routes[input.href];
    if (route === undefined) return new Response("not found", { status: 404 });
    if (typeof route === "function") return route();
    return new Response(JSON.stringify(route.body), {
      status: route.status ?? 200,
      headers: { "content-type": "application/json" },
    });
  };
  return { fetch, calls, urls: () => calls.map((call) => call.url) };
}

/** The OAuthError `promise` rejects with (the test fails if it resolves or rejects otherwise). */
export async function failure(promise: Promise<unknown>): Promise<OAuthError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OAuthError);
  return error as OAuthError;
}

/** `document` as JSON text padded (in a `pad` member) to exactly `bytes` bytes. */
export function jsonOfLength(document: Record<string, unknown>, bytes: number): string {
  const bare = JSON.stringify({ ...document, pad: "" });
  const text = JSON.stringify({ ...document, pad: "x".repeat(bytes - bare.length) });
  expect(text.length).toBe(bytes);
  return text;
}

/** A 200 whose JSON-looking body goes on and on; `cancelled` turns true once the reader gives up. */
export function endlessBody(): { route: () => Response; pulled: () => number; cancelled: () => boolean } {
  let pulled = 0;
  let cancelled = false;
  const chunk = new TextEncoder().encode(`{"pad":"${"x".repeat(64 * 1024)}`);
  const route = () =>
    new Response(
      new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled++;
          // Ends after 16 MiB all the same, so that a reader without a bound fails the test, not the worker.
          if (pulled > 256) controller.close();
          else controller.enqueue(chunk);
        },
        cancel() {
          cancelled = true;
        },
      }),
      { status: 200, headers: { "content-type": "application/json" } },
    );
  return { route, pulled: () => pulled, cancelled: () => cancelled };
}

/** An authorization server's metadata with its endpoints under `origin`, PKCE S256, nothing optional. */
export function authServerAt(
  origin: string,
  overrides: Partial<AuthorizationServerMetadata> = {},
): AuthorizationServerMetadata {
  return {
    issuer: origin,
    authorizationEndpoint: new URL(`${origin}/authorize`),
    tokenEndpoint: new URL(`${origin}/token`),
    registrationEndpoint: new URL(`${origin}/register`),
    scopesSupported: undefined,
    tokenEndpointAuthMethods: undefined,
    pkceS256: true,
    dpopAlgorithms: undefined,
    issParameterSupported: false,
    clientIdMetadataDocumentSupported: false,
    ...overrides,
  };
}

/** An authorization code grant as a finished sign-in hands it to `exchangeCode`. */
export const CODE_GRANT = {
  code: "CODE",
  verifier: "VERIFIER",
  redirectUri: "http://127.0.0.1:8080/callback",
  resource: "https://mcp.example/mcp",
  scope: undefined,
};
