/**
 * Endpoints an issuer publishes in its metadata (`jwks_uri`, `introspection_endpoint`): RFC 8414,
 * then OpenID discovery, at the well-known URLs the MCP spec tries, in its order.
 */
import { FetchReceived } from "../answer.js";
import { onThisMachine } from "../loopback.js";
import { authorizationServerMetadataUrls, reachable } from "../oauth/discovery.js";

/** After a failed metadata read, tokens are refused without asking the issuer again for this long. */
export const DISCOVERY_RETRY_MS = 30_000;

/** How metadata is fetched: the `fetch`, a bound on each body, a timeout on each request. */
export interface MetadataFetch {
  readonly fetch: typeof fetch;
  readonly maxBytes: number;
  readonly timeoutMs: number;
}

/**
 * The URL the issuer's metadata gives for `field`. The first document found must name `issuer`
 * exactly (RFC 8414 §3.3) and an HTTPS URL there (a local issuer may name a local one); anything
 * else rejects, with a message that says which. Redirects are not followed.
 */
export async function discoverIssuerEndpoint(
  issuer: string,
  field: string,
  how: MetadataFetch,
): Promise<URL> {
  const base = new URL(issuer);
  const local = onThisMachine(base.hostname);
  for (const candidate of authorizationServerMetadataUrls(base)) {
    let response: Response;
    try {
      response = await how.fetch(candidate, {
        headers: { accept: "application/json" },
        redirect: "manual",
        signal: AbortSignal.timeout(how.timeoutMs),
      });
    } catch {
      throw new Error(`could not reach ${candidate.origin} for the issuer's metadata`);
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => {});
      continue;
    }
    const document = parseObject(await new FetchReceived(response).text(how.maxBytes));
    if (document?.issuer !== issuer) {
      throw new Error(`the metadata at ${candidate.href} names another issuer`);
    }
    const value = document[field];
    if (typeof value !== "string" || !URL.canParse(value) || !reachable(new URL(value), local)) {
      throw new Error(`the metadata at ${candidate.href} has no HTTPS ${field}`);
    }
    return new URL(value);
  }
  throw new Error(`no metadata found for the issuer ${issuer}`);
}

/**
 * `discover()` run once, on first use, and its result kept. A failure is retried by a call that
 * comes `DISCOVERY_RETRY_MS` after it; the calls before are refused with its error.
 */
export function discoveredOnce<T>(discover: () => Promise<T>): () => Promise<T> {
  let found: Promise<T> | undefined;
  let failure: { at: number; error: unknown } | undefined;
  return () => {
    if (found !== undefined) return found;
    if (failure !== undefined && Date.now() - failure.at < DISCOVERY_RETRY_MS)
      return Promise.reject(failure.error);
    const attempt = discover();
    found = attempt;
    attempt.catch((error: unknown) => {
      found = undefined;
      failure = { at: Date.now(), error };
    });
    return attempt;
  };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
