/**
 * The OAuth client never follows an HTTP redirect, on real loopback sockets with the global fetch
 * (what the provider uses by default): a token or registration endpoint answering 307 would have
 * fetch re-POST the code, verifier and client secret to the origin it names, and a metadata URL
 * answering 302 would steer discovery past the HTTPS-or-local rule.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type {
  AuthorizationServerMetadata,
  OAuthFetch,
} from "../../../src/transports/http/oauth/discovery.js";
import {
  discoverAuthorizationServer,
  discoverResource,
} from "../../../src/transports/http/oauth/discovery.js";
import { idJagFromIdentityProvider } from "../../../src/transports/http/oauth/id-jag.js";
import { registerClient } from "../../../src/transports/http/oauth/registration.js";
import { exchangeCode, type OAuthClientInformation } from "../../../src/transports/http/oauth/token.js";
import { listen } from "./auth-server.js";
import { authServerAt, failure } from "./fake-fetch.js";

const realFetch: OAuthFetch = (input, init) => fetch(input, init);

/** What the other origin received: every request, with its body. */
interface Seen {
  readonly method: string;
  readonly url: string;
  readonly body: string;
}

const servers: Server[] = [];

async function serve(
  handle: (req: IncomingMessage, body: string) => [number, Record<string, string>, string],
) {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    req.on("end", () => {
      const [status, headers, text] = handle(req, body);
      res.writeHead(status, headers).end(text);
    });
  });
  servers.push(server);
  return `http://127.0.0.1:${await listen(server)}`;
}

/** An origin that would accept anything it is sent (a token answer, a registration, a document). */
async function elsewhere(document: Record<string, unknown>) {
  const seen: Seen[] = [];
  const origin = await serve((req, body) => {
    seen.push({ method: req.method ?? "", url: req.url ?? "", body });
    return [200, { "content-type": "application/json" }, JSON.stringify(document)];
  });
  return { origin, seen };
}

/** An origin whose every path redirects to `target` with `status`. */
function redirecting(status: number, target: string) {
  return serve(() => [status, { location: target }, ""]);
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

function metadata(origin: string): AuthorizationServerMetadata {
  return authServerAt(origin, { tokenEndpointAuthMethods: ["client_secret_post"] });
}

describe("the OAuth client and redirects", () => {
  it.each([307, 308])(
    "sends no code, verifier or secret on to where a token endpoint's %i points",
    async (status) => {
      const thief = await elsewhere({ access_token: "stolen-session", token_type: "Bearer" });
      const server = metadata(await redirecting(status, `${thief.origin}/collect`));
      const client: OAuthClientInformation = {
        issuer: server.issuer,
        clientId: "app",
        clientSecret: "SECRET-value",
        authMethod: "client_secret_post",
      };
      const grant = {
        code: "CODE-value",
        verifier: "VERIFIER-value",
        redirectUri: "http://127.0.0.1:1/cb",
        resource: "http://127.0.0.1:2/mcp",
        scope: undefined,
      };
      const error = await failure(exchangeCode(realFetch, server, client, grant));
      expect(error.code).toBe("token_request_failed");
      expect(error.message).toBe(`the token endpoint refused (HTTP ${status})`);
      expect(thief.seen).toStrictEqual([]);
    },
  );

  it("sends no registration on to where a registration endpoint's 307 points", async () => {
    const thief = await elsewhere({ client_id: "planted", client_secret: "planted-secret" });
    const server = metadata(await redirecting(307, `${thief.origin}/register`));
    const profile = { clientName: "app", redirectUri: "http://127.0.0.1:1/cb" };
    const error = await failure(registerClient(realFetch, server, profile));
    expect(error.code).toBe("registration_failed");
    expect(error.message).toBe("the registration endpoint refused (HTTP 307)");
    expect(thief.seen).toStrictEqual([]);
  });

  it("sends no ID token on to where an identity provider's 307 points", async () => {
    const thief = await elsewhere({
      issued_token_type: "urn:ietf:params:oauth:token-type:id-jag",
      access_token: "x",
    });
    const idp = await redirecting(307, `${thief.origin}/token`);
    const workloadToken = idJagFromIdentityProvider({
      tokenEndpoint: `${idp}/token`,
      idToken: "ID-TOKEN-value",
      clientId: "host",
      fetch: realFetch,
    });
    const target = { issuer: "https://auth.example", resource: "https://mcp.example/mcp", scope: undefined };
    const error = await failure(workloadToken(target));
    expect(error.code).toBe("token_exchange_failed");
    expect(error.message).toBe("the identity provider refused the token exchange (HTTP 307)");
    expect(thief.seen).toStrictEqual([]);
  });

  it("takes no protected resource metadata from where a well-known URL's 302 points", async () => {
    const mcp = new URL(`${await redirecting(302, "http://127.0.0.1:1/unused")}/mcp`);
    const document = { resource: mcp.href, authorization_servers: ["https://auth.example"] };
    const other = await elsewhere(document);
    const hint = `${await redirecting(302, `${other.origin}/prm`)}/prm`;
    const error = await failure(discoverResource(realFetch, mcp, hint));
    expect(error.code).toBe("discovery_failed");
    expect(other.seen).toStrictEqual([]);
  });

  it("takes no authorization server metadata from where a well-known URL's 302 points", async () => {
    const other = await elsewhere({});
    const issuer = await redirecting(302, `${other.origin}/.well-known/oauth-authorization-server`);
    const error = await failure(discoverAuthorizationServer(realFetch, issuer, true));
    expect(error.code).toBe("discovery_failed");
    expect(error.message).toBe("no authorization server metadata found");
    expect(other.seen).toStrictEqual([]);
  });
});
