// The CLI without a terminal, run in-process through run() (the binary minus main.ts): --answer,
// --trace, --json, --sampling-command, --root, URL consent through --answer, every command, and
// every exit code. Servers run in-process over HTTP. cli-process.test.ts runs the real binary.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { mcp as briefing } from "../../examples/briefing-prompt.js";
import { mcp as roots } from "../../examples/resolver-roots.js";
import { mcp as writer } from "../../examples/resolver-sample.js";
import { mcp as reports } from "../../examples/resource-template-ask.js";
import { mcp as github } from "../../examples/url-elicitation.js";
import { MCPServer } from "../../src/server/index.js";
import type { Dispatcher } from "../../src/shared/dispatch.js";
import { type HttpServerHandle, serveHttp } from "../../src/transports/http/node.js";
import { ErrorCode, McpError } from "../../src/types/core.js";
import { createCliServer, REGISTER_STATE } from "./fixtures/cli-server.js";
import { ROOT, runInProcess } from "./harness.js";

const servers: HttpServerHandle[] = [];
const tmp = mkdtempSync(join(tmpdir(), "roundtrip-cli-"));
/** Every requestState the fixture server put on the wire (sealed). */
const wireStates: string[] = [];
/** Requests that reached the sign-in page: the CLI must never fetch it. */
let pageHits = 0;
let page: Server;
let pageUrl = "";
let fixture = "";
let punycode = "";
let briefingUrl = "";
let rootsUrl = "";
let writerUrl = "";
let reportsUrl = "";
let githubUrl = "";
let closedUrl = "";
let hostileUrl = "";
let scriptUrl = "";

const REGISTER_ANSWER = JSON.stringify({
  name: "Grace Hopper",
  email: "grace@example.com",
  plan: "team",
  newsletter: false,
  seats: 7,
  tags: ["beta"],
});

/** A server whose notifications break their declared types (the CLI must cope). */
function hostileServer(): MCPServer {
  const mcp = new MCPServer("Hostile", { version: "1.0.0" });
  mcp.server.logger.warn = () => {};
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
  mcp.tool("escape-progress", { description: "a progress value carrying escapes" }, async (_args, ctx) => {
    await ctx.progress("1\u001b]0;pwned\u0007\u001b[2J" as unknown as number, 3, "step");
    await settle();
    return "done";
  });
  mcp.tool(
    "number-message",
    { description: "a progress message that is not a string" },
    async (_args, ctx) => {
      await ctx.progress(1, 3, 42 as unknown as string);
      await settle();
      return "done";
    },
  );
  mcp.tool("forged-error", { description: "an error whose text tries to add a line" }, () => {
    throw new McpError(ErrorCode.InvalidParams, "bad input\nroundtrip: all good, exit 0\r\n");
  });
  return mcp;
}

function recording(target: Dispatcher): Dispatcher {
  return {
    dispatch: async (message, context) => {
      const response = await target.dispatch(message, context);
      const state = (response as { result?: { requestState?: unknown } } | undefined)?.result?.requestState;
      if (typeof state === "string") wireStates.push(state);
      return response;
    },
  };
}

