// With stderr: "pipe", the server's stderr is the transport's to listen on: an 'error' on it (EIO,
// say) goes to onerror, as stdout's does, rather than being the host's uncaught exception.
import type { Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { StdioClientTransport } from "../../../src/transports/stdio/client.js";
import { killSpawned, trackTransport, until } from "./helpers.js";

afterEach(killSpawned);

describe("StdioClientTransport with stderr: 'pipe'", () => {
  it("reports an error on the server's stderr through onerror", async () => {
    const transport = trackTransport(
      new StdioClientTransport({
        command: process.execPath,
        args: ["-e", "process.stdin.resume()"],
        stderr: "pipe",
        closeTimeoutMs: 300,
      }),
    );
    // The child's stderr is piped into transport.stderr, which names its source.
    let source: Readable | undefined;
    transport.stderr?.once("pipe", (from: Readable) => {
      source = from;
    });
    const errors: string[] = [];
    transport.onerror = (error) => errors.push(error.message);
    await transport.start();
    source?.destroy(new Error("read EIO"));
    await until(() => errors.length > 0, "the error to be reported");
    expect(errors).toEqual(["read EIO"]);
    await transport.close();
  });
});
