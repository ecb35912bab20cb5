// A line past maxLineBytes is dropped as it streams in, but the request it answered or asked is
// still waiting on the other side: when the line's head names its id, the waiting side is told at
// once, rather than at its timeout (60 s by default). Real child processes on both ends.
import { afterEach, describe, expect, it } from "vitest";
import { ClientSession } from "../../../src/client/session.js";
import { JsonRpcConnection } from "../../../src/shared/connection.js";
import { StdioClientTransport } from "../../../src/transports/stdio/client.js";
import { DROPPED_HEAD_BYTES, droppedId } from "../../../src/transports/stdio/dropped.js";
import { McpError } from "../../../src/types/core.js";
import { call, killSpawned, provisionerTransport, RawServer, trackTransport } from "./helpers.js";

afterEach(killSpawned);

/** A server answering each request line with a result of `pad` bytes, its id written before it. */
const PADDED_ANSWERS = `
const readline = require("node:readline");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const { id } = JSON.parse(line);
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result: { pad: "x".repeat(Number(process.env.PAD)) } }) + "\\n");
});`;

describe("an over-long line whose head names a request", () => {
  it("fails the client's pending request at once when its response was too long", async () => {
    const transport = trackTransport(
      new StdioClientTransport({
        command: process.execPath,
        args: ["-e", PADDED_ANSWERS],
        env: { PAD: "5000" },
        stderr: "ignore",
        maxLineBytes: 1024,
        closeTimeoutMs: 300,
      }),
    );
    const connection = new JsonRpcConnection(transport);
    const errors: string[] = [];
    connection.onError = (error) => errors.push(error.message);
    await connection.start();
    const startedAt = Date.now();
    const outcome = await connection
      .request("x/big", {}, { timeoutMs: 30_000 })
      .catch((error: unknown) => error);
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect(outcome).toBeInstanceOf(McpError);
    expect(outcome).toMatchObject({
      code: -32603,
      message: "The response was longer than maxLineBytes (1024 bytes) and was dropped",
    });
    expect(errors).toEqual(["Dropped a line from the server longer than maxLineBytes (1024 bytes)"]);
    await connection.close();
  });

  it("answers a server's over-long request -32600 with its id, so the server stops waiting", async () => {
    // A 2025 server asking its client something too long; it prints what comes back.
    const ASKS = `
const readline = require("node:readline");
process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: "srv-9", method: "elicitation/create", params: { message: "x".repeat(5000) } }) + "\\n");
readline.createInterface({ input: process.stdin }).on("line", (line) => process.stderr.write(line + "\\n"));`;
    const transport = trackTransport(
      new StdioClientTransport({
        command: process.execPath,
        args: ["-e", ASKS],
        stderr: "pipe",
        maxLineBytes: 1024,
        closeTimeoutMs: 300,
      }),
    );
    let answered = "";
    transport.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      answered += chunk;
    });
    transport.onerror = () => {};
    await transport.start();
    const deadline = Date.now() + 5_000;
    while (!answered.includes("\n") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(JSON.parse(answered.trim())).toEqual({
      jsonrpc: "2.0",
      id: "srv-9",
      error: { code: -32600, message: "Message too large", data: { maxLineBytes: 1024 } },
    });
    await transport.close();
  });

  it("answers the server's -32600 with the request's id, so the client's call fails at once", async () => {
    const server = new RawServer({ FIXTURE_MAX_LINE_BYTES: "1024" });
    server.write(call(7, "sleep", { ms: 1, pad: "x".repeat(5000) }));
    expect(await server.waitLines(1)).toEqual([
      '{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Message too large","data":{"maxLineBytes":1024}}}',
    ]);
    server.end();
  });

  it("does so through a ClientSession end to end", async () => {
    const session = await ClientSession.connect(
      provisionerTransport({ env: { FIXTURE_MAX_LINE_BYTES: "1024" }, closeTimeoutMs: 300 }),
    );
    const outcome = await session
      .callTool("sleep", { ms: 1, pad: "x".repeat(5000) }, { timeoutMs: 30_000 })
      .catch((error: unknown) => error);
    expect(outcome).toMatchObject({ code: -32600, message: "Message too large" });
    await session.close();
  });
});

describe("droppedId", () => {
  const head = (text: string) => text.slice(0, 60);
  const pad = "x".repeat(100);

  it("reads a request's id when the head shows its method, and a response's when it stopped at the result", () => {
    expect(droppedId(head(JSON.stringify(call(7, "t", { pad }))), "request")).toBe(7);
    expect(droppedId(head(`{"jsonrpc":"2.0","id":"a\\"b","result":{"p":"${pad}"}}`), "response")).toBe('a"b');
    expect(
      droppedId(head(` { "jsonrpc" : "2.0" , "id" : -3 , "error" : {"message":"${pad}"}}`), "response"),
    ).toBe(-3);
  });

  it("says nothing when the head does not tell which request it was", () => {
    // The id after the long value (as some serializers order members).
    expect(
      droppedId(head(`{"method":"tools/call","params":{"p":"${pad}"},"id":1}`), "request"),
    ).toBeUndefined();
    expect(
      droppedId(head(`{"jsonrpc":"2.0","result":{"id":1,"p":"${pad}"},"id":2}`), "response"),
    ).toBeUndefined();
    // A request is no response (its id is the server's, not ours), a notification has no id.
    expect(
      droppedId(head(`{"jsonrpc":"2.0","id":1,"method":"m","params":{"p":"${pad}"}}`), "response"),
    ).toBeUndefined();
    expect(
      droppedId(head(`{"jsonrpc":"2.0","method":"m","params":{"p":"${pad}"}}`), "request"),
    ).toBeUndefined();
    // An id that is none, a long string value, no object at all.
    expect(droppedId(head(`{"jsonrpc":"2.0","id":1.5,"result":{"p":"${pad}"}}`), "response")).toBeUndefined();
    expect(droppedId(head(`{"jsonrpc":"2.0","id":1,"result":"${pad}"}`), "response")).toBeUndefined();
    expect(droppedId(`["${pad}"]`, "request")).toBeUndefined();
    expect(DROPPED_HEAD_BYTES).toBeGreaterThanOrEqual(256);
  });
});
