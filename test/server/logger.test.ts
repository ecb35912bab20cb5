// The default logger in a real child process: one line per warning or error on stderr, nothing on
// stdout (which a stdio server owns), and a stderr closed by the parent never crashes the process.
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const FIXTURE = fileURLToPath(new URL("../fixtures/logger/log-lines.ts", import.meta.url));

describe("consoleLogger", () => {
  it("writes warnings and errors to stderr, one line each, and nothing to stdout", () => {
    const result = spawnSync(process.execPath, ["--import", "tsx", FIXTURE], { encoding: "utf8" });
    expect({ status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
      status: 0,
      stdout: "",
      stderr: "[roundtrip] warn: disk almost full\n[roundtrip] error: handler failed\n",
    });
  });

  it("survives a stderr that the reader closed (EPIPE)", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", FIXTURE, "flood"], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    // The first lines arrive, then the reader goes away before the flood.
    await new Promise((resolve) => child.stderr.once("data", resolve));
    child.stderr.destroy();
    child.stdin.end("go\n");
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect({ code, stdout }).toEqual({ code: 0, stdout: "survived\n" });
  });
});
