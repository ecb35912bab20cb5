// serveStdio calls its logger from stdin's events, timers and settled requests: a logger that
// throws must not end the server process (an uncaught exception, or an unhandled rejection) nor
// keep the answer it was reporting from the client. Its throw is ignored.
import { PassThrough, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { Dispatcher } from "../../../src/shared/dispatch.js";
import { serveStdio } from "../../../src/transports/stdio/server.js";

const throwingLogger = () => {
  const seen: string[] = [];
  const log = (message: string) => {
    seen.push(message);
    throw new Error("logger failed");
  };
  return { seen, logger: { warn: log, error: log } };
};

/** A stdout recording each line written. */
function recordingStdout() {
  const lines: unknown[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString("utf8").split("\n")) if (line) lines.push(JSON.parse(line));
      callback();
    },
  });
  return { stream, lines };
}

describe("serveStdio with a logger that throws", () => {
  it("still answers an over-long line, a line that is not JSON and a failed dispatch, and closes", async () => {
    const stdin = new PassThrough();
    const stdout = recordingStdout();
    const { seen, logger } = throwingLogger();
    const dispatcher: Dispatcher = { dispatch: () => Promise.reject(new Error("boom")) };
    const handle = serveStdio(dispatcher, { stdin, stdout: stdout.stream, logger, maxLineBytes: 64 });
    stdin.write(`{"jsonrpc":"2.0","id":1,"method":"x","params":{"pad":"${"x".repeat(100)}"}}\n`);
    stdin.write("not json\n");
    stdin.write('{"jsonrpc":"2.0","id":2,"method":"x"}\n');
    stdin.end();
    await handle.closed;
    expect(stdout.lines).toEqual([
      {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32600, message: "Message too large", data: { maxLineBytes: 64 } },
      },
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } },
      { jsonrpc: "2.0", id: 2, error: { code: -32603, message: "Internal error" } },
    ]);
    expect(seen).toEqual([
      "dropped an incoming line longer than 64 bytes",
      "answered a line that is not JSON (8 characters) with -32700",
      "dispatch failed: boom",
    ]);
  });

  it("still stops and closes when stdout breaks", async () => {
    const stdin = new PassThrough();
    const stdout = new Writable({
      write(_chunk, _encoding, callback) {
        callback(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
      },
    });
    const { seen, logger } = throwingLogger();
    const dispatcher: Dispatcher = { dispatch: async () => ({ jsonrpc: "2.0", id: 1, result: {} }) };
    const handle = serveStdio(dispatcher, { stdin, stdout, logger });
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"x"}\n');
    await handle.closed;
    expect(seen).toEqual(["stdout failed (write EPIPE); stopping"]);
  });
});
