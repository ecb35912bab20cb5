/** The key set fetch: jose reads the whole body, so the body is bounded here first. */
import type { FetchImplementation } from "jose";
import { FetchReceived } from "../answer.js";
import { DISCOVERY_RETRY_MS } from "./metadata.js";

/** The largest key set document read by default: far above any real set (a few KiB). */
export const DEFAULT_MAX_JWKS_BYTES = 256 * 1024;

/**
 * `fetchImpl` with the body of a 200 read up to `maxBytes`: past it the fetch fails (and with it
 * the token's verification) instead of buffering whatever the URL sends. After a failed read
 * (status, size, JSON, network) it fails with that error for `DISCOVERY_RETRY_MS` without asking:
 * jose refetches on every token while it holds no set, so each request would reach the issuer.
 */
export function boundedJwksFetch(fetchImpl: typeof fetch, maxBytes: number): FetchImplementation {
  let failure: { at: number; error: unknown } | undefined;
  return async (url, init) => {
    if (failure !== undefined && Date.now() - failure.at < DISCOVERY_RETRY_MS) throw failure.error;
    try {
      const response = await fetchImpl(url, init);
      if (response.status !== 200) {
        await response.body?.cancel().catch(() => {});
        throw new Error(`the key set URL answered HTTP ${response.status}`);
      }
      const text = await new FetchReceived(response).text(maxBytes);
      JSON.parse(text);
      return new Response(text, { status: 200, headers: response.headers });
    } catch (error) {
      failure = { at: Date.now(), error };
      throw error;
    }
  };
}
