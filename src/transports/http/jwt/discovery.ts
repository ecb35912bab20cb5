/**
 * Where an issuer publishes its signing keys, read from its metadata: RFC 8414, then OpenID
 * discovery, at the well-known URLs the MCP spec tries, in its order.
 */
import { FetchReceived } from "../answer.js";
import { isLoopbackHostname } from "../loopback.js";
import { authorizationServerMetadataUrls, reachable } from "../oauth/discovery.js";

/**
 * The issuer's `jwks_uri`. The first metadata document found must name `issuer` exactly (RFC 8414
 * §3.3) and a `jwks_uri` on HTTPS (a local issuer may name a local one); anything else rejects,
 * with a message that says which. Bodies are read up to `maxBytes`.
 */
export async function discoverJwksUri(
  issuer: string,
  fetchImpl: typeof fetch,
  maxBytes: number,
  timeoutMs: number,
): Promise<URL> {
  const base = new URL(issuer);
  const local = isLoopbackHostname(base.hostname);
  for (const candidate of authorizationServerMetadataUrls(base)) {
    let response: Response;
    try {
      response = await fetchImpl(candidate, {
        headers: { accept: "application/json" },
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch {
      throw new Error(`could not reach ${candidate.origin} for the issuer's metadata`);
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => {});
      continue;
    }
    const document = parseObject(await new FetchReceived(response).text(maxBytes));
    if (document?.issuer !== issuer) {
      throw new Error(`the metadata at ${candidate.href} names another issuer`);
    }
    const jwksUri = document.jwks_uri;
    if (typeof jwksUri !== "string" || !URL.canParse(jwksUri) || !reachable(new URL(jwksUri), local)) {
      throw new Error(`the metadata at ${candidate.href} has no HTTPS jwks_uri`);
    }
    return new URL(jwksUri);
  }
  throw new Error(`no metadata found for the issuer ${issuer}`);
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
