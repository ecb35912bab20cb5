// A throwing onerror must not take the host down: the transport calls it from stream events,
// timers and shutdowns running in the background (after an unexpected exit, a lost stdout), where
// a throw would be the host's uncaught exception or unhandled rejection, and would cut short the
// shutdown it interrupted. Its throw is ignored: there is nowhere further to report it.
import { afterEach, describe, expect, it, vi } from "vitest";
import { ConnectionClosedError } from "../../../src/shared/errors.js";
import { StdioClientTransport, StdioServerExitError } from "../../../src/transports/stdio/client.js";
import { killSpawned, REPO_ROOT, STDOUT_CLOSING, trackTransport } from "./helpers.js";

afterEach(() => {
  vi.restoreAllMocks();
  killSpawned();
});

/** A started transport running `node -e script`, its onerror recording each error, then throwing. */
async function throwingOnerror(args: string[]) {
  const transport = trackTransport(
    new StdioClientTransport({
      command: process.execPath,
      args,
      cwd: REPO_ROOT,
      stderr: "ignore",
      closeTimeoutMs: 200,
    }),
  );
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
