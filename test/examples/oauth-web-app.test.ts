import { afterEach, expect, it } from "vitest";
import { startWebApp } from "../../examples/oauth-web-app.js";
import { worldKeeper } from "../transports/oauth/world.js";

const keeper = worldKeeper();
afterEach(() => keeper.closeAll());

/** A browser: follows redirects one by one, keeping the app's session cookie; every hop is logged. */
function browser(appOrigin: string) {
  let cookie: string | undefined;
  const hops: string[] = [];
  const visit = async (start: string): Promise<{ status: number; text: string }> => {
    let url = new URL(start);
    for (;;) {
      const toApp = url.origin === appOrigin;
      const response = await fetch(url, {
        redirect: "manual",
        headers: toApp && cookie ? { cookie } : {},
      });
      if (toApp) cookie = response.headers.get("set-cookie")?.split(";")[0] ?? cookie;
      hops.push(`${response.status} ${url.origin === appOrigin ? "app" : "as"}${url.pathname}`);
      const location = response.headers.get("location");
      if (response.status !== 302 || location === null)
        return { status: response.status, text: await response.text() };
      await response.body?.cancel();
      url = new URL(location, url);
    }
  };
  return { visit, hops };
}

async function worldWithApp() {
  const { authServer, resource } = await keeper.world(
    { refreshTokens: true },
    { challengeScope: "mcp:tools" },
  );
  const app = await startWebApp(resource.url);
  keeper.defer(app.close);
  return { authServer, resource, app };
}

it("signs a user in over two requests (redirect out, callback back) and then calls the tool", async () => {
  const { authServer, app } = await worldWithApp();
  const user = browser(app.origin);
  expect(await user.visit(`${app.origin}/whoami`)).toEqual({ status: 200, text: "client-1 [mcp:tools]" });
  expect(user.hops).toEqual([
    "302 app/whoami",
    "302 as/authorize",
    "302 app/oauth/callback",
    "200 app/whoami",
  ]);
  expect(authServer.requests("/authorize")[0]?.query.redirect_uri).toBe(`${app.origin}/oauth/callback`);
  // Signed in: the next visit goes straight through, with no new consent.
  expect(await user.visit(`${app.origin}/whoami`)).toEqual({ status: 200, text: "client-1 [mcp:tools]" });
  expect(authServer.requests("/authorize")).toHaveLength(1);
});

it("keeps users apart: another browser (another session) signs in on its own", async () => {
  const { authServer, app } = await worldWithApp();
  await browser(app.origin).visit(`${app.origin}/whoami`);
  const other = browser(app.origin);
  expect((await other.visit(`${app.origin}/whoami`)).status).toBe(200);
  expect(other.hops[0]).toBe("302 app/whoami");
  expect(authServer.requests("/authorize")).toHaveLength(2);
});

it("answers a forged callback with 400 and no token request", async () => {
  const { authServer, app } = await worldWithApp();
  const user = browser(app.origin);
  const forged = await user.visit(`${app.origin}/oauth/callback?code=stolen&state=guess`);
  expect(forged).toEqual({ status: 400, text: "Sign-in failed. Try again." });
  expect(authServer.requests("/token")).toHaveLength(0);
});
