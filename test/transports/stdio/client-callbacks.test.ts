// A throwing onerror or onclose must not take the host down: the transport calls them from stream
// events, timers and shutdowns running in the background (after an unexpected exit, a lost
// stdout), where a throw would be the host's uncaught exception or unhandled rejection, and would
// cut short the shutdown it interrupted. onclose's throw goes to onerror, as onmessage's does;
// onerror's is ignored: there is nowhere further to report it.
import { afterEach, describe, expect, it, vi } from "vitest";
import { ConnectionClosedError } from "../../../src/shared/errors.js";
import { StdioClientTransport, StdioServerExitError } from "../../../src/transports/stdio/client.js";
import { killSpawned, REPO_ROOT, STDOUT_CLOSING, trackTransport, until } from "./helpers.js";

afterEach(() => {
  vi.restoreAllMocks();
  killSpawned();
});

/** A transport (not started) running `node args`, closed within 200 ms. */
function nodeTransport(args: string[]): StdioClientTransport {
  return trackTransport(
    new StdioClientTransport({
      command: process.execPath,
      args,
      cwd: REPO_ROOT,
      stderr: "ignore",
      closeTimeoutMs: 200,
    }),
  );
}

/** A started transport running `node args`, its onerror recording each error, then throwing. */
async function throwingOnerror(args: string[]) {
  const transport = nodeTransport(args);
  const errors: string[] = [];
  transport.onerror = (error) => {
    errors.push(error.message);
    throw new Error("onerror failed");
  };
  const closed = new Promise<Error | undefined>((resolve) => {
    transport.onclose = resolve;
  });
  await transport.start();
  return { transport, errors, closed };
}

/** Makes signals to a process group fail with EPERM (the process alone is still signalled). */
function refuseGroupSignals(): void {
  const kill = process.kill.bind(process);
  vi.spyOn(process, "kill").mockImplementation((pid, signal) => {
    if (pid < 0 && signal !== 0) throw Object.assign(new Error("kill EPERM"), { code: "EPERM" });
    return kill(pid, signal);
  });
}

describe("StdioClientTransport with an onerror that throws", () => {
  it("still reports an unexpected exit to onclose", async () => {
    const { transport, errors, closed } = await throwingOnerror(["-e", "process.exit(3)"]);
    expect(await closed).toBeInstanceOf(StdioServerExitError);
    expect(errors).toEqual(["The MCP server process exited unexpectedly (code 3)"]);
    await transport.close();
  });

  it.skipIf(process.platform === "win32")(
    "still shuts down a server that closed its stdout, though signalling its group fails",
    async () => {
      const { transport, errors, closed } = await throwingOnerror(["--import", "tsx", STDOUT_CLOSING]);
      refuseGroupSignals();
      await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      expect(await closed).toBeInstanceOf(ConnectionClosedError);
      await transport.close();
      expect(transport.exitStatus).toEqual({ code: null, signal: "SIGTERM" });
      expect(errors).toEqual([
        "The MCP server closed its stdout while still running",
        "Could not send SIGTERM to the MCP server's process group: kill EPERM",
      ]);
    },
  );

  it.skipIf(process.platform === "win32")(
    "close() resolves though onerror throws at a signal failure",
    async () => {
      const { transport, errors } = await throwingOnerror(["-e", "setInterval(() => {}, 1_000)"]);
      refuseGroupSignals();
      await expect(transport.close()).resolves.toBeUndefined();
      expect(transport.exitStatus).toEqual({ code: null, signal: "SIGTERM" });
      expect(errors).toEqual(["Could not send SIGTERM to the MCP server's process group: kill EPERM"]);
    },
  );
});

describe("StdioClientTransport with an onclose that throws", () => {
  /** A started transport running `node args`; its onclose records the reason, then throws. */
  async function throwingOnclose(args: string[]) {
    const transport = nodeTransport(args);
    const errors: Error[] = [];
    transport.onerror = (error) => errors.push(error);
    const reasons: (Error | undefined)[] = [];
    transport.onclose = (reason) => {
      reasons.push(reason);
      throw new Error("onclose failed");
    };
    await transport.start();
    return { transport, errors, reasons };
  }

  it("reports the throw through onerror at an unexpected exit", async () => {
    const { transport, errors, reasons } = await throwingOnclose(["-e", "process.exit(3)"]);
    await until(() => reasons.length > 0, "onclose");
    expect(reasons[0]).toBeInstanceOf(StdioServerExitError);
    expect(errors.map((error) => error.message)).toEqual([
      "The MCP server process exited unexpectedly (code 3)",
      "onclose failed",
    ]);
    await transport.close();
  });

  it("still shuts down a server that closed its stdout", async () => {
    const { transport, errors, reasons } = await throwingOnclose(["--import", "tsx", STDOUT_CLOSING]);
    await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    // It ignores stdin EOF: the shutdown that follows the lost stdout ends it with SIGTERM.
    await until(() => transport.exitStatus !== undefined, "the server to be shut down");
    await transport.close();
    expect(transport.exitStatus).toEqual({ code: null, signal: "SIGTERM" });
    expect(reasons[0]).toBeInstanceOf(ConnectionClosedError);
    expect(errors.map((error) => error.message)).toEqual([
      "The MCP server closed its stdout while still running",
      "onclose failed",
    ]);
  });
});
