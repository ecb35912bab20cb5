import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { type HttpServerHandle, serveHttp } from "../../src/transports/http/node.js";
import { startLegacySseServer } from "../fixtures/legacy/sse-server.js";
import { freePort, MockAuthorizationServer, whoamiServer } from "../transports/oauth/world.js";
import { runCli, spawnCli } from "./harness.js";

const tmp = mkdtempSync(join(tmpdir(), "roundtrip-cli-auth-"));
const STATIC_TOKEN = "static-token-0123456789";
let authServer: MockAuthorizationServer;
let http: HttpServerHandle;
let url = "";

beforeAll(async () => {
  authServer = await MockAuthorizationServer.start();
  const mcp = whoamiServer();
  const port = await freePort();
  url = `http://127.0.0.1:${port}/mcp`;
  http = await serveHttp(mcp, {
    port,
    protectedResource: { resource: url, authorizationServers: [authServer.issuer] },
    requireAuth: true,
    verifyToken: (request) => {
      const token = request.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
      if (token === STATIC_TOKEN) return { token, clientId: "static", scopes: [] };
      const issued = authServer.verify(token);
      return issued && { token, clientId: issued.clientId, scopes: issued.scopes };
    },
  });
});

afterAll(async () => {
  await http.close();
  await authServer.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe.concurrent("the roundtrip process against a protected server", { timeout: 60_000 }, () => {
  it("sends the token of --bearer-env, which never appears in its output", async ({ expect }) => {
    const run = await runCli(["call", url, "whoami", "--bearer-env", "MCP_TOKEN"], {
      MCP_TOKEN: STATIC_TOKEN,
    });
    expect(run).toMatchObject({ code: 0, stdout: "hello static\n" });
    expect(run.stderr).not.toContain(STATIC_TOKEN);
  });

  it("sends the token of --bearer-env to an HTTP+SSE (2024-11-05) server it falls back to", async ({
    expect,
  }) => {
    const sse = await startLegacySseServer({ token: STATIC_TOKEN });
    try {
      const run = await runCli(
        ["call", sse.url.href, "echo", "--arg", "text=hi", "--bearer-env", "MCP_TOKEN"],
        {
          MCP_TOKEN: STATIC_TOKEN,
        },
      );
      expect(run).toMatchObject({ code: 0, stdout: "echo: hi\n" });
      expect(sse.hits.some((hit) => hit.method === "GET")).toBe(true);
      expect(sse.hits.every((hit) => hit.authorization === `Bearer ${STATIC_TOKEN}`)).toBe(true);
    } finally {
      await sse.close();
    }
  });

  it("exits 2 when the --bearer-env variable is not set", async ({ expect }) => {
    const run = await runCli(["call", url, "whoami", "--bearer-env", "MCP_TOKEN_MISSING"]);
    expect(run).toEqual({
      code: 2,
      stdout: "",
      stderr: "roundtrip: the environment variable MCP_TOKEN_MISSING is not set\n",
    });
  });

  it.for<[string, string]>([
    ["a line break", `${STATIC_TOKEN}\nsecond-line`],
    ["a carriage return", `${STATIC_TOKEN}\r-rest`],
    ["a character beyond Latin-1", `${STATIC_TOKEN}€`],
  ])("exits 2 without echoing a --bearer-env token that holds %s", async ([, token], { expect }) => {
    const run = await runCli(["call", url, "whoami", "--bearer-env", "MCP_TOKEN"], { MCP_TOKEN: token });
    expect(run).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "roundtrip: the token in MCP_TOKEN holds a character an HTTP header cannot carry (a line break?)\n",
    });
  });

  it("exits 2 without echoing a token passed to --bearer-env instead of a variable name", async ({
    expect,
  }) => {
    // Shaped like a variable name, so the parser lets it through; only its length and case give it away.
    const token = "ghp_R4nd0mT0k3nV4lu3AbCdEfGhIjKlMnOpQrSt";
    const run = await runCli(["call", url, "whoami", "--bearer-env", token]);
    expect(run).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "roundtrip: the environment variable given to --bearer-env is not set " +
        "(was a token passed instead of a variable name?)\n",
    });
  });

  it("exits 2 (the user must pick another port) when the --oauth-port is in use", async ({ expect }) => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const run = await runCli(["call", url, "whoami", "--oauth", "--oauth-port", String(port)]);
      expect(run).toEqual({
        code: 2,
        stdout: "",
        stderr:
          `roundtrip: --oauth-port ${port}: the port is in use on 127.0.0.1 ` +
          "(pick another one, or leave --oauth-port out for any free port)\n",
      });
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });

  it("says the --timeout cut a sign-in short when the browser step outlasts the request (exit 3)", async ({
    expect,
  }) => {
    // Nobody completes this sign-in: the request waiting on it times out after 5 s.
    const run = await runCli(["call", url, "whoami", "--oauth", "--timeout", "5000"]);
    expect({ code: run.code, stdout: run.stdout, last: run.stderr.trimEnd().split("\n").at(-1) }).toEqual({
      code: 3,
      stdout: "",
      last:
        "roundtrip: the sign-in was not finished within --timeout (5000 ms), which also bounds the " +
        "browser step; raise --timeout to allow a slower sign-in",
    });
  });

  it("exits 2 before any sign-in when the --oauth-store file could never be written", async ({ expect }) => {
    const file = join(tmp, "no-such-folder", "oauth.json");
    // Without the check, the sign-in would wait for a browser here until the --timeout.
    const run = await runCli(["call", url, "whoami", "--oauth", "--oauth-store", file, "--timeout", "3000"]);
    expect(run).toEqual({
      code: 2,
      stdout: "",
      stderr: `roundtrip: --oauth-store ${file}: there is no folder ${join(tmp, "no-such-folder")} to create it in\n`,
    });
  });

  it("exits 130 when Ctrl-C stops an --oauth sign-in waiting for the browser", async ({ expect }) => {
    const child = spawnCli(["call", url, "whoami", "--oauth"]);
    let stderr = "";
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
      if (stderr.includes("Sign in")) child.kill("SIGINT");
    });
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect({ code, last: stderr.trimEnd().split("\n").at(-1) }).toEqual({
      code: 130,
      // The sign-in runs inside connecting here, which reports the abort itself.
      last: "roundtrip: Connecting was aborted",
    });
  });

  it("exits 3 on the 401 without authentication", async ({ expect }) => {
    const run = await runCli(["call", url, "whoami"]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("401");
  });

  it.skipIf(process.platform !== "linux")(
    "--oauth-store keeps the sign-in for the next run, in a file only its owner can read",
    async ({ expect }) => {
      const bin = join(tmp, "bin-store");
      mkdirSync(bin, { recursive: true });
      const opened = join(tmp, "store-opened.txt");
      const browser = "fetch(process.argv[1]).then((r) => r.text())";
      writeFileSync(
        join(bin, "xdg-open"),
        `#!/bin/sh\necho "$1" >> '${opened}'\nexec node -e '${browser}' "$1"\n`,
      );
      chmodSync(join(bin, "xdg-open"), 0o755);
      const env = { PATH: `${bin}:${process.env.PATH ?? ""}` };
      const file = join(tmp, "oauth.json");
      const first = await runCli(["call", url, "whoami", "--oauth", "--open", "--oauth-store", file], env);
      expect(first.code).toBe(0);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(file, "utf8")).tokens.accessToken).toMatch(/^at-/);
      const second = await runCli(["call", url, "whoami", "--oauth", "--open", "--oauth-store", file], env);
      expect(second).toMatchObject({ code: 0, stdout: first.stdout });
      expect(second.stderr).not.toContain("Sign in");
      expect(readFileSync(opened, "utf8").trim().split("\n")).toHaveLength(1);

      chmodSync(file, 0o644);
      const loose = await runCli(["call", url, "whoami", "--oauth", "--oauth-store", file], env);
      expect(loose.code).toBe(2);
      expect(loose.stderr).toContain("is readable or writable by others");
    },
  );

  it.skipIf(process.platform !== "linux")(
    "--oauth: the loopback listener answers 400 to a target it cannot parse, and keeps waiting",
    async ({ expect }) => {
      const bin = join(tmp, "bin-hostile");
      mkdirSync(bin, { recursive: true });
      const statusFile = join(tmp, "hostile-status.txt");
      // A stand-in browser that first sends the listener "GET //" (new URL("//", base) throws),
      // then follows the real redirect.
      const browser = join(bin, "browser.mjs");
      writeFileSync(
        browser,
        [
          'import { writeFileSync } from "node:fs";',
          'const consent = await fetch(process.argv[2], { redirect: "manual" });',
          'const callback = new URL(consent.headers.get("location"));',
          'const hostile = await fetch(callback.origin + "//");',
          "writeFileSync(process.argv[3], String(hostile.status));",
          "await fetch(callback);",
        ].join("\n"),
      );
      writeFileSync(join(bin, "xdg-open"), `#!/bin/sh\nexec node '${browser}' "$1" '${statusFile}'\n`);
      chmodSync(join(bin, "xdg-open"), 0o755);
      const run = await runCli(["call", url, "whoami", "--oauth", "--open"], {
        PATH: `${bin}:${process.env.PATH ?? ""}`,
      });
      expect(readFileSync(statusFile, "utf8")).toBe("400");
      expect({ code: run.code, stdout: run.stdout }).toEqual({
        code: 0,
        stdout: expect.stringMatching(/^hello client-\d+\n$/),
      });
    },
  );

  it.skipIf(process.platform !== "linux")(
    "--oauth: a refused sign-in's page does not claim a sign-in, and the run fails",
    async ({ expect }) => {
      const bin = join(tmp, "bin-refused");
      mkdirSync(bin, { recursive: true });
      const pageFile = join(tmp, "refused-page.txt");
      // A stand-in browser whose user refuses consent: the authorization server sends it back to
      // the callback with error=access_denied and the request's state (RFC 6749 §4.1.2.1).
      const browser = join(bin, "browser.mjs");
      writeFileSync(
        browser,
        [
          'import { writeFileSync } from "node:fs";',
          "const authorize = new URL(process.argv[2]);",
          'const callback = new URL(authorize.searchParams.get("redirect_uri"));',
          'callback.searchParams.set("error", "access_denied");',
          'callback.searchParams.set("state", authorize.searchParams.get("state"));',
          'callback.searchParams.set("iss", process.argv[4]);',
          "const page = await fetch(callback);",
          'writeFileSync(process.argv[3], page.status + " " + (await page.text()));',
        ].join("\n"),
      );
      writeFileSync(
        join(bin, "xdg-open"),
        `#!/bin/sh\nexec node '${browser}' "$1" '${pageFile}' '${authServer.issuer}'\n`,
      );
      chmodSync(join(bin, "xdg-open"), 0o755);
      const run = await runCli(["call", url, "whoami", "--oauth", "--open"], {
        PATH: `${bin}:${process.env.PATH ?? ""}`,
      });
      expect(readFileSync(pageFile, "utf8")).toBe(
        "200 The sign-in to roundtrip did not complete. You can close this tab; the terminal says why.",
      );
      expect(run.code).not.toBe(0);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain("access_denied");
    },
  );

  it.skipIf(process.platform !== "linux")(
    "--oauth --open signs in through the browser and the loopback listener, then calls the tool",
    async ({ expect }) => {
      const bin = join(tmp, "bin");
      mkdirSync(bin, { recursive: true });
      // The stand-in browser: fetch the page and follow the redirect to the CLI's callback.
      const browser = "fetch(process.argv[1]).then((r) => r.text())";
      writeFileSync(join(bin, "xdg-open"), `#!/bin/sh\nexec node -e '${browser}' "$1"\n`);
      chmodSync(join(bin, "xdg-open"), 0o755);
      const run = await runCli(["call", url, "whoami", "--oauth", "--open"], {
        PATH: `${bin}:${process.env.PATH ?? ""}`,
      });
      expect(run).toMatchObject({ code: 0 });
      expect(run.stdout).toMatch(/^hello client-\d+\n$/);
      expect(run.stderr).toContain(`Sign in to continue: ${authServer.issuer}/authorize?`);
      const registration = authServer.requests("/register").at(-1)?.body as Record<string, unknown>;
      expect(registration).toMatchObject({ client_name: "roundtrip CLI", application_type: "native" });
      expect(String((registration.redirect_uris as string[])[0])).toMatch(
        /^http:\/\/127\.0\.0\.1:\d+\/callback$/,
      );
    },
  );
});
