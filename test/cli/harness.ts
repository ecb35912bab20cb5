// Runs the CLI from source: in a real terminal (a tmux pane, typed into with send-keys and read
// with capture-pane), or as a plain child process with pipes (no terminal).
import { type ChildProcess, execFile, execFileSync, type StdioOptions, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
export const STDIO_FIXTURE = fileURLToPath(new URL("./fixtures/stdio-server.ts", import.meta.url));
/** The CLI's own command line, run from source. */
export const CLI = ["node", "--import", "tsx", MAIN];

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI with pipes (stdin is not a terminal) and collects everything.
 */
export function runCli(
  args: readonly string[],
  env: Record<string, string> = {},
  timeoutMs = 40_000,
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      CLI[0] as string,
      [...CLI.slice(1), ...args],
      { cwd: ROOT, env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", ...env }, timeout: timeoutMs },
      (error, stdout, stderr) => {
        const code = child.exitCode;
        if (code === null) reject(error ?? new Error(`the CLI was killed: ${stderr}`));
        else resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end();
  });
}

/**
 * Starts the CLI as a child with the test environment (no colours), for tests that signal it or
 * give it their own stdio.
 */
export function spawnCli(
  args: readonly string[],
  stdio: StdioOptions = ["ignore", "pipe", "pipe"],
): ChildProcess {
  return spawn(CLI[0] as string, [...CLI.slice(1), ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
    stdio,
  });
}

/**
 * A private tmux server for this test process, on a socket in its own temporary folder: never the
 * user's server, and killed as a whole (socket folder included) at the end.
 */
let socketDir: string | undefined;

function tmux(...args: string[]): string {
  socketDir ??= mkdtempSync(join(tmpdir(), "roundtrip-cli-tmux-"));
  return execFileSync("tmux", ["-u", "-S", join(socketDir, "socket"), ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Kills this process's tmux server (every pane it still has) and removes its socket. */
export function killTmuxServer(): void {
  keeper = false;
  if (socketDir === undefined) return;
  try {
    tmux("kill-server");
  } catch {
    // not running
  }
  rmSync(socketDir, { recursive: true, force: true });
  socketDir = undefined;
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let counter = 0;
let keeper = false;

/**
 * tmux ends its server with its last session; a session that only sleeps keeps it up, so a pane
 * killed after one test cannot race the next test's `new-session` against a server shutting down.
 */
function ensureServer(): void {
  if (keeper) return;
  tmux("new-session", "-d", "-s", `keeper-${process.pid}`, "sleep", "3600");
  keeper = true;
}

/**
 * The CLI running in a tmux pane: a real terminal (stdin, stdout and stderr are the pty).
 */
export class Pane {
  readonly name: string;

  private constructor(name: string) {
    this.name = name;
  }

  /** `stderrTo`: a file the CLI's stderr goes to instead of the terminal (stdin stays the pty). */
  static start(args: readonly string[], env: Record<string, string> = {}, stderrTo?: string): Pane {
    ensureServer();
    const name = `cli-${process.pid}-${++counter}`;
    const redirect = stderrTo === undefined ? "" : ` 2>${shellQuote(stderrTo)}`;
    const command = [...CLI, ...args].map(shellQuote).join(" ") + redirect;
    // The exit code is printed when the CLI ends; the pane then stays until the session is killed.
    const script = `${command}; echo "__EXIT:$?__"; sleep 600`;
    const envArgs = Object.entries({ NO_COLOR: "", FORCE_COLOR: "1", ...env }).flatMap(([key, value]) => [
      "-e",
      `${key}=${value}`,
    ]);
    tmux(
      "new-session",
      "-d",
      "-s",
      name,
      "-x",
      "160",
      "-y",
      "50",
      "-c",
      ROOT,
      ...envArgs,
      "sh",
      "-c",
      script,
    );
    return new Pane(name);
  }

  /** The pane's text (with its scrollback), escapes stripped unless `withEscapes`. */
  screen(withEscapes = false): string {
    const flags = withEscapes ? ["-e"] : [];
    try {
      return tmux("capture-pane", "-p", "-J", ...flags, "-S", "-400", "-t", this.name);
    } catch {
      return "";
    }
  }

  /** Waits (bounded) until the screen matches; fails with the screen when it does not. */
  async waitFor(pattern: RegExp | string, timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (typeof pattern === "string" ? screen.includes(pattern) : pattern.test(screen)) return screen;
      if (Date.now() > deadline) {
        throw new Error(`Timed out waiting for ${String(pattern)}; the screen was:\n${screen}`);
      }
      await sleep(40);
    }
  }

  /** Presses keys by name (Enter, Down, Space, y, ...). */
  press(...keys: string[]): void {
    tmux("send-keys", "-t", this.name, ...keys);
  }

  /** Types text literally. */
  type(text: string): void {
    tmux("send-keys", "-t", this.name, "-l", text);
  }

  /** Waits for the CLI to end and returns its exit code. */
  async exitCode(timeoutMs = 15_000): Promise<number> {
    const screen = await this.waitFor(/__EXIT:\d+__/, timeoutMs);
    return Number(/__EXIT:(\d+)__/.exec(screen)?.[1]);
  }

  kill(): void {
    try {
      tmux("kill-session", "-t", this.name);
    } catch {
      // already gone
    }
  }
}

/**
 * Runs the CLI in this process (`run()` with pipes that are not terminals): the same code as the
 * binary minus `main.ts`, without paying a process start per case.
 */
export async function runInProcess(args: readonly string[]): Promise<RunResult> {
  const { run } = await import("../../src/cli/run.js");
  let stdout = "";
  let stderr = "";
  const sink = (append: (text: string) => void) =>
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        append(chunk.toString("utf8"));
        callback();
      },
    });
  const code = await run(args, {
    stdout: sink((text) => {
      stdout += text;
    }),
    stderr: sink((text) => {
      stderr += text;
    }),
    stdin: Readable.from([]),
    env: { NO_COLOR: "1" },
    cwd: ROOT,
    platform: process.platform,
  });
  return { code, stdout, stderr };
}
