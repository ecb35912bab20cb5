// serveStdio and the line framing against in-process streams: the cases a real pipe cannot
// produce on demand (a full stdout, EPIPE, a character torn across chunks).
import { PassThrough, Writable } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import { LegacyService } from "../../../src/server/legacy/service.js";
import type { LegacySession } from "../../../src/server/legacy/session.js";
import { silentLogger } from "../../../src/server/logger.js";
import { Server } from "../../../src/server/server.js";
import type { DispatchContext, Dispatcher } from "../../../src/shared/dispatch.js";
import { LineSplitter, LineWriter, StreamClosedError } from "../../../src/transports/stdio/lines.js";
import { serveStdio } from "../../../src/transports/stdio/server.js";
import type { JSONRPCResponse } from "../../../src/types/index.js";
import { recordingLogger } from "../../helpers.js";
import { until } from "./helpers.js";

/** A dispatcher whose behaviour per request is given by the test. */
function dispatcher(
  handle: (message: Record<string, unknown>, ctx: DispatchContext) => Promise<JSONRPCResponse | undefined>,
): Dispatcher {
  return { dispatch: (message, ctx = {}) => handle(message as Record<string, unknown>, ctx) };
}

/** A stdout that holds every write until `release()`, with a tiny buffer so backpressure kicks in. */
function heldStdout() {
  const lines: string[] = [];
  const held: (() => void)[] = [];
  const stream = new Writable({
    highWaterMark: 8,
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString("utf8"));
      held.push(() => callback());
    },
  });
  return {
    stream,
    lines,
    release() {
      for (const done of held.splice(0)) done();
    },
  };
}

const progress = (n: number) => ({
  jsonrpc: "2.0" as const,
  method: "notifications/progress",
  params: { progressToken: "t", progress: n },
});

describe("LineSplitter", () => {
  it("reassembles a UTF-8 character torn across chunks and strips CR", () => {
    const seen: string[] = [];
    const lines = new LineSplitter(
      1024,
      (line) => seen.push(line),
      () => seen.push("overflow"),
    );
    const bytes = Buffer.from('{"a":"é"}\r\n{"b":1}', "utf8");
    const split = bytes.indexOf(0xa9); // second byte of é
    lines.push(bytes.subarray(0, split));
    lines.push(bytes.subarray(split));
    lines.end();
    expect(seen).toEqual(['{"a":"é"}', '{"b":1}']);
  });

  it("counts bytes, reports an over-long line once, and resumes at the next newline", () => {
    const seen: string[] = [];
    const lines = new LineSplitter(
      4,
      (line) => seen.push(line),
      () => seen.push("overflow"),
    );
    lines.push("abcd\nabc");
    lines.push("de");
    lines.push("fgh\nxy\n");
    lines.push("ééé"); // 6 bytes, 3 characters
    lines.end();
    expect(seen).toEqual(["abcd", "overflow", "xy", "overflow"]);
  });

  it("does not count a CRLF's carriage return against the limit, wherever the chunks split it", () => {
    const seen: string[] = [];
    const lines = new LineSplitter(
      8,
      (line) => seen.push(line),
      () => seen.push("overflow"),
    );
    lines.push("12345678\r\n");
    lines.push("abcdefgh\r");
    lines.push("\n");
    lines.push("ABCDEFGH");
    lines.push("\r\n");
    lines.push("123456789\r\n"); // nine bytes of content
    lines.push("123456789\n");
    lines.push("abcdefgh\r");
    lines.push("i\n"); // the \r was content after all: ten bytes
    lines.push("last5678\r");
    lines.end();
    expect(seen).toEqual([
      "12345678",
      "abcdefgh",
      "ABCDEFGH",
      "overflow",
      "overflow",
      "overflow",
      "last5678",
    ]);
  });
});

describe("LineWriter", () => {
  it("rejects a line still waiting for drain when the stream is destroyed: it was never taken", async () => {
    const stuck = new Writable({ highWaterMark: 1, write: () => {} });
    const writer = new LineWriter(stuck);
    const pending = writer.write({ jsonrpc: "2.0", method: "notifications/x" });
    await until(() => stuck.writableLength > 0, "the line to be handed to the stream");
    stuck.destroy();
    await expect(pending).rejects.toEqual(new StreamClosedError("The output stream is closed"));
  });

  it("counts the bytes of lines the reader has not taken yet, down to 0 once it took them", async () => {
    const stdout = heldStdout();
    const writer = new LineWriter(stdout.stream);
    const first = writer.write({ n: 1 }); // '{"n":1}\n': 8 bytes
    const second = writer.write({ n: "é" }); // '{"n":"é"}\n': 11 bytes (é is 2)
    expect(writer.queuedBytes).toBe(19);
    await until(() => stdout.lines.length === 1, "the first line to be handed over");
    stdout.release();
    await first;
    await until(() => stdout.lines.length === 2, "the second line to be handed over");
    expect(writer.queuedBytes).toBe(11);
    stdout.release();
    await second;
    expect(writer.queuedBytes).toBe(0);
  });
});

