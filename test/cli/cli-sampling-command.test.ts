// --sampling-command runs through a shell: stopping it must stop what the shell started too.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import { runSamplingCommand } from "../../src/cli/sampling.js";

const tmp = mkdtempSync(join(tmpdir(), "roundtrip-cli-sampling-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Running: a zombie (state Z, left to an init that may never reap it) has ended. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

describe.skipIf(process.platform !== "linux")("--sampling-command stopped by Ctrl-C", () => {
  it("ends the processes the shell started, not only the shell", { timeout: 20_000 }, async ({ expect }) => {
    const pidFile = join(tmp, "pid");
    const controller = new AbortController();
    const params = { messages: [], maxTokens: 1 };
    const answer = runSamplingCommand(`sleep 30 & echo $! > '${pidFile}'; wait`, params, controller.signal);
    answer.catch(() => {});
    for (let i = 0; i < 250 && !(existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n")); i++)
      await sleep(20);
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(alive(pid)).toBe(true);
    controller.abort();
    await expect(answer).rejects.toThrow();
    for (let i = 0; i < 100 && alive(pid); i++) await sleep(20);
    expect(alive(pid)).toBe(false);
  });
});