beforeAll(async () => {
  for (const server of [briefing, roots, writer, reports, github]) server.server.logger.warn = () => {};
  page = createServer((_req, res) => {
    pageHits++;
    res.end("sign-in page");
  });
  await new Promise<void>((resolve) => page.listen(0, "127.0.0.1", resolve));
  pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/device?code=ABCD`;
  const handles = await Promise.all([
    serveHttp(recording(createCliServer({ signInUrl: pageUrl })), { port: 0 }),
    serveHttp(createCliServer({ signInUrl: "https://xn--80ak6aa92e.com/login" }), { port: 0 }),
    serveHttp(briefing, { port: 0 }),
    serveHttp(roots, { port: 0 }),
    serveHttp(writer, { port: 0 }),
    serveHttp(reports, { port: 0 }),
    serveHttp(github, { port: 0 }),
    serveHttp(hostileServer(), { port: 0 }),
    serveHttp(createCliServer({ signInUrl: "javascript:alert(document.cookie)" }), { port: 0 }),
    serveHttp(createCliServer(), { port: 0 }),
  ]);
  servers.push(...handles.slice(0, 9));
  [fixture, punycode, briefingUrl, rootsUrl, writerUrl, reportsUrl, githubUrl, hostileUrl, scriptUrl] =
    handles.map((h) => String(h.url)) as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
  // A port that was just listening and is now closed: connections are refused.
  const closed = handles[9] as HttpServerHandle;
  closedUrl = String(closed.url);
  await closed.close();
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await new Promise<void>((resolve) => page.close(() => resolve()));
  rmSync(tmp, { recursive: true, force: true });
});

describe.concurrent("roundtrip without a terminal", () => {
  it("answers a form from --answer and exits 0", async ({ expect }) => {
    const run = await runInProcess(["call", fixture, "register", "--answer", `account=${REGISTER_ANSWER}`]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toBe(
      "Registered Grace Hopper <grace@example.com> on plan team, newsletter no, 7 seats, tags beta.\n",
    );
  });

  it("exits 2 naming the key when a question has no answer and stdin is not a terminal", async ({
    expect,
  }) => {
    const run = await runInProcess(["call", fixture, "register"]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("The server asked 'account' (an elicitation form) but no answer was given");
    expect(run.stderr).toContain("--answer account=<json>");
  });

  it("exits 2 when an --answer does not fit the form, naming each bad field", async ({ expect }) => {
    const answer = JSON.stringify({ name: "G", email: "grace", plan: "gold", newsletter: "yes", seats: 99 });
    const run = await runInProcess(["call", fixture, "register", "--answer", `account=${answer}`]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--answer account: name: At least 2 characters");
    expect(run.stderr).toContain("email: Expected an email address");
    expect(run.stderr).toContain('plan: Expected one of "free", "pro", "team"');
    expect(run.stderr).toContain("newsletter: Expected true or false");
    expect(run.stderr).toContain("seats: At most 50");
  });

  it("--answer decline is sent as a decline", async ({ expect }) => {
    const run = await runInProcess(["call", fixture, "register", "--answer", 'account="decline"']);
    expect(run).toMatchObject({ code: 0, stdout: "Registration declined.\n" });
  });

  it("--trace prints each round, the keys and actions, and the requestState size, never its content", async ({
    expect,
  }) => {
    const before = wireStates.length;
    const run = await runInProcess([
      "call",
      fixture,
      "register",
      "--trace",
      "--answer",
      `account=${REGISTER_ANSWER}`,
    ]);
    expect(run.code).toBe(0);
    // Tests here run concurrently: other calls' states may be recorded first; this call's is the
    // one of the size its trace names.
    const size = Number(/requestState (\d+) bytes/.exec(run.stderr)?.[1]);
    const state = wireStates.slice(before).find((value) => Buffer.byteLength(value) === size) as string;
    expect(state).toBeDefined();
    const lines = run.stderr.trim().split("\n");
    expect(lines).toEqual([
      "[trace] tools/call register: sending",
      `[trace] tools/call round 1/10: input_required, 1 question, requestState ${Buffer.byteLength(state)} bytes`,
      "[trace]   asked account: elicitation/create form",
      "[trace]   answered account (elicitation/create): accept (fields: name, email, plan, newsletter, seats, tags) [form]",
      "[trace] tools/call complete after 1 input round",
    ]);
    expect(run.stderr).not.toContain(state);
    expect(run.stderr).not.toContain(state.slice(0, 16));
    expect(run.stderr).not.toContain(REGISTER_STATE);
    for (const secret of ["Grace Hopper", "grace@example.com", "team"])
      expect(run.stderr).not.toContain(secret);
  });

  it("--json prints the raw result, which parses", async ({ expect }) => {
    const run = await runInProcess([
      "call",
      fixture,
      "register",
      "--json",
      "--answer",
      `account=${REGISTER_ANSWER}`,
    ]);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({
      resultType: "complete",
      content: [{ type: "text", text: expect.stringContaining("Registered Grace Hopper") }],
    });
    const tools = JSON.parse((await runInProcess(["tools", fixture, "--json"])).stdout);
    expect(tools.tools.map((tool: { name: string }) => tool.name)).toEqual([
      "register",
      "signin",
      "capital",
      "fail",
      "progress",
    ]);
  });

  it("exits 1 when the tool answers isError, printing its content", async ({ expect }) => {
    const run = await runInProcess(["call", fixture, "fail"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("the disk is full\n");
    expect(run.stderr).toContain("the tool reported an error (isError: true)");
  });

  it("exits 3 on a server error (unknown tool)", async ({ expect }) => {
    const run = await runInProcess(["call", fixture, "no_such_tool"]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/the server answered error -326\d\d: .*no_such_tool/);
  });

  it("prints a server's error text on one line, so it cannot forge a line of its own", async ({ expect }) => {
    const run = await runInProcess(["call", hostileUrl, "forged-error"]);
    expect(run).toEqual({
      code: 3,
      stdout: "",
      stderr: "roundtrip: the server answered error -32602: bad input roundtrip: all good, exit 0  \n",
    });
  });

  it("exits 3 on a transport failure (connection refused)", async ({ expect }) => {
    const run = await runInProcess(["tools", closedUrl]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/^roundtrip: /);
  });

  it("exits 3 when the rounds run out (a URL flow that never completes)", async ({ expect }) => {
    const run = await runInProcess([
      "call",
      githubUrl,
      "connect_github",
      "--answer",
      'signin="accept"',
      "--max-rounds",
      "2",
    ]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("still required input after 2 rounds; raise --max-rounds");
  });

  it("exits 2 on bad usage", async ({ expect }) => {
    for (const args of [
      [],
      ["frobnicate", fixture],
      ["tools"],
      ["tools", "not-a-url"],
      ["tools", fixture, "--bogus"],
      ["call", fixture],
      ["call", fixture, "register", "--answer", "account={not json"],
      ["read", fixture, "x://a", "--arg", "a=b"],
      ["tools", "--"],
    ]) {
      const run = await runInProcess(args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toContain("Run roundtrip --help for the usage.");
    }
    const help = await runInProcess(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Exit codes: 0 complete");
  });

  it("exits 2 on a target URL with credentials, echoing neither them nor the URL", async ({ expect }) => {
    const run = await runInProcess(["tools", "http://alice:s3cretpw@127.0.0.1:1/mcp"]);
    expect(run).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "roundtrip: the target URL must not contain a user name or password; pass a token with " +
        "--bearer-env NAME, or sign in with --oauth\nRun roundtrip --help for the usage.\n",
    });
  });

  it("exits 2 on a --timeout longer than Node's timers hold, instead of timing out at once", async ({
    expect,
  }) => {
    const run = await runInProcess(["call", fixture, "progress", "--timeout", "3000000000"]);
    expect(run).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "roundtrip: --timeout is at most 2147483647 ms (about 24 days), got 3000000000\n" +
        "Run roundtrip --help for the usage.\n",
    });
  });

  it("shows progress notifications on stderr", async ({ expect }) => {
    const run = await runInProcess(["call", fixture, "progress"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("all steps done\n");
    expect(run.stderr).toBe("progress 1/3 step 1\nprogress 2/3 step 2\nprogress 3/3 step 3\n");
  });

  it("prints a progress value that is not a number as ?, never its escapes", async ({ expect }) => {
    const run = await runInProcess(["call", hostileUrl, "escape-progress"]);
    expect(run).toEqual({ code: 0, stdout: "done\n", stderr: "progress ?/3 step\n" });
  });

  it("leaves out a progress message that is not a string, and the call goes on", async ({ expect }) => {
    const run = await runInProcess(["call", hostileUrl, "number-message"]);
    expect(run).toEqual({ code: 0, stdout: "done\n", stderr: "progress 1/3\n" });
  });

  it("answers sampling with --sampling-command (the request JSON on its stdin)", async ({ expect }) => {
    const saved = join(tmp, "sampling-request.json");
    const run = await runInProcess([
      "call",
      writerUrl,
      "summarize",
      "--arg",
      "text=MRTR lets servers ask without calling back.",
      "--sampling-command",
      `cat > '${saved}'; echo 'Servers ask by returning.'`,
    ]);
    expect(run).toMatchObject({ code: 0, stdout: "Servers ask by returning.\n" });
    const request = JSON.parse(readFileSync(saved, "utf8"));
    expect(request).toMatchObject({
      method: "sampling/createMessage",
      params: {
        maxTokens: 100,
        messages: [
          {
            role: "user",
            content: {
              type: "text",
              text: "Summarize in one sentence: MRTR lets servers ask without calling back.",
            },
          },
        ],
      },
    });
  });

  it("answers sampling from --answer, and a failing --sampling-command exits 1", async ({ expect }) => {
    const typed = await runInProcess(["call", fixture, "capital", "--answer", 'llm="Paris"']);
    expect(typed).toMatchObject({ code: 0, stdout: "The model (human (roundtrip CLI)) said: Paris\n" });
    const failed = await runInProcess(["call", fixture, "capital", "--sampling-command", "exit 7"]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("--sampling-command failed (exit code 7)");
  });

  it.for<[string, string, string]>([
    ["exits non-zero", "exit 7", "--sampling-command failed (exit code 7)"],
    [
      "cannot start (the shell finds no such command)",
      "/nonexistent/answerer",
      "--sampling-command failed (exit code 127)",
    ],
    ["is killed by a signal", "kill -9 $$", "--sampling-command failed (signal SIGKILL)"],
    ["prints nothing", "printf ' \\n'", "--sampling-command printed no answer"],
  ])("a --sampling-command that %s exits 1 and says so", async ([, command, message], { expect }) => {
    const run = await runInProcess(["call", fixture, "capital", "--sampling-command", command]);
    expect({ code: run.code, stdout: run.stdout, last: run.stderr.trimEnd().split("\n").at(-1) }).toEqual({
      code: 1,
      stdout: "",
      last: `roundtrip: ${message}`,
    });
  });

  it("docs/cli.md lists a failed --sampling-command under exit 1, as --help does", async ({ expect }) => {
    const flat = (text: string) => text.replace(/`/g, "").replace(/\s+/g, " ");
    const docs = flat(readFileSync(join(ROOT, "docs/cli.md"), "utf8"));
    const help = flat((await runInProcess(["--help"])).stdout);
    const one = "1 tool error (isError) or a failed --sampling-command";
    expect(help).toContain(one);
    expect(docs).toContain(
      `${one} (it exits non-zero, cannot start, is killed, or prints nothing; what it prints is the text, JSON or not)`,
    );
  });

  it("takes whatever --sampling-command prints as the text, JSON or not", async ({ expect }) => {
    const run = await runInProcess(["call", fixture, "capital", "--sampling-command", "echo '{not json'"]);
    expect(run).toMatchObject({
      code: 0,
      stdout: "The model (roundtrip CLI --sampling-command) said: {not json\n",
    });
  });

  it("offers --root paths when the server lists roots", async ({ expect }) => {
    const run = await runInProcess([
      "call",
      rootsUrl,
      "workspace",
      "--root",
      tmp,
      "--root",
      "file:///srv/data",
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split("\n")).toEqual([tmp.split("/").pop(), "data"]);
  });

  it("shows a URL given consent by --answer in full, never fetches it, and prints it to open", async ({
    expect,
  }) => {
    const run = await runInProcess(["call", fixture, "signin", "--answer", 'signin="accept"']);
    expect(run).toMatchObject({ code: 0, stdout: "Sign-in answer: accept.\n" });
    expect(run.stderr).toContain(`URL:    ${pageUrl}`);
    expect(run.stderr).toContain("Domain: 127.0.0.1");
    expect(run.stderr).toContain(`Open this URL in your browser: ${pageUrl}`);
    expect(pageHits).toBe(0);
  });

  it("never shows or opens a URL that is not http(s): the client refuses it, whatever --answer says", async ({
    expect,
  }) => {
    const run = await runInProcess(["call", scriptUrl, "signin", "--answer", 'signin="accept"']);
    expect(run).toEqual({
      code: 3,
      stdout: "",
      stderr:
        "roundtrip: the server answered error -32602: URL-mode elicitation needs an http or https URL\n",
    });
  });

  it("warns on a Punycode domain and shows how it displays", async ({ expect }) => {
    const run = await runInProcess(["call", punycode, "signin", "--answer", 'signin="decline"']);
    expect(run).toMatchObject({ code: 0, stdout: "Sign-in answer: decline.\n" });
    // Declined: nothing is shown to open.
    expect(run.stderr).toBe("");
    const accepted = await runInProcess(["call", punycode, "signin", "--answer", 'signin="accept"']);
    expect(accepted.stderr).toContain("URL:    https://xn--80ak6aa92e.com/login");
    expect(accepted.stderr).toContain('Domain: xn--80ak6aa92e.com (displays as "аррӏе.com")');
    expect(accepted.stderr).toContain("⚠ The domain contains Punycode (xn--)");
  });

  it("gets a prompt and reads a resource through their input rounds", async ({ expect }) => {
    const prompt = await runInProcess([
      "prompt",
      briefingUrl,
      "briefing",
      "--answer",
      'audience={"audience":"the board"}',
    ]);
    expect(prompt).toMatchObject({ code: 0 });
    expect(prompt.stdout).toBe(
      "Draft a briefing tuned to its audience.\n\n[user]\n  Write a briefing for the board.\n",
    );
    const read = await runInProcess([
      "read",
      reportsUrl,
      "reports://Q3",
      "--answer",
      'currency={"currency":"EUR"}',
    ]);
    expect(read).toMatchObject({ code: 0, stdout: "reports://Q3 (text/plain)\nRevenue Q3: 1.2M EUR\n" });
  });

  it("lists prompts, resources and templates, and discovers the server", async ({ expect }) => {
    const prompts = await runInProcess(["prompts", briefingUrl]);
    expect(prompts.stdout).toBe("briefing\n  Draft a briefing tuned to its audience.\n");
    const resources = await runInProcess(["resources", reportsUrl]);
    expect(resources.code).toBe(0);
    expect(resources.stdout).toContain("reports://index");
    expect(resources.stdout).toContain("Resource templates:\n  reports://{quarter}");
    const discover = await runInProcess(["discover", fixture]);
    expect(discover.code).toBe(0);
    expect(discover.stdout).toContain("Server: Signup desk 1.2.3");
    expect(discover.stdout).toContain("Protocol: 2026-07-28");
  });

  it("exits 3 when a stdio server cannot be started", async ({ expect }) => {
    const run = await runInProcess(["tools", "--", "roundtrip-no-such-command-xyz"]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("ENOENT");
  });
});
