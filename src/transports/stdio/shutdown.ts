/**
 * The stdio client's shutdown helpers: bounded waits, and signals that reach the server's whole
 * process group (see `serverSpawnOptions`), not only the process the client spawned.
 */
import type { ChildProcess } from "node:child_process";
import { timerDelay } from "../../shared/timers.js";

/** True if `promise` settles within `ms` (Infinity: as long as a timer can wait); the timer never outlives the wait. */
export async function within(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timerDelay(ms));
  });
  const settled = await Promise.race([promise.then(() => true as const), timedOut]);
  clearTimeout(timer);
  return settled;
}

/**
 * Sends `signal` to the server's process group when it leads one (`grouped`), so what a wrapper
 * started gets it too; else (Windows, or no pid: the spawn failed) to the process alone. A group
 * already gone (ESRCH) is no failure; any other is returned for the caller to report, once the
 * process alone was signalled instead.
 *
 * @example
 * const failure = signalServer(child, process.platform !== "win32", "SIGTERM");
 */
export function signalServer(
  child: ChildProcess,
  grouped: boolean,
  signal: NodeJS.Signals,
): Error | undefined {
  const pid = child.pid;
  if (!grouped || pid === undefined) {
    child.kill(signal);
    return undefined;
  }
  try {
    process.kill(-pid, signal);
    return undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return undefined;
    child.kill(signal);
    return error as Error;
  }
}

/**
 * Whether process group `pgid` has a member left; one we may not signal (EPERM) counts. The
 * leader's pid stays reserved while its group has members, so asking after the leader exited still
 * reaches what is left of its group.
 *
 * @example
 * if (groupAlive(child.pid)) signalServer(child, true, "SIGKILL");
 */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/** How often a wait checks whether anything is left in a process group. */
const GROUP_POLL_MS = 50;

/**
 * True once nothing is left in process group `pgid` within `ms`, or once `settled` resolves (the
 * caller knows enough by then: the server's pipes closed, say); false at the deadline.
 *
 * @example
 * if (!(await groupGoneWithin(pid, 2_000, pipesClosed))) signalServer(child, true, "SIGKILL");
 */
export async function groupGoneWithin(pgid: number, ms: number, settled: Promise<void>): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!groupAlive(pgid)) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    if (await within(settled, Math.min(left, GROUP_POLL_MS))) return true;
  }
}

/**
 * Ends what is left of a process group: SIGTERM, then SIGKILL, each while the group lives and
 * `ms` apart at most. `send` sends one signal (and reports a failure).
 *
 * @example
 * await endGroupLeftovers(pid, (signal) => signalServer(child, true, signal), 2_000);
 */
export async function endGroupLeftovers(
  pgid: number,
  send: (signal: NodeJS.Signals) => void,
  ms: number,
): Promise<void> {
  const never = new Promise<void>(() => {});
  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    if (!groupAlive(pgid)) return;
    send(signal);
    await groupGoneWithin(pgid, ms, never);
  }
}
