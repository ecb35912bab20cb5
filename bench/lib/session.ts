/**
 * Long-lived measuring children driven over IPC, so that runs of competing variants interleave
 * (round-robin, rotating the order every round) and see the same machine noise.
 *
 * Child: opens its target, warms up, says `ready`; then answers each `run` with one sample; on
 * `finish` closes and exits. Parent: `ChildSession.start` → `run()`… → `finish()`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { childNode } from "./child.js";
import type { FlowTarget, MeasureOptions, RunSample } from "./measure.js";
import { timedRun, warmUp } from "./measure.js";

/** What a throughput family opens in the child. */
export interface OpenTarget extends FlowTarget {
  /** Negotiated protocol version (already checked by the family). */
  readonly version: string;
  /** `tools/call` requests on the wire per flow. */
  readonly roundTripsPerFlow: number;
  close(): Promise<void>;
}

/** Sent once the child is warm (or knows its side is absent). */
export interface ReadyInfo {
  readonly version: string;
  readonly legsPerFlow: number;
  readonly postsPerFlow?: number;
  readonly roundTripsPerFlow: number;
  readonly unavailable?: string;
}

type ToChild = { type: "run" } | { type: "finish" };
type FromChild =
  | { type: "ready"; info: ReadyInfo }
  | { type: "sample"; sample: RunSample }
  | { type: "done" }
  | { type: "error"; error: string };

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ""}` : String(error);
}

/**
 * Child side of a session.
 *
 * @example
 * await serveSession(() => open(task), task.measure);
 */
export async function serveSession(
  open: () => Promise<OpenTarget | { unavailable: string }>,
  options: MeasureOptions,
): Promise<void> {
  const send = (message: FromChild) =>
    new Promise<void>((resolve) => {
      process.send?.(message, undefined, {}, () => resolve());
    });
  const fail = async (error: unknown) => {
    await send({ type: "error", error: describeError(error) });
    process.exit(1);
  };
  let target: OpenTarget | undefined;
  // Listening before `ready` is sent: no command can arrive unheard.
  process.on("message", (message: ToChild) => {
    void (async () => {
      try {
        if (message.type === "run") {
          if (!target) throw new Error("run requested from an unavailable side");
          await send({ type: "sample", sample: await timedRun(target, options) });
        } else {
          await target?.close();
          await send({ type: "done" });
          process.exit(0);
        }
      } catch (error) {
        await fail(error);
      }
    })();
  });
  try {
    const opened = await open();
    if ("unavailable" in opened && !("flow" in opened)) {
      await send({
        type: "ready",
        info: { version: "—", legsPerFlow: 0, roundTripsPerFlow: 0, unavailable: opened.unavailable },
      });
      return;
    }
    const warm = opened as OpenTarget;
    await warmUp(warm, options);
    target = warm;
    await send({
      type: "ready",
      info: {
        version: warm.version,
        legsPerFlow: warm.legsPerFlow,
        postsPerFlow: warm.postsPerFlow,
        roundTripsPerFlow: warm.roundTripsPerFlow,
      },
    });
  } catch (error) {
    await fail(error);
  }
}

/** Parent side of one measuring child. */
export class ChildSession {
  readonly info: ReadyInfo;
  readonly #child: ChildProcess;
  readonly #label: string;
  readonly #timeoutMs: number;
  #stderr: { text: string };

  private constructor(
    child: ChildProcess,
    info: ReadyInfo,
    label: string,
    timeoutMs: number,
    stderr: { text: string },
  ) {
    this.#child = child;
    this.info = info;
    this.#label = label;
    this.#timeoutMs = timeoutMs;
    this.#stderr = stderr;
  }

  /** Spawns the child and waits until it is warm. */
  static start(script: string, task: unknown, label: string, timeoutMs = 180_000): Promise<ChildSession> {
    const child = spawn(childNode(), [script, JSON.stringify(task)], {
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    const stderr = { text: "" };
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr.text = (stderr.text + chunk).slice(-8000);
    });
    return expect(child, label, timeoutMs, stderr, "ready").then(
      (message) => new ChildSession(child, (message as { info: ReadyInfo }).info, label, timeoutMs, stderr),
    );
  }

  /** One timed run. */
  async run(): Promise<RunSample> {
    this.#child.send({ type: "run" } satisfies ToChild);
    const message = await expect(this.#child, this.#label, this.#timeoutMs, this.#stderr, "sample");
    return (message as { sample: RunSample }).sample;
  }

  /** Closes the target and lets the child exit. */
  async finish(): Promise<void> {
    if (this.#child.exitCode !== null) return;
    this.#child.send({ type: "finish" } satisfies ToChild);
    await expect(this.#child, this.#label, this.#timeoutMs, this.#stderr, "done");
  }

  /** Ends the child by its pid (after a failure elsewhere). */
  kill(): void {
    if (this.#child.exitCode === null) this.#child.kill("SIGKILL");
  }
}

function expect(
  child: ChildProcess,
  label: string,
  timeoutMs: number,
  stderr: { text: string },
  type: FromChild["type"],
): Promise<FromChild> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      clearTimeout(timer);
      child.off("message", onMessage);
      child.off("exit", onExit);
    };
    const fail = (why: string) => {
      cleanup();
      if (child.exitCode === null) child.kill("SIGKILL");
      reject(new Error(`${label}: ${why}${stderr.text.trim() ? `\n${stderr.text.trim()}` : ""}`));
    };
    const onMessage = (message: FromChild) => {
      if (message.type === "error") return fail(message.error);
      if (message.type !== type) return fail(`expected ${type}, got ${message.type}`);
      cleanup();
      resolve(message);
    };
    const onExit = (code: number | null) => fail(`exited (${code}) while waiting for ${type}`);
    const timer = setTimeout(() => fail(`no ${type} within ${timeoutMs} ms`), timeoutMs);
    child.on("message", onMessage);
    child.once("exit", onExit);
  });
}
