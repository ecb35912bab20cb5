import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { StdioClientTransport, type StdioServerParameters } from "../../../src/transports/stdio/client.js";

export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const PROVISIONER = fileURLToPath(
  new URL("../../fixtures/stdio/provisioner-server.ts", import.meta.url),
);
export const STUBBORN = fileURLToPath(new URL("../../fixtures/stdio/stubborn-server.ts", import.meta.url));
export const GRANDCHILD = fileURLToPath(
  new URL("../../fixtures/stdio/grandchild-server.ts", import.meta.url),
);
export const STDOUT_CLOSING = fileURLToPath(
  new URL("../../fixtures/stdio/stdout-closing-server.ts", import.meta.url),
);

/** The `_meta` envelope as our ClientSession sends it by default. */
export const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
export const SERVER_INFO = {
  "io.modelcontextprotocol/serverInfo": { name: "Provisioner", version: "1.0.0" },
};

const pids = new Set<number>();

/** SIGKILLs every process a test spawned; call from afterEach so a failing test leaks nothing. */
export function killSpawned(): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  pids.clear();
}

/** Remembers a pid for `killSpawned`. */
export function track(pid: number | undefined): void {
  if (pid !== undefined) pids.add(pid);
}

/**
 * Whether `pid` is a running process. A zombie counts as gone: it has exited and holds nothing but
 * its pid, and where PID 1 does not reap orphans (some containers' does not) it stays one for good.
 */
export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat[stat.lastIndexOf(")") + 2] !== "Z";
  } catch {
    return true; // no /proc (macOS): kill(pid, 0) is all there is to go by
  }
}

/** Polls until `check` holds (or fails the test after `timeoutMs`). */
export async function until(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A `tools/call` request line as a client would write it. */
export function call(id: number | string, name: string, args?: Record<string, unknown>, meta = {}) {
  const params: Record<string, unknown> = { name };
  if (args !== undefined) params.arguments = args;
  params._meta = { ...ENVELOPE, ...meta };
  return { jsonrpc: "2.0", id, method: "tools/call", params };
}

/** A text tool result as the fixture answers it, serialized exactly as the server writes it. */
export function textLine(id: number | string, text: string): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    result: { content: [{ type: "text", text }], resultType: "complete", _meta: SERVER_INFO },
  });
}

/**
 * A fixture server (the provisioner unless `script` says otherwise) spawned by hand, so tests see
 * raw stdout lines and write raw stdin bytes without any client code in between.
 */
export class RawServer {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[] = [];
  stderr = "";
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  #partial = "";

  constructor(env: Record<string, string> = {}, script = PROVISIONER) {
    this.child = spawn(process.execPath, ["--import", "tsx", script], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: "pipe",
    });
    track(this.child.pid);
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string) => {
      const parts = (this.#partial + chunk).split("\n");
      this.#partial = parts.pop() ?? "";
      this.lines.push(...parts);
    });
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => {
      this.stderr += chunk;
    });
    this.child.stdin.on("error", () => {});
    this.exited = new Promise((resolve) => {
      this.child.once("close", (code, signal) => resolve({ code, signal }));
    });
  }

  /** Writes a message as one line, or raw text exactly as given. */
  write(message: unknown): void {
    this.child.stdin.write(typeof message === "string" ? message : `${JSON.stringify(message)}\n`);
  }

  /** Closes the server's stdin (EOF). */
  end(): void {
    this.child.stdin.end();
  }

  /** Waits until at least `count` stdout lines arrived and returns them all. */
  async waitLines(count: number): Promise<string[]> {
    await until(() => this.lines.length >= count, `${count} stdout line(s), got ${this.lines.length}`);
    return [...this.lines];
  }

  async waitStderr(text: string): Promise<void> {
    await until(() => this.stderr.includes(text), `stderr to contain ${JSON.stringify(text)}`);
  }

  /** Stdout bytes after the last newline (must stay empty: every message ends its line). */
  get partial(): string {
    return this.#partial;
  }
}

/** A client transport for the provisioner fixture, tracked for cleanup. */
export function provisionerTransport(options: Partial<StdioServerParameters> = {}): StdioClientTransport {
  return trackTransport(
    new StdioClientTransport({
      command: process.execPath,
      args: ["--import", "tsx", PROVISIONER],
      cwd: REPO_ROOT,
      stderr: "ignore", // keeps test output clean; tests that read stderr ask for "pipe"
      ...options,
    }),
  );
}

/** Wraps `start` so the spawned pid is tracked for `killSpawned`. */
export function trackTransport(transport: StdioClientTransport): StdioClientTransport {
  const start = transport.start.bind(transport);
  transport.start = async () => {
    try {
      await start();
    } finally {
      track(transport.pid);
    }
  };
  return transport;
}

/** Collects a readable's text. */
export function collect(stream: NodeJS.ReadableStream | null): { text: () => string } {
  let text = "";
  stream?.setEncoding("utf8");
  stream?.on("data", (chunk: string) => {
    text += chunk;
  });
  return { text: () => text };
}

/** A tracked client transport for a fixture script that draws its behaviour from FIXTURE_SEED. */
export function seededFixture(script: string, seed: number, stderr: "ignore" | "pipe" = "ignore") {
  return trackTransport(
    new StdioClientTransport({
      command: process.execPath,
      args: ["--import", "tsx", script],
      cwd: REPO_ROOT,
      env: { FIXTURE_SEED: String(seed) },
      stderr,
    }),
  );
}