describe("serveStdio with in-process streams", () => {
  it("waits for drain before accepting more output when stdout is full", async () => {
    const stdin = new PassThrough();
    const stdout = heldStdout();
    const marks: string[] = [];
    const handle = serveStdio(
      dispatcher(async (message, ctx) => {
        await ctx.notify?.(progress(1));
        marks.push("first accepted");
        await ctx.notify?.(progress(2));
        marks.push("second accepted");
        return { jsonrpc: "2.0", id: message.id as number, result: {} };
      }),
      { stdin, stdout: stdout.stream, logger: recordingLogger() },
    );
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"x"}\n');
    await until(() => stdout.lines.length === 1, "the first write");
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(marks).toEqual([]);
    stdout.release();
    await until(() => marks.length === 1, "the first notify to resolve after drain");
    stdout.release();
    await until(() => stdout.lines.length === 3, "the response");
    stdout.release();
    expect(stdout.lines.map((line) => JSON.parse(line))).toEqual([
      progress(1),
      progress(2),
      { jsonrpc: "2.0", id: 1, result: {} },
    ]);
    stdin.end();
    await handle.closed;
  });

  it("stops reading stdin while more than maxLineBytes of output wait for a client that does not read", async () => {
    const stdin = new PassThrough();
    const stdout = heldStdout();
    let dispatched = 0;
    const handle = serveStdio(
      dispatcher(async (message) => {
        dispatched++;
        return { jsonrpc: "2.0", id: message.id as number, result: { pad: "x".repeat(1000) } };
      }),
      { stdin, stdout: stdout.stream, logger: recordingLogger(), maxLineBytes: 4096 },
    );
    for (let id = 1; id <= 100; id++) {
      stdin.write(`{"jsonrpc":"2.0","id":${id},"method":"x"}\n`);
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Each response line is about 1,045 bytes: after the 5th request, four (4,180 > 4,096) wait, so reading stops.
    expect(dispatched).toBe(5);
    expect(stdout.lines).toHaveLength(1);
    while (stdout.lines.length < 100) {
      stdout.release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(dispatched).toBe(100);
    expect(stdout.lines.map((line) => JSON.parse(line).id)).toEqual(
      Array.from({ length: 100 }, (_, i) => i + 1),
    );
    stdin.end();
    stdout.release();
    await handle.closed;
  });

  it("survives EPIPE on stdout: logs to the logger, aborts in-flight requests and closes", async () => {
    const stdin = new PassThrough();
    const stdout = new Writable({
      write(_chunk, _encoding, callback) {
        callback(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
      },
    });
    const logger = recordingLogger();
    let seenSignal: AbortSignal | undefined;
    const handle = serveStdio(
      dispatcher(async (message, ctx) => {
        if (message.id === 2) {
          seenSignal = ctx.signal;
          await new Promise((resolve) => ctx.signal?.addEventListener("abort", resolve));
          return undefined;
        }
        return { jsonrpc: "2.0", id: message.id as number, result: {} };
      }),
      { stdin, stdout, logger },
    );
    stdin.write('{"jsonrpc":"2.0","id":2,"method":"slow"}\n');
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"x"}\n');
    await handle.closed;
    expect(seenSignal?.aborted).toBe(true);
    expect(logger.lines).toEqual(["error: stdout failed (write EPIPE); stopping"]);
    stdin.write("not json\n"); // no longer read: nothing is written, nothing throws
  });

  it("close() aborts in-flight requests, sends nothing for them and resolves closed", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const written: string[] = [];
    stdout.on("data", (chunk: Buffer) => written.push(chunk.toString("utf8")));
    const signals: AbortSignal[] = [];
    const handle = serveStdio(
      dispatcher(async (message, ctx) => {
        if (ctx.signal) signals.push(ctx.signal);
        await new Promise((resolve) => ctx.signal?.addEventListener("abort", resolve));
        return { jsonrpc: "2.0", id: message.id as number, result: {} }; // a misbehaving dispatcher
      }),
      { stdin, stdout, logger: recordingLogger() },
    );
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"x"}\n');
    await until(() => signals.length === 1, "the request to start");
    handle.close();
    await handle.closed;
    expect(signals[0]?.aborted).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual([]);
  });

  it("keeps an error on stdin after the end (a socket reset, say) from being uncaught", async () => {
    const stdin = new PassThrough();
    const logger = recordingLogger();
    const handle = serveStdio(
      dispatcher(async () => undefined),
      { stdin, stdout: new PassThrough(), logger },
    );
    handle.close();
    await handle.closed;
    stdin.destroy(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }));
    await new Promise((resolve) => stdin.once("close", resolve));
    expect(logger.lines).toEqual([]);
  });

  it("answers -32603 when the dispatcher throws or its response cannot be serialized; cancels by exact id type", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const written: string[] = [];
    stdout.on("data", (chunk: Buffer) => written.push(chunk.toString("utf8")));
    const logger = recordingLogger();
    const aborted: unknown[] = [];
    const handle = serveStdio(
      dispatcher(async (message, ctx) => {
        if (message.method === "boom") throw new Error("kaput");
        if (message.method === "bigint") return { jsonrpc: "2.0", id: "n", result: { n: 1n } };
        await new Promise((resolve) => ctx.signal?.addEventListener("abort", resolve));
        aborted.push(message.id);
        return undefined;
      }),
      { stdin, stdout, logger, drainTimeoutMs: 50 },
    );
    stdin.write('{"jsonrpc":"2.0","id":"7","method":"wait"}\n{"jsonrpc":"2.0","id":7,"method":"wait"}\n');
    stdin.write('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}\n');
    stdin.write('{"jsonrpc":"2.0","id":"b","method":"boom"}\n');
    stdin.write('{"jsonrpc":"2.0","id":"n","method":"bigint"}\n');
    await until(() => written.length === 2 && aborted.length === 1, "the errors and the cancellation");
    expect(aborted).toEqual([7]);
    expect(written).toEqual([
      '{"jsonrpc":"2.0","id":"b","error":{"code":-32603,"message":"Internal error"}}\n',
      '{"jsonrpc":"2.0","id":"n","error":{"code":-32603,"message":"Internal error"}}\n',
    ]);
    expect(logger.lines).toContain("error: dispatch failed: kaput");
    expect(logger.lines.some((line) => line.startsWith("error: could not serialize a response"))).toBe(true);
    stdin.end();
    await handle.closed;
    expect(aborted).toEqual([7, "7"]);
  });
});

