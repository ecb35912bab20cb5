import { afterEach, expect, it } from "vitest";
import { callbackListener, signedInClient } from "../../examples/oauth-client.js";
import { MockAuthorizationServer, ProtectedMcp } from "../transports/oauth/world.js";

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

it("signs in through the loopback callback and calls the protected tool", async () => {
  const authServer = await MockAuthorizationServer.start({ refreshTokens: true });
  closers.push(() => authServer.close());
  const resource = await ProtectedMcp.start({
    authorizationServer: () => authServer,
    challengeScope: "mcp:tools",
  });
  closers.push(() => resource.close());
  const opened: URL[] = [];
  // The "browser": follows the consent page's redirect, which lands on the example's listener.
  const browser = async (page: URL) => {
    opened.push(page);
    await (await fetch(page)).text();
  };
  const { client, authProvider, close } = await signedInClient(resource.url, browser);
  closers.push(close);
  const result = await client.callTool("whoami", {});
  expect(result.content).toEqual([{ type: "text", text: "client-1 [mcp:tools]" }]);
  expect(opened).toHaveLength(1);
  expect(opened[0]?.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  expect(authProvider.tokens?.refreshToken).toMatch(/^rt-/);
  expect(authServer.requests("/register")[0]?.body).toMatchObject({
    client_name: "roundtrip example",
    application_type: "native",
  });
});

it("the callback listener answers the browser and hands over the full URL", async () => {
  const callback = await callbackListener();
  closers.push(() => callback.close());
  const next = callback.next();
  expect((await fetch(new URL("/favicon.ico", callback.redirectUri))).status).toBe(404);
  const response = await fetch(`${callback.redirectUri}?code=abc&state=xyz`);
  expect(await response.text()).toBe("Signed in. You can close this tab.");
  const url = await next;
  expect(url.searchParams.get("code")).toBe("abc");
  expect(url.href.startsWith(callback.redirectUri)).toBe(true);
});
