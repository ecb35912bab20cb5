/**
 * How the HTTP client transports get a bearer token and recover from 401/403: a plain token
 * function, or an `HttpAuthProvider` that can also (re)authorize when the server refuses a request
 * (the OAuth client in `roundtrip-mcp/oauth` is one).
 */
import { HttpStatusError, HttpTransportError } from "./errors.js";

/**
 * What the server said when it refused a request: handed to {@link HttpAuthProvider.unauthorized}.
 *
 * @example
 * const challenge: HttpAuthChallenge = { status: 401, wwwAuthenticate: "Bearer", url, attempt: 1, token: undefined };
 */
export interface HttpAuthChallenge {
  /** 401 (no or a bad token) or 403 (e.g. `insufficient_scope`). */
  readonly status: 401 | 403;
  /** The `WWW-Authenticate` header, when the server sent one. */
  readonly wwwAuthenticate: string | undefined;
  /** The MCP endpoint that refused. */
  readonly url: URL;
  /** 1 for the first refusal of this message, 2 after one re-authorization, … */
  readonly attempt: number;
  /**
   * The bearer token the refused message carried (undefined when it had none): a refusal of a
   * token the provider has already replaced needs no new authorization, only a retry.
   */
  readonly token: string | undefined;
  /** The `DPoP-Nonce` header of the refusal, for providers that send DPoP proofs. */
  readonly dpopNonce?: string | undefined;
}

/**
 * One request a provider authorizes with `headers` (its method and URL go into DPoP proofs).
 *
 * @example
 * const request: HttpAuthRequest = { method: "POST", url: new URL("https://mcp.example.com/mcp") };
 */
export interface HttpAuthRequest {
  readonly method: string;
  readonly url: URL;
}

/**
 * What authorizes one request: the headers to set, and the access token they carry (the
 * transport hands it back in a refusal's challenge).
 *
 * @example
 * const credentials: HttpCredentials = { token: "abc", headers: [["Authorization", "Bearer abc"]] };
 */
export interface HttpCredentials {
  readonly token: string | undefined;
  readonly headers: readonly (readonly [string, string])[];
}

const ANONYMOUS: HttpCredentials = Object.freeze({ token: undefined, headers: Object.freeze([]) });

/**
 * A source of bearer tokens that can also act on a refusal: `unauthorized` resolves `true` when
 * the message should be sent again (with whatever `token` gives next), `false` to give up (the
 * send then fails with the `HttpStatusError`), and rejects to fail the send with its own error.
 *
 * @example
 * const provider: HttpAuthProvider = {
 *   token: () => tokens.access,
 *   unauthorized: async ({ status }) => status === 401 && (await tokens.refresh()),
 * };
 * new StreamableHttpClientTransport(url, { authProvider: provider });
 */
export interface HttpAuthProvider {
  token(): string | undefined | Promise<string | undefined>;
  /**
   * The authorization headers of one request, when they depend on the request (a DPoP proof per
   * request, RFC 9449); used instead of `token` when present.
   */
  headers?(request: HttpAuthRequest): Promise<HttpCredentials>;
  unauthorized?(challenge: HttpAuthChallenge): Promise<boolean>;
  /**
   * Changes with each new authorization grant (a sign-in, which may be another user's), not with a
   * refresh of the same grant. A `Client` then drops its cached `private` results, which the spec
   * keeps to one authorization context. `OAuthClientProvider` counts its sign-ins here.
   */
  readonly authGrant?: unknown;
}

/** A token function (the simple form) or a provider that can also re-authorize. */
export type AuthProviderOption = (() => string | undefined | Promise<string | undefined>) | HttpAuthProvider;

/**
 * How many refusals one message may meet before the transport gives up, whatever the provider
 * answers: an authorization server that keeps issuing tokens the resource keeps refusing must not
 * loop forever (three authorizations at most).
 */
export const MAX_AUTH_ATTEMPTS = 3;

/** The token for the next request; a provider that throws fails the request with a fixed message. */
export async function tokenFrom(option: AuthProviderOption): Promise<string | undefined> {
  try {
    return await (typeof option === "function" ? option() : option.token());
  } catch {
    // Never the provider's own message: it may quote a secret.
    throw new HttpTransportError("The authProvider failed to supply a token");
  }
}

/**
 * The credentials of one request: the provider's `headers` when it has them, else its token as
 * `Authorization: Bearer`. A provider that throws fails the request with the fixed message.
 */
export async function credentialsFrom(
  option: AuthProviderOption,
  request: HttpAuthRequest,
): Promise<HttpCredentials> {
  if (typeof option === "function" || option.headers === undefined) {
    const token = await tokenFrom(option);
    return token === undefined ? ANONYMOUS : { token, headers: [["Authorization", `Bearer ${token}`]] };
  }
  try {
    return await option.headers(request);
  } catch {
    throw new HttpTransportError("The authProvider failed to supply a token");
  }
}

/**
 * Whether a refused message should be sent again: only a 401/403 `HttpStatusError`, only with a
 * provider that has `unauthorized`, and at most `MAX_AUTH_ATTEMPTS` times per message.
 */
export async function reauthorized(
  option: AuthProviderOption | undefined,
  error: unknown,
  url: URL,
  attempt: number,
  token: string | undefined,
): Promise<boolean> {
  if (option === undefined || typeof option === "function" || option.unauthorized === undefined) return false;
  if (!(error instanceof HttpStatusError) || (error.status !== 401 && error.status !== 403)) return false;
  if (attempt > MAX_AUTH_ATTEMPTS) return false;
  return option.unauthorized({
    status: error.status,
    wwwAuthenticate: error.wwwAuthenticate,
    url,
    attempt,
    token,
    dpopNonce: error.dpopNonce,
  });
}
