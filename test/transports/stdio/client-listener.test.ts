// A listener that throws must not take the host down: the transport's own 'data' handler calls
// onmessage, so a throw there would be an uncaught exception in the host process, and the lines
// after it in the same chunk would be lost.
import { afterEach, describe, expect, it } from "vitest";
import { StdioClientTransport } from "../../../src/transports/stdio/client.js";
import { killSpawned, trackTransport, until } from "./helpers.js";

afterEach(killSpawned);

describe("StdioClientTransport with an onmessage that throws", () => {
  it("reports the throw through onerror and goes on with the next line of the same chunk", async () => {
    const transport = trackTransport(
      new StdioClientTransport({
        command: process.execPath,
        // Two messages in one write, so they arrive in one chunk.
        args: [
          "-e",
          'process.stdout.write(\'{"jsonrpc":"2.0","method":"a"}\\n{"jsonrpc":"2.0","method":"b"}\\n\'); process.stdin.resume()',
        ],
        stderr: "ignore",
        closeTimeoutMs: 300,
      }),
    );
    const seen: string[] = [];
    const errors: string[] = [];
    transport.onmessage = (message) => {
      seen.push((message as { method: string }).method);
      if (seen.length === 1) throw new Error("listener failed");
    };
    transport.onerror = (error) => errors.push(error.message);
    await transport.start();
    await until(() => seen.length === 2, "both messages");
    expect(seen).toEqual(["a", "b"]);
    expect(errors).toEqual(["listener failed"]);
    await transport.close();
  });
});
