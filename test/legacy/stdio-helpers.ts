import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { killSpawned, REPO_ROOT, track, until } from "../transports/stdio/helpers.js";

export { killSpawned, REPO_ROOT, until };

export const fixture = (name: string) =>
  fileURLToPath(new URL(`../fixtures/legacy/${name}.ts`, import.meta.url));
export const DUAL_ERA = fixture("dual-era-server");
export const LEGACY_STUB = fixture("legacy-stub-server");
export const OFFICIAL_LEGACY = fixture("official-legacy-server");

/** How our Client (or the official one) spawns a fixture. */
export function spawnTarget(path: string, env: Record<string, string> = {}) {
  return {
    command: process.execPath,
    args: ["--import", "tsx", path],
    cwd: REPO_ROOT,
    env: { ...env, PATH: process.env.PATH ?? "" },
  };
}

/** A fixture spawned by hand: raw stdout messages in, raw stdin lines out. */
export class RawChild {
  readonly child: ChildProcessWithoutNullStreams;
  readonly messages: Record<string, unknown>[] = [];
  stderr = "";
  #partial = "";

  constructor(path: string, env: Record<string, string> = {}) {
    this.child = spawn(process.execPath, ["--import", "tsx", path], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: "pipe",
    });
    track(this.child.pid);
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string) => {
      const parts = (this.#partial + chunk).split("\n");
      this.#partial = parts.pop() ?? "";
      for (const part of parts) this.messages.push(JSON.parse(part) as Record<string, unknown>);
    });
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => {
      this.stderr += chunk;
    });
    this.child.stdin.on("error", () => {});
  }

  write(message: unknown): void {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Waits for the message matching `predicate` and returns it. */
  async next(
    predicate: (message: Record<string, unknown>) => boolean,
    what: string,
  ): Promise<Record<string, unknown>> {
    await until(() => this.messages.some(predicate), what, 15_000);
    return this.messages.find(predicate) as Record<string, unknown>;
  }

  /** The response to request `id`. */
  response(id: number | string): Promise<Record<string, unknown>> {
    return this.next((m) => m.id === id && !("method" in m), `the response to ${id}`);
  }

  end(): void {
    this.child.stdin.end();
  }
}
