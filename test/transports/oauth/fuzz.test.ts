/**
 * Seeded fuzzing of the OAuth client's whole recovery (discovery, registration, authorization,
 * token exchange) against hostile documents: each run starts from a world where sign-in works and
 * corrupts a few fields or answers of the resource's metadata, the authorization server's metadata,
 * the registration answer, the authorization redirect or the token answer. Every run must end in
 * working tokens or an `OAuthError`, never another exception, and no message may carry a secret.
 */
import { describe, expect, it } from "vitest";
import { OAuthError } from "../../../src/transports/http/oauth/errors.js";
import { OAuthClientProvider } from "../../../src/transports/http/oauth/index.js";
import { unhandledRejections } from "../../helpers.js";
import { prng } from "../../prng.js";
import { fakeFetch, type Route } from "./fake-fetch.js";

const RUNS = 1_000;
const MCP = "https://mcp.example/mcp";
const ISSUER = "https://auth.example";
const SECRET = "client-SECRET-value-123";
const CODE = "CODE-secret-456";
const ACCESS = "ACCESS-token-789";
const REDIRECT = "http://127.0.0.1:8765/callback";

type Rng = ReturnType<typeof prng>;
type Doc = Record<string, unknown>;

function junk(rng: Rng, depth = 0): unknown {
  switch (rng.int(depth > 1 ? 5 : 7)) {
    case 0:
      return null;
    case 1:
      return rng.pick([0, -1, 1.5, 1e308, true]);
    case 2:
      return rng.pick([
        "",
        "é",
        "javascript:alert(1)",
        "http://auth.example/x",
        "https://evil.example/x",
        "S256",
      ]);
    case 3:
      return rng.pick([`${ISSUER}/`, `${ISSUER}/token`, "https://127.0.0.1/x", "file:///etc/passwd"]);
    case 4:
      return rng.pick(["none", "client_secret_basic", "plain", "Bearer", "offline_access"]);
    case 5:
      return Array.from({ length: rng.int(3) }, () => junk(rng, depth + 1));
    default:
      return Object.fromEntries(
        Array.from({ length: rng.int(3) }, () => [
          rng.pick(["a", "issuer", "token_type"]),
          junk(rng, depth + 1),
        ]),
      );
  }
}

/** `doc` with one to three of its fields dropped or replaced by junk (or one junk field added). */
function corrupt(rng: Rng, doc: Doc): Doc {
  const out: Doc = { ...doc };
  const keys = Object.keys(doc);
  for (let i = rng.int(3); i >= 0; i--) {
    const key = rng.chance(0.9) ? rng.pick(keys) : "extra";
    if (rng.chance(0.3)) delete out[key];
    else out[key] = junk(rng);
  }
  return out;
}

function world(rng: Rng) {
  const prm: Doc = {
    resource: MCP,
    authorization_servers: [ISSUER],
    scopes_supported: ["files:read"],
  };
  const metadata: Doc = {
    issuer: ISSUER,
    authorization_endpoint: `${ISSUER}/authorize`,
    token_endpoint: `${ISSUER}/token`,
    registration_endpoint: `${ISSUER}/register`,
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["client_secret_post"],
    response_types_supported: ["code"],
    authorization_response_iss_parameter_supported: true,
  };
  const registered: Doc = {
    client_id: "client-1",
    client_secret: SECRET,
    token_endpoint_auth_method: "client_secret_post",
    redirect_uris: [REDIRECT],
  };
  const tokens: Doc = { access_token: ACCESS, token_type: "Bearer", expires_in: 3600, refresh_token: "R" };
  // Which parts this run corrupts (at least one).
  const target = rng.int(6);
  const bad = (index: number, doc: Doc) => (target === index || rng.chance(0.1) ? corrupt(rng, doc) : doc);
  const status = (index: number) =>
    target === index && rng.chance(0.2) ? rng.pick([200, 201, 400, 500, 302]) : 200;
  const route = (body: Doc, code: number): Route => ({ status: code, body });
  const routes: Record<string, Route> = {
    "https://mcp.example/.well-known/oauth-protected-resource/mcp": route(bad(0, prm), status(0)),
    "https://auth.example/.well-known/oauth-authorization-server": route(bad(1, metadata), status(1)),
    "https://auth.example/register": route(bad(2, registered), target === 2 && rng.chance(0.2) ? 400 : 201),
    "https://auth.example/token": route(bad(4, tokens), status(4)),
  };
  const tokenAnswer = (routes["https://auth.example/token"] as { body: Doc }).body;
  if (rng.chance(0.1)) routes["https://auth.example/token"] = () => new Response("<html>", { status: 200 });
  const redirectFor = (authorizationUrl: URL): string => {
    const state = authorizationUrl.searchParams.get("state") ?? "";
    const query: Doc = { code: CODE, state, iss: ISSUER };
    const answer = target === 3 ? corrupt(rng, query) : query;
    const url = new URL(REDIRECT);
    for (const [key, value] of Object.entries(answer)) url.searchParams.set(key, String(value));
    return target === 3 && rng.chance(0.2) ? String(junk(rng)) : url.href;
  };
  const challenge =
    target === 5
      ? rng.pick(['Bearer resource_metadata="javascript:x"', "Bearer scope=", "Basic", "", "Bearer error=é"])
      : "Bearer";
  return { routes, redirectFor, challenge, tokenAnswer };
}

const unhandled = unhandledRejections();

describe("OAuth client fuzz: hostile metadata, registration, redirect and token answers", () => {
  it(`ends ${RUNS} corrupted sign-ins in tokens or an OAuthError, never leaking a secret`, async () => {
    const rng = prng(0x0a07);
    const outcomes = { signedIn: 0, refused: new Map<string, number>() };
    for (let run = 0; run < RUNS; run++) {
      const { routes, redirectFor, challenge, tokenAnswer } = world(rng);
      const fake = fakeFetch(routes);
      const provider = new OAuthClientProvider({
        redirectUri: REDIRECT,
        authorize: async (url) => redirectFor(url),
        fetch: fake.fetch,
        dpop: false,
      });
      const outcome = await provider
        .unauthorized({
          status: 401,
          wwwAuthenticate: challenge,
          url: new URL(MCP),
          attempt: 1,
          token: undefined,
          dpopNonce: undefined,
        })
        .then(
          (retry) => ({ retry }),
          (error: unknown) => ({ error }),
        );
      if ("error" in outcome) {
        const error = outcome.error as Error;
        expect(error, `run ${run}: ${String(error)}`).toBeInstanceOf(OAuthError);
        for (const secret of [SECRET, CODE, ACCESS]) expect(error.message).not.toContain(secret);
        const code = (error as OAuthError).code;
        outcomes.refused.set(code, (outcomes.refused.get(code) ?? 0) + 1);
      } else {
        // Signed in: with exactly what a well-formed Bearer token answer said.
        expect(outcome.retry).toBe(true);
        expect(typeof tokenAnswer.access_token === "string" && tokenAnswer.access_token !== "").toBe(true);
        expect(String(tokenAnswer.token_type).toLowerCase()).toBe("bearer");
        expect(await provider.token()).toBe(tokenAnswer.access_token);
        outcomes.signedIn++;
      }
    }
    expect(outcomes.signedIn).toBeGreaterThan(RUNS / 20);
    expect(outcomes.refused.size).toBeGreaterThan(4);
    if (process.env.FUZZ_DEBUG) console.log(outcomes);
    expect(unhandled).toEqual([]);
  }, 60_000);
});
