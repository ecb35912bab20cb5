/**
 * Parent ↔ child protocol: the parent spawns `node [flags] <compiled script> <task JSON>`; the
 * child prints exactly one `@@bench-result <JSON>` line. A child that fails, times out or prints no
 * result rejects with its stderr (the harness then exits non-zero).
 */
import { spawn } from "node:child_process";

const MARKER = "@@bench-result ";

let nodeBinary = process.execPath;

/**
 * The `node` every measuring child runs on: the harness's own by default, another one with
 * `bench/run.ts --node <path>` (e.g. Node 22 next to Node 20 on the same machine).
 */
export function childNode(): string {
  return nodeBinary;
}

/** Makes every later child run on `path`. */
export function useChildNode(path: string): void {
  nodeBinary = path;
}

/** What a child sends back. */
export type ChildReply = { ok: true; result: unknown } | { ok: false; error: string };

/** Options of one spawn. */
export interface SpawnOptions {
  /** Node flags before the script (e.g. `--expose-gc`, `--cpu-prof`). */
  readonly nodeFlags?: readonly string[];
  /** Killed (by its pid) after this long. */
  readonly timeoutMs: number;
}

/** The result of one child, with its wall-clock time from spawn to exit. */
export interface ChildOutcome<T> {
  readonly result: T;
  readonly wallMs: number;
}

/**
 * Runs one child to completion.
 *
 * @example
 * const { result } = await runChild<Out>(compiled("bench/worker.ts"), task, { timeoutMs: 120_000 });
 */
export function runChild<T>(script: string, task: unknown, options: SpawnOptions): Promise<ChildOutcome<T>> {
  const args = [...(options.nodeFlags ?? []), script, JSON.stringify(task)];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(nodeBinary, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      stderr += `\n[bench] child killed after ${options.timeoutMs} ms`;
      child.kill("SIGKILL");
    }, options.timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      const wallMs = performance.now() - started;
      const line = stdout.split("\n").find((l) => l.startsWith(MARKER));
      if (!line) {
        reject(new Error(`child ${describe(task)} exited ${code} without a result\n${stderr.trim()}`));
        return;
      }
      const reply = JSON.parse(line.slice(MARKER.length)) as ChildReply;
      if (!reply.ok) {
        reject(new Error(`child ${describe(task)} failed: ${reply.error}\n${stderr.trim()}`));
        return;
      }
      resolve({ result: reply.result as T, wallMs });
    });
  });
}

function describe(task: unknown): string {
  return JSON.stringify(task).slice(0, 160);
}

/**
 * Child side: runs `main` and prints its reply (exit code 1 on failure).
 *
 * @example
 * await replyFromChild(async () => measure(task));
 */
export async function replyFromChild(main: () => Promise<unknown>): Promise<void> {
  let reply: ChildReply;
  try {
    reply = { ok: true, result: await main() };
  } catch (error) {
    const message =
      error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ""}` : String(error);
    reply = { ok: false, error: message };
    process.exitCode = 1;
  }
  process.stdout.write(`${MARKER}${JSON.stringify(reply)}\n`);
}

/** The task a child was given (its last argument). */
export function taskArgument<T>(): T {
  const raw = process.argv[process.argv.length - 1];
  if (raw === undefined) throw new Error("missing task argument");
  return JSON.parse(raw) as T;
}
