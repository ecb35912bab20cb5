// A web app that calls a protected MCP server for its users. Signing in takes two requests: the
// one that meets the 401 redirects the browser to the authorization server, and the callback
// route finishes the sign-in. Each request builds its own provider over the user's stored state,
// so the two halves may run in different processes (here: one process, one store per session).
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "roundtrip-mcp/client";
import { OAuthClientProvider, type OAuthState, type OAuthStore } from "roundtrip-mcp/oauth";

/** Thrown by `authorize` to end the request with a redirect to the consent page. */
class SendUserTo extends Error {
  constructor(readonly page: URL) {
    super("the user must sign in first");
  }
}

/** Serves `/whoami` (calls the MCP server's `whoami` tool) and `/oauth/callback` on 127.0.0.1. */
export async function startWebApp(mcpUrl: URL) {
  const sessions = new Map<string, OAuthState>(); // use your database: the state holds secrets
  const storeOf = (sid: string): OAuthStore => ({
    load: () => sessions.get(sid),
    save: (state) => void sessions.set(sid, state),
  });
  const providerFor = (sid: string) =>
    new OAuthClientProvider({
      clientName: "roundtrip web example",
      redirectUri: new URL("/oauth/callback", origin).href,
      store: storeOf(sid),
      authorize: async (page) => {
        throw new SendUserTo(page);
      },
    });

  const serve = async (req: IncomingMessage, res: ServerResponse, sid: string) => {
    const url = new URL(req.url ?? "/", origin);
    if (url.pathname === "/oauth/callback") {
      await providerFor(sid).completeAuthorization(url);
      return void res.writeHead(302, { location: "/whoami" }).end();
    }
    if (url.pathname !== "/whoami") return void res.writeHead(404).end();
    try {
      await using client = await Client.connect(mcpUrl, { http: { authProvider: providerFor(sid) } });
      const result = await client.callTool("whoami", {});
      const text = result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
      res.writeHead(200, { "content-type": "text/plain" }).end(text);
    } catch (error) {
      if (!(error instanceof SendUserTo)) throw error;
      res.writeHead(302, { location: error.page.href }).end();
    }
  };

  const server = createServer((req, res) => {
    const sid = /(?:^|;\s*)sid=([\w-]+)/.exec(req.headers.cookie ?? "")?.[1] ?? randomUUID();
    res.setHeader("set-cookie", `sid=${sid}; HttpOnly; SameSite=Lax; Path=/`);
    serve(req, res, sid).catch(() => {
      if (!res.headersSent) res.writeHead(400, { "content-type": "text/plain" });
      res.end("Sign-in failed. Try again.");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
