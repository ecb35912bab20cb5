// A token the verifier vouched for is still refused when it has expired or was issued for another
// resource (RFC 8707 audience): 401 with error="invalid_token", on real loopback sockets. Without
// requireAuth the request goes on anonymous, as when the verifier refuses a token.
import { afterEach, describe, expect, it } from "vitest";
import { MCPServer, silentLogger } from "../../../src/server/index.js";
import type { AuthInfo } from "../../../src/shared/dispatch.js";
import { type HttpServerHandle, serveHttp } from "../../../src/transports/http/node.js";
import { freePort } from "../oauth/world.js";
import { post, read, rpc } from "./helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const now = () => Math.floor(Date.now() / 1000);

/** The claims a verifier reports for each test token; `ours` is this endpoint's resource URL. */
function claimsOf(token: string, ours: string): Partial<AuthInfo> | undefined {
  switch (token) {
    case "fresh":
      return { expiresAt: now() + 3600, resource: ours };
    case "expired":
      return { expiresAt: now() - 1 };
    case "unreadable":
      return { expiresAt: Number.NaN };
    case "elsewhere":
      return { resource: "https://elsewhere.example/mcp" };
    case "same-resource-spelled-differently":
      return { resource: ours.replace("http://", "HTTP://") };
    case "no-claims":
      return {};
    default:
      return undefined;
  }
}

async function serve(requireAuth: boolean): Promise<HttpServerHandle> {
  const mcp = new MCPServer("whoami", { logger: silentLogger });
  mcp.tool("whoami", {}, (_args, ctx) => ctx.authInfo?.clientId ?? "anonymous");
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const http = await serveHttp(mcp, {
    port,
    requireAuth,
    protectedResource: { resource, authorizationServers: ["https://auth.example"] },
    verifyToken: (request) => {
      const token = request.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
      const claims = claimsOf(token, resource);
      return claims && { token, clientId: `client-${token}`, scopes: [], ...claims };
    },
  });
  closers.push(() => http.close());
  return http;
}

async function whoami(http: HttpServerHandle, token: string) {
  const response = await post(http.url, rpc("tools/call", { name: "whoami" }), {
    authorization: `Bearer ${token}`,
  });
  const challenge = response.headers.get("www-authenticate");
  const { status, body } = await read(response);
  const text = (body as { result?: { content?: { text: string }[] } }).result?.content?.[0]?.text;
  return { status, challenge, text };
}

describe("token expiry and audience", () => {
  it("refuses expired, unreadable-expiry and other-resource tokens with 401 invalid_token", async () => {
    const http = await serve(true);
    for (const token of ["expired", "unreadable", "elsewhere"]) {
      const answer = await whoami(http, token);
      expect(answer.status, token).toBe(401);
      expect(answer.challenge, token).toContain('error="invalid_token"');
    }
    expect(await whoami(http, "fresh")).toMatchObject({ status: 200, text: "client-fresh" });
    expect(await whoami(http, "no-claims")).toMatchObject({ status: 200, text: "client-no-claims" });
  });

  it("compares resources as URLs", async () => {
    const http = await serve(true);
    expect(await whoami(http, "same-resource-spelled-differently")).toMatchObject({ status: 200 });
  });

  it("without requireAuth, such a token is not an identity: the call runs anonymous", async () => {
    const http = await serve(false);
    expect(await whoami(http, "expired")).toMatchObject({ status: 200, text: "anonymous" });
    expect(await whoami(http, "elsewhere")).toMatchObject({ status: 200, text: "anonymous" });
    expect(await whoami(http, "fresh")).toMatchObject({ status: 200, text: "client-fresh" });
  });
});
