// A client that signs in to a protected MCP server with OAuth, as a desktop or CLI app does: the
// user consents in a browser, which comes back to a one-shot listener on 127.0.0.1.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "roundtrip-mcp/client";
import { OAuthClientProvider } from "roundtrip-mcp/oauth";

/** Listens on 127.0.0.1 for the browser's return; `next()` resolves with the URL it came back to. */
export async function callbackListener() {
  let deliver: (url: URL) => void = () => {};
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", redirectUri);
    if (url.pathname !== "/callback") return void res.writeHead(404).end(); // e.g. the favicon
    res.writeHead(200, { "content-type": "text/plain" }).end("Signed in. You can close this tab.");
    deliver(url);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  return {
    redirectUri,
    next: () => new Promise<URL>((resolve) => (deliver = resolve)),
    close: () => void server.close(),
  };
}

/** Connects to `url`, signing in when the server asks; `openBrowser` shows the user the consent page. */
export async function signedInClient(url: URL, openBrowser: (page: URL) => Promise<void>) {
  const callback = await callbackListener();
  const authProvider = new OAuthClientProvider({
    clientName: "roundtrip example",
    redirectUri: callback.redirectUri,
    authorize: async (page) => {
      const returned = callback.next();
      await openBrowser(page);
      return returned;
    },
  });
  const client = await Client.connect(url, { http: { authProvider } });
  const close = async () => {
    await client.close();
    callback.close();
  };
  return { client, authProvider, close };
}
