import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { answer, answerQuestion, ask, main, readPending } from "../../examples/distributed-resume.js";
import { ASK_REGION } from "../../examples/provisioner-lowlevel.js";

const run = promisify(execFile);
const repo = fileURLToPath(new URL("../..", import.meta.url));

/** Runs the example as its own OS process, exactly as a user would. */
function cli(...args: string[]) {
  return run(process.execPath, ["--import", "tsx", "examples/distributed-resume.ts", ...args], {
    cwd: repo,
    timeout: 30_000,
  });
}

const PENDING = {
  method: "tools/call",
  name: "provision",
  arguments: { name: "orders" },
  inputRequests: { region: ASK_REGION },
  requestState: "provision-v1",
};

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "roundtrip-resume-"));
  file = join(dir, "pending.json");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("examples/distributed-resume", () => {
  it("process A persists the pending call; a separate process B answers and finishes it", async () => {
    const a = await cli("ask", file);
    expect(a.stdout.trim()).toBe(
      `pending tools/call provision written to ${file}; it asks: region (Which region should the database live in?)`,
    );
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual(PENDING);
    const b = await cli("answer", file, "ap-south-1");
    expect(b.stdout.trim()).toBe("Provisioned 'orders' in ap-south-1.");
  });

  it("the exported functions do the same in one process", async () => {
    expect(await ask(file)).toEqual(PENDING);
    const result = await answer(file);
    expect(result.content).toEqual([{ type: "text", text: "Provisioned 'orders' in eu-west-1." }]);
  });

  it("refuses a file that holds no pending call", async () => {
    await writeFile(file, JSON.stringify({ ...PENDING, inputRequests: { region: { method: "nope" } } }));
    await expect(readPending(file)).rejects.toThrow("does not hold a pending tools/call");
  });

  it("answers only elicitations", () => {
    expect(() => answerQuestion({ method: "roots/list", params: {} }, "eu")).toThrow(
      'this client cannot answer a "roots/list" request',
    );
  });

  it("prints its usage and exits 2 on a bad command line", async () => {
    const lines: string[] = [];
    expect(await main(["nope"], (line) => lines.push(line))).toBe(2);
    expect(lines[0]).toMatch(/^usage:/);
  });
});
