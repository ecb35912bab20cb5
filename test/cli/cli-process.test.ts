import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { MCPServer, ToolError } from "../../src/server/index.js";
import { type HttpServerHandle, serveHttp } from "../../src/transports/http/node.js";
import { createCliServer } from "./fixtures/cli-server.js";
import { runCli, STDIO_FIXTURE, spawnCli } from "./harness.js";

const tmp = mkdtempSync(join(tmpdir(), "roundtrip-cli-process-"));
let http: HttpServerHandle;
let page: Server;
let pageHits = 0;
let pageUrl = "";
let url = "";
let big: HttpServerHandle;
let bigUrl = "";

/** Answers far more than a pipe holds, so a reader that stops early closes the pipe mid-write. */
function bigServer(): MCPServer {
  const mcp = new MCPServer("Big", { version: "1.0.0" });
  mcp.server.logger.warn = () => {};
  mcp.tool("big", { description: "a large answer" }, () => "x".repeat(4_000_000));
  mcp.tool("big-error", { description: "a large tool error" }, () => {
    throw new ToolError("x".repeat(4_000_000));
  });
  return mcp;
}

/** Runs the CLI with its stdout given to `stdout`: a pipe closed after the first chunk, or a file. */
function runCliWithStdout(
  args: readonly string[],
  stdout: "closed after the first chunk" | number,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawnCli(args, ["ignore", typeof stdout === "number" ? stdout : "pipe", "pipe"]);
    let stderr = "";
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    child.stdout?.once("data", () => child.stdout?.destroy());
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

/** Runs the CLI with the reader of its stderr gone before the first line (stdout is read). */
function runCliWithStderrClosed(args: readonly string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawnCli(args);
    child.stderr?.destroy();
    let stdout = "";
    child.stdout?.on("data", (chunk) => {
      stdout += chunk;
    });
    child.on("close", (code) => resolve({ code, stdout }));
  });
}

const ANSWER = `account=${JSON.stringify({ name: "Grace Hopper", email: "grace@example.com", plan: "team", newsletter: false })}`;

