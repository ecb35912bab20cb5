/** Sending a request to an authorization server endpoint and reading its JSON object answer. */
import { linkSignals } from "../../../shared/linked-signal.js";
import { timerDelay } from "../../../shared/timers.js";
import { FetchReceived } from "../answer.js";
import { ResponseTooLargeError } from "../errors.js";
import type { OAuthFetch } from "./discovery.js";
import { OAuthError } from "./errors.js";

/**
 * The most read of any OAuth answer or metadata document: real ones hold a few KiB, and a body
 * past this is refused instead of buffered.
 */
export const MAX_OAUTH_DOCUMENT_BYTES = 256 * 1024;

/** Default bound on one discovery, registration or token request, in milliseconds (30 s). */
export const DEFAULT_OAUTH_TIMEOUT_MS = 30_000;

/**
 * The fetch a provider sends with: the given one (default: the global fetch), each request bounded
 * by `timeoutMs`. An authorization server that never answers then fails its step with that step's
 * code, instead of holding the sign-in, and every `token()` waiting on it, for as long as the
 * connection stays open.
 */
export function timedOAuthFetch(
  fetchImpl: OAuthFetch | undefined,
  timeoutMs: number = DEFAULT_OAUTH_TIMEOUT_MS,
): OAuthFetch {
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new RangeError(`timeoutMs must be a positive number of milliseconds, got ${timeoutMs}`);
  }
  const send: OAuthFetch = fetchImpl ?? ((input, init) => fetch(input, init));
  return (input, init) => {
    const timeout = AbortSignal.timeout(timerDelay(timeoutMs));
    // Not disposed: the timeout unlinks it, and until then it also bounds the body's reading.
    return send(input, { ...init, signal: init.signal ? linkSignals(init.signal, timeout).signal : timeout });
  };
}

/**
 * The response's body as JSON, `undefined` when it is not JSON. A body over
 * `MAX_OAUTH_DOCUMENT_BYTES` fails with `code`, naming `source` (never its content).
 */
export async function readJsonBody(response: Response, code: string, source: string): Promise<unknown> {
  let text: string;
  try {
    text = await new FetchReceived(response).text(MAX_OAUTH_DOCUMENT_BYTES);
  } catch (error) {
    if (error instanceof ResponseTooLargeError) {
      throw new OAuthError(code, `${source} sent a body larger than ${MAX_OAUTH_DOCUMENT_BYTES} bytes`);
    }
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The endpoint's status and JSON object answer (an empty object when the body is not one). A
 * request that never reaches the endpoint, or whose answer is over the bound, fails with `code`;
 * the message names the endpoint only. A redirect is an answer like any other, never followed:
 * fetch would re-POST a 307's body (code, verifier, secret) to whatever origin it names.
 */
export async function askEndpoint(
  fetchImpl: OAuthFetch,
  url: URL,
  init: RequestInit,
  failure: { code: string; endpoint: string },
): Promise<{ ok: boolean; status: number; answer: Record<string, unknown>; dpopNonce: string | undefined }> {
  let response: Response;
  try {
    response = await fetchImpl(url, { ...init, redirect: "manual" });
  } catch {
    throw new OAuthError(failure.code, `could not reach the ${failure.endpoint}`);
  }
  const body = await readJsonBody(response, failure.code, `the ${failure.endpoint}`);
  const answer = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const dpopNonce = response.headers.get("dpop-nonce") ?? undefined;
  return { ok: response.ok, status: response.status, answer, dpopNonce };
}
