/** The key set fetch: jose reads the whole body, so the body is bounded here first. */
import type { FetchImplementation } from "jose";
import { FetchReceived } from "../answer.js";

/** The largest key set document read by default: far above any real set (a few KiB). */
export const DEFAULT_MAX_JWKS_BYTES = 256 * 1024;

/**
 * `fetchImpl` with the body of a 200 read up to `maxBytes`: past it the fetch fails (and with it
 * the token's verification) instead of buffering whatever the URL sends.
 */
export function boundedJwksFetch(fetchImpl: typeof fetch, maxBytes: number): FetchImplementation {
  return async (url, init) => {
    const response = await fetchImpl(url, init);
    if (response.status !== 200) return response;
    const text = await new FetchReceived(response).text(maxBytes);
    return new Response(text, { status: 200, headers: response.headers });
  };
}
