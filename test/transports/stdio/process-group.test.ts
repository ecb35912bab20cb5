import type { ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RoundtripError } from "../../../src/shared/errors.js";
import { StdioClientTransport, StdioServerExitError } from "../../../src/transports/stdio/client.js";
import { signalServer } from "../../../src/transports/stdio/shutdown.js";
import { collect, killSpawned, running, track, trackTransport, until } from "./helpers.js";

afterEach(killSpawned);

/**
 * The real server behind a wrapper: it inherits the wrapper's stdio, prints its pid once its
 * handlers are set, and then runs until a signal ends it, unless GRANDCHILD_MODE says otherwise
 * ("eof": exits at stdin EOF; "ignore-term": also ignores SIGTERM).
 */
const GRANDCHILD_JS = `
const mode = process.env.GRANDCHILD_MODE;
const say = (text) => process.stderr.write(text + "\\n");
if (mode === "ignore-term") process.on("SIGTERM", () => say("grandchild ignoring SIGTERM"));
process.stdin.on("data", () => {});
process.stdin.on("end", () => { if (mode === "eof") process.exit(0); });
setInterval(() => {}, 1_000);
say("GRANDCHILD " + process.pid);
`;

/**
 * `sh` waits for the grandchild (`; exit` keeps it from exec'ing it), so it outlives stdin EOF as
 * long as the grandchild does.
 */
const FOREGROUND = '"$NODE" -e "$GRANDCHILD_JS"; exit $?';
/** `sh` exits at stdin EOF; the grandchild, started in the background, keeps our stdout and stderr. */
const BACKGROUND = '"$NODE" -e "$GRANDCHILD_JS" & read -r _; exit 0';

/** A started transport running `sh -c script`, its grandchild in `mode`; both pids tracked for cleanup. */
async function wrapped(script: string, mode: "stay" | "eof" | "ignore-term", closeTimeoutMs = 200) {
  const transport = trackTransport(
    new StdioClientTransport({
      command: "sh",
      args: ["-c", script],
      env: { NODE: process.execPath, GRANDCHILD_JS, GRANDCHILD_MODE: mode },
      stderr: "pipe",
      closeTimeoutMs,
    }),
  );
  const stderr = collect(transport.stderr);
  await transport.start();
  await until(() => /GRANDCHILD \d+\n/.test(stderr.text()), "the grandchild's pid");
  const grandchild = Number(/GRANDCHILD (\d+)/.exec(stderr.text())?.[1]);
  track(grandchild);
  return { transport, stderr, grandchild };
}

/** An error as `process.kill` throws it. */
function killError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`kill ${code}`), { code });
}

/** close()'s duration in ms. */
async function timedClose(transport: StdioClientTransport): Promise<number> {
  const startedAt = Date.now();
  await transport.close();
  return Date.now() - startedAt;
}

