/**
 * The `Bearer` challenge of a `WWW-Authenticate` header (RFC 6750 §3, RFC 9728 §5.1): the
 * auth-params a client acts on. Other schemes in the same header are skipped.
 */

/**
 * What a `Bearer` challenge asks for.
 *
 * @example
 * parseBearerChallenge('Bearer error="insufficient_scope", scope="files:write"'); // { error: "insufficient_scope", scope: "files:write" }
 */
export interface BearerChallenge {
  readonly error?: string;
  /** Space-separated scopes the resource needs. */
  readonly scope?: string;
  /** Where the resource's Protected Resource Metadata lives (RFC 9728). */
  readonly resourceMetadata?: string;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/;
/** A token68 credential (RFC 7235 §2.1), padding included, standing alone before a comma or the end. */
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*(?=\s*(?:,|$))/;

/**
 * The `Bearer` challenge's parameters, or `undefined` when the header has no `Bearer` challenge.
 * Quoted values are unescaped; a malformed remainder ends the parse with what was read so far.
 *
 * @example
 * parseBearerChallenge('Bearer resource_metadata="https://api.example.com/.well-known/oauth-protected-resource/mcp"');
 */
export function parseBearerChallenge(header: string | undefined): BearerChallenge | undefined {
  return parseChallenge(header, "bearer");
}

/**
 * The parameters of the challenge of `scheme` (lower case: "bearer", "dpop"), or `undefined` when
 * the header has none.
 *
 * @example
 * parseChallenge('DPoP error="use_dpop_nonce", algs="ES256"', "dpop"); // { error: "use_dpop_nonce" }
 */
export function parseChallenge(header: string | undefined, scheme: string): BearerChallenge | undefined {
  if (header === undefined) return undefined;
  let rest = header;
  let afterScheme = false;
  let inBearer = false;
  let found = false;
  const params: Record<string, string> = {};
  while (rest.length > 0) {
    rest = rest.replace(/^[\s,]+/, "");
    const credential = afterScheme ? TOKEN68.exec(rest)?.[0] : undefined;
    afterScheme = false;
    if (credential !== undefined) {
      // e.g. `Negotiate YIIFyw==, Bearer …`: padding must not be read as a parameter.
      rest = rest.slice(credential.length);
      continue;
    }
    const name = TOKEN.exec(rest)?.[0];
    if (name === undefined) break;
    const afterName = rest.slice(name.length).replace(/^\s*/, "");
    if (!afterName.startsWith("=")) {
      // A new challenge: its scheme, maybe followed by a token68 we do not need.
      inBearer = name.toLowerCase() === scheme;
      found ||= inBearer;
      afterScheme = true;
      rest = afterName;
      continue;
    }
    const read = readValue(afterName.slice(1).replace(/^\s*/, ""));
    if (read === undefined) break;
    // The first occurrence wins: a repeated parameter must not override what came first.
    if (inBearer && !(name.toLowerCase() in params)) params[name.toLowerCase()] = read.value;
    rest = read.rest;
  }
  if (!found) return undefined;
  const challenge: { error?: string; scope?: string; resourceMetadata?: string } = {};
  if (params.error !== undefined) challenge.error = params.error;
  if (params.scope !== undefined) challenge.scope = params.scope;
  if (params.resource_metadata !== undefined) challenge.resourceMetadata = params.resource_metadata;
  return challenge;
}

function readValue(text: string): { value: string; rest: string } | undefined {
  if (!text.startsWith('"')) {
    const token = TOKEN.exec(text)?.[0];
    return token === undefined ? undefined : { value: token, rest: text.slice(token.length) };
  }
  let value = "";
  for (let index = 1; index < text.length; index++) {
    const char = text[index];
    if (char === "\\") {
      index++;
      if (index < text.length) value += text[index];
    } else if (char === '"') {
      return { value, rest: text.slice(index + 1) };
    } else {
      value += char;
    }
  }
  return undefined;
}