describe("a 2025 session over stdio", () => {
  it("ends with the input: once closed resolves the server holds nothing of it", async () => {
    const server = new Server("legacy-pipe", { logger: silentLogger });
    const opened = vi.spyOn(LegacyService.prototype, "openSession");
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    stdout.resume();
    const handle = serveStdio(server, { stdin, stdout, logger: recordingLogger() });
    const initialize = {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "c", version: "1" },
    };
    stdin.end(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: initialize })}\n`);
    await handle.closed;
    expect(opened.mock.results.map((result) => (result.value as LegacySession).closed)).toEqual([true]);
    opened.mockRestore();
  });
});

describe("end of input with a drainTimeoutMs longer than a timer can wait", () => {
  it("lets the request in flight finish and answer (a month is not 1 ms)", async () => {
    const stdin = new PassThrough();
    const written: string[] = [];
    const stdout = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        written.push(chunk.toString("utf8"));
        callback();
      },
    });
    const handle = serveStdio(
      dispatcher(async (message) => {
        await new Promise((resolve) => setTimeout(resolve, 40));
        return { jsonrpc: "2.0", id: message.id as number, result: { done: true } };
      }),
      { stdin, stdout, logger: recordingLogger(), drainTimeoutMs: 30 * 24 * 3_600_000 },
    );
    stdin.end('{"jsonrpc":"2.0","id":1,"method":"slow"}\n');
    await handle.closed;
    expect(written).toEqual(['{"jsonrpc":"2.0","id":1,"result":{"done":true}}\n']);
  });

  it("close() waits for stdout to take what was written before it counts as closed", async () => {
    const stdin = new PassThrough();
    const stdout = heldStdout();
    const handle = serveStdio(
      dispatcher(async (message) => ({ jsonrpc: "2.0", id: message.id as number, result: {} })),
      { stdin, stdout: stdout.stream, logger: recordingLogger(), drainTimeoutMs: 30 * 24 * 3_600_000 },
    );
    let closed = false;
    void handle.closed.then(() => {
      closed = true;
    });
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"quick"}\n');
    await until(() => stdout.lines.length === 1, "the answer to be written");
    handle.close();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(closed).toBe(false);
    stdout.release();
    await handle.closed;
  });
});

describe("subscriptions/listen over stdio", () => {
  it("streams tagged notifications and ends the listen stream at once when input ends", async () => {
    const { Server } = await import("../../../src/server/server.js");
    const { silentLogger } = await import("../../../src/server/logger.js");
    const server = new Server("live", {
      logger: silentLogger,
      listChanged: true,
      onListTools: () => ({ tools: [] }),
    });
    const stdin = new PassThrough();
    const out: string[] = [];
    const stdout = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        out.push(...chunk.toString("utf8").split("\n").filter(Boolean));
        callback();
      },
    });
    const handle = serveStdio(server, { stdin, stdout, logger: recordingLogger(), drainTimeoutMs: 10_000 });
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 5, method: "subscriptions/listen", params: { _meta: meta, notifications: { toolsListChanged: true } } })}\n`,
    );
    await until(() => out.length === 1, "the ack");
    server.notifyToolsListChanged();
    await until(() => out.length === 2, "the change");
    const tag = { "io.modelcontextprotocol/subscriptionId": 5 };
    expect(out.map((line) => JSON.parse(line))).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { _meta: tag, notifications: { toolsListChanged: true } },
      },
      { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: tag } },
    ]);
    const started = Date.now();
    stdin.end();
    await handle.closed;
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
