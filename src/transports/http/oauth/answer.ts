/** Sending a request to an authorization server endpoint and reading its JSON object answer. */
import type { OAuthFetch } from "./discovery.js";
import { OAuthError } from "./errors.js";

/**
 * The endpoint's status and JSON object answer (an empty object when the body is not one). A
 * request that never reaches the endpoint fails with `code`; the message names the endpoint only.
 */
export async function askEndpoint(
  fetchImpl: OAuthFetch,
  url: URL,
  init: RequestInit,
  failure: { code: string; endpoint: string },
): Promise<{ ok: boolean; status: number; answer: Record<string, unknown>; dpopNonce: string | undefined }> {
  let response: Response;
  try {
    response = await fetchImpl(url, init);
  } catch {
    throw new OAuthError(failure.code, `could not reach the ${failure.endpoint}`);
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  const answer = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const dpopNonce = response.headers.get("dpop-nonce") ?? undefined;
  return { ok: response.ok, status: response.status, answer, dpopNonce };
}
