// The stdio transports' numeric options. A `Number(process.env.X)` left unset is NaN, which every
// comparison and timer takes silently: NaN as a line bound lifts it (and the server's backpressure
// with it), NaN or Infinity as a wait becomes 1 ms. As `maxBodyBytes` over HTTP, they are refused.
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { StdioClientTransport } from "../../../src/transports/stdio/client.js";
import { serveStdio } from "../../../src/transports/stdio/server.js";
import { killSpawned, trackTransport } from "./helpers.js";

afterEach(killSpawned);

const dispatcher = { dispatch: async () => undefined };
const streams = () => ({ stdin: new PassThrough(), stdout: new PassThrough() });

describe("serveStdio's numeric options", () => {
  it.each([Number.NaN, 0, -1, 1.5, Number.POSITIVE_INFINITY])("refuses maxLineBytes %s", (maxLineBytes) => {
    expect(() => serveStdio(dispatcher, { ...streams(), maxLineBytes })).toThrow(
      new RangeError(`maxLineBytes must be a positive integer, got ${maxLineBytes}`),
    );
  });

  it.each([Number.NaN, -1])("refuses drainTimeoutMs %s", (drainTimeoutMs) => {
    expect(() => serveStdio(dispatcher, { ...streams(), drainTimeoutMs })).toThrow(
      new RangeError(`drainTimeoutMs must be a non-negative number of milliseconds, got ${drainTimeoutMs}`),
    );
  });

  it("takes the bounds that make sense, and leaves the streams untouched when it refuses", () => {
    const io = streams();
    expect(() => serveStdio(dispatcher, { ...io, maxLineBytes: Number.NaN })).toThrow(RangeError);
    expect(io.stdin.listenerCount("data")).toBe(0);
    const handle = serveStdio(dispatcher, { ...io, maxLineBytes: 1, drainTimeoutMs: 0 });
    handle.close();
    serveStdio(dispatcher, { ...streams(), drainTimeoutMs: Number.POSITIVE_INFINITY }).close();
  });
});

describe("StdioClientTransport's numeric options", () => {
  const client = (options: { maxLineBytes?: number; closeTimeoutMs?: number }) =>
    new StdioClientTransport({ command: process.execPath, ...options });

  it.each([Number.NaN, 0, -1, 1.5, Number.POSITIVE_INFINITY])("refuses maxLineBytes %s", (maxLineBytes) => {
    expect(() => client({ maxLineBytes })).toThrow(
      new RangeError(`maxLineBytes must be a positive integer, got ${maxLineBytes}`),
    );
  });

  it.each([Number.NaN, -1])("refuses closeTimeoutMs %s", (closeTimeoutMs) => {
    expect(() => client({ closeTimeoutMs })).toThrow(
      new RangeError(`closeTimeoutMs must be a non-negative number of milliseconds, got ${closeTimeoutMs}`),
    );
  });

  it("takes the bounds that make sense", () => {
    client({ maxLineBytes: 1, closeTimeoutMs: 0 });
  });

  it("waits for the exit at EOF with closeTimeoutMs Infinity rather than signalling after 1 ms", async () => {
    const transport = trackTransport(
      new StdioClientTransport({
        command: process.execPath,
        args: ["-e", "process.stdin.resume().on('end', () => setTimeout(() => process.exit(0), 200))"],
        stderr: "ignore",
        closeTimeoutMs: Number.POSITIVE_INFINITY,
      }),
    );
    await transport.start();
    await transport.close();
    expect(transport.exitStatus).toEqual({ code: 0, signal: null });
  });
});
