import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { call, ENVELOPE, killSpawned, RawServer, SERVER_INFO, textLine } from "./helpers.js";

afterEach(killSpawned);

const ELICIT = { "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } } };

const ASK_REGION = {
  method: "elicitation/create",
  params: {
    mode: "form",
    message: "Which region?",
    requestedSchema: { type: "object", properties: { region: { type: "string" } } },
  },
};

describe("serveStdio on the wire (real child process)", () => {
  it("answers both legs of a multi-round-trip call with exact lines", async () => {
    const server = new RawServer();
    server.write(call(1, "provision", { name: "orders" }, ELICIT));
    const [first] = await server.waitLines(1);
    expect(first).toBe(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        result: {
          resultType: "input_required",
          inputRequests: { region: ASK_REGION },
          requestState: "provision-v1",
          _meta: SERVER_INFO,
        },
      }),
    );
    server.write({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: {
        name: "provision",
        arguments: { name: "orders" },
        inputResponses: { region: { action: "accept", content: { region: "eu-west-1" } } },
        requestState: "provision-v1",
        _meta: { ...ENVELOPE, ...ELICIT },
      },
    });
    const lines = await server.waitLines(2);
    expect(lines[1]).toBe(textLine(2, "Provisioned 'orders' in eu-west-1."));
    expect(server.partial).toBe("");
  });

  it("runs requests concurrently and answers each by its id", async () => {
    const server = new RawServer();
    server.write(call("slow", "sleep", { ms: 400 }));
    server.write(call("fast", "sleep", { ms: 1 }));
    expect(await server.waitLines(2)).toEqual([textLine("fast", "slept 1"), textLine("slow", "slept 400")]);
  });

  it("writes a request's progress notifications as lines before its response", async () => {
    const server = new RawServer();
    server.write(call(5, "progress", {}, { progressToken: "tok" }));
    const lines = await server.waitLines(4);
    const progress = (step: number) =>
      JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "tok", progress: step, total: 3, message: `step ${step}` },
      });
    expect(lines).toEqual([progress(1), progress(2), progress(3), textLine(5, "done")]);
  });

  it("answers a line that is not JSON with -32700 and id null, tolerates CRLF, and keeps serving", async () => {
    const server = new RawServer();
    server.write("this is {not json\n");
    server.write(`${JSON.stringify(call(2, "sleep", { ms: 1 }))}\r\n`);
    server.write("\n   \n"); // blank lines are framing noise, not messages
    server.write(`${JSON.stringify(call(3, "sleep", { ms: 2 }))}`); // no newline yet: not a message
    const lines = await server.waitLines(2);
    expect(lines).toEqual([
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
      textLine(2, "slept 1"),
    ]);
    server.write("\n");
    expect((await server.waitLines(3))[2]).toBe(textLine(3, "slept 2"));
    expect(server.stderr).toContain("with -32700");
  });

  it("answers malformed JSON-RPC with -32600 (from the dispatcher) and ignores responses and other notifications", async () => {
    const server = new RawServer();
    server.write('[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]\n');
    server.write({ jsonrpc: "2.0", id: 41, result: {} });
    server.write({ jsonrpc: "2.0", id: 42, error: { code: -1, message: "x" } });
    server.write({ jsonrpc: "2.0", method: "notifications/initialized" });
    server.write({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 999 } });
    server.write(call(7, "sleep", { ms: 1 }));
    expect(await server.waitLines(2)).toEqual([
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}',
      textLine(7, "slept 1"),
    ]);
  });

  it("drops an over-long line with -32600 (naming its id) and keeps the stream usable", async () => {
    const server = new RawServer({ FIXTURE_MAX_LINE_BYTES: "1024" });
    const huge = call(1, "sleep", { ms: 1, pad: "x".repeat(5000) });
    const text = JSON.stringify(huge);
    // Sent in pieces so the bound is enforced while streaming, not only on whole chunks.
    server.write(text.slice(0, 700));
    server.write(text.slice(700, 3000));
    server.write(`${text.slice(3000)}\n`);
    server.write(call(2, "sleep", { ms: 1 }));
    expect(await server.waitLines(2)).toEqual([
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Message too large","data":{"maxLineBytes":1024}}}',
      textLine(2, "slept 1"),
    ]);
    expect(server.stderr).toContain("longer than 1024 bytes");
  });

  it("aborts a request on notifications/cancelled and writes nothing more for it", async () => {
    const server = new RawServer();
    server.write(call(9, "slow"));
    await server.waitStderr("started 9");
    server.write({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 9, reason: "user pressed stop" },
    });
    await server.waitStderr("aborted 9");
    server.write(call(10, "sleep", { ms: 1 }));
    server.end();
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.lines).toEqual([textLine(10, "slept 1")]);
  });

  it("exits on EOF after in-flight requests finish", async () => {
    const server = new RawServer();
    server.write(call(1, "sleep", { ms: 300 }));
    server.write(call(2, "sleep", { ms: 50 }));
    server.end();
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.lines).toEqual([textLine(2, "slept 50"), textLine(1, "slept 300")]);
    expect(server.stderr).toContain("closed");
  });

  it("aborts requests still running drainTimeoutMs after EOF, sends nothing for them, and exits", async () => {
    const server = new RawServer({ FIXTURE_DRAIN_MS: "300" });
    server.write(call(1, "slow"));
    await server.waitStderr("started 1");
    const endedAt = Date.now();
    server.end();
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - endedAt).toBeGreaterThanOrEqual(250);
    expect(Date.now() - endedAt).toBeLessThan(3_000);
    expect(server.stderr).toContain("aborted 1");
    expect(server.stderr).toContain("aborting 1 request(s) still running 300 ms after end of input");
    expect(server.lines).toEqual([]);
  });

  it("writes only JSON-RPC to stdout while the server logs (logs go to stderr)", async () => {
    const server = new RawServer();
    server.write(call(4, "noisy", {}, { "io.modelcontextprotocol/logLevel": "info" }));
    server.write("garbage\n");
    server.end();
    await server.exited;
    expect(server.stderr).toContain("noisy tool is about to answer");
    expect(server.stderr).toContain("console.error goes to stderr");
    for (const line of server.lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
    expect(server.lines.filter((line) => line.includes('"id":4'))).toEqual([textLine(4, "noisy done")]);
    const logIndex = server.lines.findIndex((line) => line.includes("notifications/message"));
    expect(server.lines[logIndex]).toBe(
      JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "info", data: { step: "noisy" }, logger: "fixture" },
      }),
    );
    expect(logIndex).toBeLessThan(server.lines.indexOf(textLine(4, "noisy done")));
    expect(server.partial).toBe("");
  });

  it("does not crash when the client stops reading stdout (EPIPE): it logs to stderr and exits cleanly", async () => {
    const server = new RawServer();
    await server.waitStderr("ready");
    server.child.stdout.destroy();
    server.write(call(1, "progress", {}, { progressToken: "t" }));
    server.write(call(2, "sleep", { ms: 1 }));
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.stderr).toMatch(/stdout failed \(.*EPIPE.*\); stopping/);
    expect(server.stderr).toContain("closed");
  });

  it("answers a Dispatcher that throws synchronously with -32603, as one that rejects, and keeps serving", async () => {
    const script = fileURLToPath(new URL("../../fixtures/stdio/sync-throw-server.ts", import.meta.url));
    const server = new RawServer({}, script);
    server.write({ jsonrpc: "2.0", id: 1, method: "boom" });
    server.write({ jsonrpc: "2.0", id: 2, method: "fine" });
    expect(await server.waitLines(2)).toEqual([
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}',
      '{"jsonrpc":"2.0","id":2,"result":{}}',
    ]);
    expect(server.stderr).toContain("dispatch failed: thrown before any promise");
    server.end();
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });
});
