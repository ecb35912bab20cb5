// close() closes the server's stdin as the spec's first shutdown step: what was sent before it
// still reaches the server first, as it would have had close() come a moment later.
import { afterEach, describe, expect, it } from "vitest";
import { StdioClientTransport } from "../../../src/transports/stdio/client.js";
import { collect, killSpawned, trackTransport } from "./helpers.js";

afterEach(killSpawned);

describe("StdioClientTransport.close()", () => {
  it("writes the messages sent before it, then closes stdin", async () => {
    const transport = trackTransport(
      new StdioClientTransport({
        command: process.execPath,
        // Echoes its stdin to stderr and exits at EOF.
        args: ["-e", "process.stdin.pipe(process.stderr)"],
        stderr: "pipe",
        closeTimeoutMs: 2_000,
      }),
    );
    const stderr = collect(transport.stderr);
    await transport.start();
    const sent = [1, 2].map((n) =>
      transport.send({ jsonrpc: "2.0", method: "notifications/x", params: { n } }),
    );
    await transport.close();
    await expect(Promise.all(sent)).resolves.toEqual([undefined, undefined]);
    expect(stderr.text()).toBe(
      '{"jsonrpc":"2.0","method":"notifications/x","params":{"n":1}}\n' +
        '{"jsonrpc":"2.0","method":"notifications/x","params":{"n":2}}\n',
    );
    // It ended at EOF, not at a signal.
    expect(transport.exitStatus).toEqual({ code: 0, signal: null });
  });
});