beforeAll(async () => {
  page = createServer((_req, res) => {
    pageHits++;
    res.end("sign-in page");
  });
  await new Promise<void>((resolve) => page.listen(0, "127.0.0.1", resolve));
  pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/device?code=ABCD`;
  http = await serveHttp(createCliServer({ signInUrl: pageUrl }), { port: 0 });
  url = String(http.url);
  big = await serveHttp(bigServer(), { port: 0 });
  bigUrl = String(big.url);
});

afterAll(async () => {
  await http.close();
  await big.close();
  await new Promise<void>((resolve) => page.close(() => resolve()));
  rmSync(tmp, { recursive: true, force: true });
});

describe.concurrent("the roundtrip process", { timeout: 60_000 }, () => {
  it("exits 0 with --answer, and --json prints a result that parses", async ({ expect }) => {
    const run = await runCli(["call", url, "register", "--json", "--answer", ANSWER]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toMatchObject({
      resultType: "complete",
      content: [
        { type: "text", text: "Registered Grace Hopper <grace@example.com> on plan team, newsletter no." },
      ],
    });
  });

  it("exits 1 on a tool error", async ({ expect }) => {
    const run = await runCli(["call", url, "fail"]);
    expect(run).toMatchObject({ code: 1, stdout: "the disk is full\n" });
  });

  it("exits 2 naming the key of a question nobody can answer", async ({ expect }) => {
    const run = await runCli(["call", url, "register"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("The server asked 'account' (an elicitation form) but no answer was given");
  });

  it("exits 3 on a server error", async ({ expect }) => {
    const run = await runCli(["call", url, "no_such_tool"]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("the server answered error");
  });

  it("exits 3 naming what failed when nothing listens at the server's port", async ({ expect }) => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const run = await runCli(["tools", `http://127.0.0.1:${port}/mcp?key=secret`]);
    expect(run).toEqual({
      code: 3,
      stdout: "",
      stderr: `roundtrip: server/discover: the POST failed (fetch failed: connect ECONNREFUSED 127.0.0.1:${port})\n`,
    });
  });

  it("ends quietly with the run's exit code when the reader of stdout stops early (EPIPE)", async ({
    expect,
  }) => {
    expect(await runCliWithStdout(["call", bigUrl, "big"], "closed after the first chunk")).toEqual({
      code: 0,
      stderr: "",
    });
    expect(await runCliWithStdout(["call", bigUrl, "big-error"], "closed after the first chunk")).toEqual({
      code: 1,
      stderr: "roundtrip: the tool reported an error (isError: true)\n",
    });
  });

  it("keeps its exit code when the reader of stderr is gone (EPIPE on the error line)", async ({
    expect,
  }) => {
    expect(await runCliWithStderrClosed(["call", url, "no_such_tool"])).toEqual({ code: 3, stdout: "" });
    expect(await runCliWithStderrClosed(["call", url, "fail"])).toEqual({
      code: 1,
      stdout: "the disk is full\n",
    });
  });

  it.skipIf(process.platform !== "linux")(
    "reports another stdout failure (a full disk) as a failed run",
    async ({ expect }) => {
      const full = openSync("/dev/full", "w");
      try {
        expect(await runCliWithStdout(["call", bigUrl, "big"], full)).toEqual({
          code: 3,
          stderr: "roundtrip: ENOSPC: no space left on device, write\n",
        });
        expect(await runCliWithStdout(["--version"], full)).toEqual({
          code: 3,
          stderr: "roundtrip: ENOSPC: no space left on device, write\n",
        });
      } finally {
        closeSync(full);
      }
    },
  );

  it("stops at the first Ctrl-C while connecting to a server that never answers (exit 130)", async ({
    expect,
  }) => {
    const silent = createServer(() => {
      // Holds every request: the CLI is still connecting when Ctrl-C comes.
      child.kill("SIGINT");
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const target = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp`;
    const child = spawnCli(["tools", target]);
    let stderr = "";
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    try {
      const code = await new Promise((resolve) => child.on("close", resolve));
      expect({ code, stderr }).toEqual({ code: 130, stderr: "roundtrip: Connecting was aborted\n" });
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it("exits 3 saying the stdio server exited, with its code, when it dies at start", async ({ expect }) => {
    const run = await runCli(["tools", "--", "node", "-e", "process.exit(7)"]);
    expect(run.code).toBe(3);
    expect(run.stdout).toBe("");
    expect(run.stderr.trimEnd().split("\n").at(-1)).toBe(
      "roundtrip: Connection closed: The MCP server process exited unexpectedly (code 7)",
    );
  });

  it("names the exit, not EPIPE, when the stdio server is gone before the first request is written", async ({
    expect,
  }) => {
    // `false` exits before it could read: the probe's write meets a closed pipe (EPIPE).
    const run = await runCli(["tools", "--", "false"]);
    expect(run.code).toBe(3);
    expect(run.stderr.trimEnd().split("\n").at(-1)).toBe(
      "roundtrip: Connection closed: The MCP server process exited unexpectedly (code 1)",
    );
  });

  it("talks to a stdio server given after --", async ({ expect }) => {
    const run = await runCli([
      "call",
      "register",
      "--answer",
      ANSWER,
      "--",
      "node",
      "--import",
      "tsx",
      STDIO_FIXTURE,
    ]);
    expect(run).toMatchObject({
      code: 0,
      stdout: "Registered Grace Hopper <grace@example.com> on plan team, newsletter no.\n",
    });
  });

  it.skipIf(process.platform !== "linux")(
    "--open hands the consented URL to the platform opener as one argument, and nothing fetches it",
    async ({ expect }) => {
      const bin = join(tmp, "bin");
      const opened = join(tmp, "opened.txt");
      mkdirSync(bin, { recursive: true });
      writeFileSync(join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s\\n' "$#" "$1" > '${opened}'\n`);
      chmodSync(join(bin, "xdg-open"), 0o755);
      const run = await runCli(["call", url, "signin", "--open", "--answer", 'signin="accept"'], {
        PATH: `${bin}:${process.env.PATH ?? ""}`,
      });
      expect(run).toMatchObject({ code: 0, stdout: "Sign-in answer: accept.\n" });
      expect(run.stderr).toContain(`URL:    ${pageUrl}`);
      expect(run.stderr).toContain(`Opened in your browser: ${pageUrl}`);
      // The opener runs detached: give it a moment to write what it was given.
      for (let i = 0; i < 100 && !existsSync(opened); i++) await new Promise((r) => setTimeout(r, 20));
      expect(readFileSync(opened, "utf8")).toBe(`1\n${pageUrl}\n`);
      expect(pageHits).toBe(0);
    },
  );
});