// POSIX only: on Windows the server gets no process group (it would get a console of its own),
// and signals reach the process alone, as before.
describe.skipIf(process.platform === "win32")("close() ends the server's process group", () => {
  it("SIGTERMs the grandchild too when the wrapper and the grandchild ignore stdin EOF", async () => {
    const { transport, stderr, grandchild } = await wrapped(FOREGROUND, "stay");
    await transport.close();
    await until(() => !running(grandchild), "the grandchild to be gone", 2_000);
    expect(transport.exitStatus).toEqual({ code: null, signal: "SIGTERM" });
    expect(stderr.text()).not.toContain("ignoring");
  });

  it("SIGKILLs a grandchild that ignores SIGTERM, though the wrapper died at SIGTERM", async () => {
    const { transport, stderr, grandchild } = await wrapped(FOREGROUND, "ignore-term");
    const elapsed = await timedClose(transport);
    await until(() => !running(grandchild), "the grandchild to be gone", 2_000);
    expect(stderr.text()).toContain("grandchild ignoring SIGTERM");
    expect(transport.exitStatus).toEqual({ code: null, signal: "SIGTERM" });
    // stdin closed, 200 ms, SIGTERM, 200 ms, SIGKILL.
    expect(elapsed).toBeGreaterThanOrEqual(390);
  });

  it("closes a wrapper whose grandchild exits at stdin EOF at once, without escalating", async () => {
    const { transport, stderr, grandchild } = await wrapped(FOREGROUND, "eof", 2_000);
    // Under the first step's 2 s: nothing waited for an escalation.
    expect(await timedClose(transport)).toBeLessThan(2_000);
    expect(transport.exitStatus).toEqual({ code: 0, signal: null });
    expect(running(grandchild)).toBe(false);
    expect(stderr.text()).not.toContain("ignoring");
  });

  it("terminates a grandchild left holding stdout after the wrapper exited at stdin EOF", async () => {
    const { transport, grandchild } = await wrapped(BACKGROUND, "stay");
    let closes = 0;
    transport.onclose = () => closes++;
    // The exit, a second for the pipes to close, then SIGTERM to the group.
    await transport.close();
    await until(() => !running(grandchild), "the grandchild to be gone", 2_000);
    expect(transport.exitStatus).toEqual({ code: 0, signal: null });
    expect(closes).toBe(1);
  });

  it("ends a grandchild left holding the pipes after the wrapper was killed, before close() resolves", async () => {
    const { transport, grandchild } = await wrapped(FOREGROUND, "ignore-term");
    const errors: Error[] = [];
    transport.onerror = (error) => errors.push(error);
    const closed = new Promise<Error | undefined>((resolve) => {
      transport.onclose = resolve;
    });
    process.kill(transport.pid as number, "SIGKILL"); // the wrapper alone, from outside
    // The exit is reported (a second's grace for the pipes), though the grandchild still holds them.
    expect(await closed).toBeInstanceOf(StdioServerExitError);
    await transport.close();
    expect(running(grandchild)).toBe(false);
    expect(errors.map((error) => error.message)).toEqual([
      "The MCP server process exited unexpectedly (signal SIGKILL)",
    ]);
  });

  it("reports a group it may not signal through onerror, and still signals the server itself", async () => {
    const transport = trackTransport(
      new StdioClientTransport({
        command: process.execPath,
        args: ["-e", "setInterval(() => {}, 1_000)"], // never reads stdin, so never sees its EOF
        stderr: "ignore",
        closeTimeoutMs: 200,
      }),
    );
    const errors: Error[] = [];
    transport.onerror = (error) => errors.push(error);
    await transport.start();
    const kill = process.kill.bind(process);
    const spy = vi.spyOn(process, "kill").mockImplementation((pid, signal) => {
      if (pid < 0 && signal !== 0) throw killError("EPERM");
      return kill(pid, signal);
    });
    try {
      await transport.close();
    } finally {
      spy.mockRestore();
    }
    expect(transport.exitStatus).toEqual({ code: null, signal: "SIGTERM" });
    expect(errors.map((error) => error.message)).toEqual([
      "Could not send SIGTERM to the MCP server's process group: kill EPERM",
    ]);
    expect(errors[0]).toBeInstanceOf(RoundtripError);
    expect(errors[0]?.cause).toMatchObject({ code: "EPERM" });
  });
});

describe("signalServer", () => {
  const fakeChild = (pid: number | undefined) => ({ pid, kill: vi.fn() }) as unknown as ChildProcess;
  const mockKill = (outcome: () => true) => vi.spyOn(process, "kill").mockImplementation(outcome);
  afterEach(() => vi.restoreAllMocks());

  it("signals the whole group, through its leader's negated pid", () => {
    const kill = mockKill(() => true);
    const child = fakeChild(4242);
    expect(signalServer(child, true, "SIGTERM")).toBeUndefined();
    expect(kill).toHaveBeenCalledWith(-4242, "SIGTERM");
    expect(child.kill).not.toHaveBeenCalled();
  });

  it("takes a group already gone (ESRCH) for done", () => {
    mockKill(() => {
      throw killError("ESRCH");
    });
    const child = fakeChild(4242);
    expect(signalServer(child, true, "SIGKILL")).toBeUndefined();
    expect(child.kill).not.toHaveBeenCalled();
  });

  it("returns any other failure, once it signalled the process alone instead", () => {
    mockKill(() => {
      throw killError("EPERM");
    });
    const child = fakeChild(4242);
    expect(signalServer(child, true, "SIGKILL")).toMatchObject({ code: "EPERM" });
    expect(child.kill).toHaveBeenCalledWith("SIGKILL");
  });

  it("signals the process alone without a group (Windows) or a pid (a failed spawn)", () => {
    const kill = mockKill(() => true);
    for (const [pid, grouped] of [
      [4242, false],
      [undefined, true],
    ] as const) {
      const child = fakeChild(pid);
      expect(signalServer(child, grouped, "SIGTERM")).toBeUndefined();
      expect(child.kill).toHaveBeenCalledWith("SIGTERM");
    }
    expect(kill).not.toHaveBeenCalled();
  });
});
