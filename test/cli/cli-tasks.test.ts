// The CLI and long-running tools (the Tasks extension): `call` follows a task to its end and
// prints its id and status changes on stderr, `--no-tasks` runs the tool inline, and `task`
// resumes a task by id. The server is examples/tasks-server.ts over real loopback HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveReports } from "../../examples/tasks-server.js";
import { MCPServer, silentLogger } from "../../src/server/index.js";
import { serverTasks } from "../../src/server/tasks/index.js";
import { type HttpServerHandle, serveHttp } from "../../src/transports/http/node.js";
import { callDeclaringTasks } from "../transports/http/helpers.js";
import { runInProcess } from "./harness.js";

let http: HttpServerHandle;
let url = "";
beforeAll(async () => {
  http = await serveReports();
  url = http.url.href;
});
afterAll(() => http.close());

const ANSWER = ["--answer", 'archived={"archived":true}'];
/** `roundtrip call` of the task-capable export tool, with its question answered, plus `flags`. */
const exportEu = (...flags: string[]) =>
  runInProcess(["call", url, "export_customers", "--arg", "region=eu", ...flags, ...ANSWER]);
const TASK_LINE = /^roundtrip: task ([0-9a-f-]{36}) (working|input_required|completed)(: .*)?$/;

describe("roundtrip and tasks", () => {
  it("call follows the task to its end, answering its question, with each status on stderr", async () => {
    const run = await exportEu();
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Exported 12000 rows of eu to customers-eu.csv\n");
    const lines = run.stderr.trim().split("\n");
    expect(lines.every((line) => TASK_LINE.test(line))).toBe(true);
    const ids = new Set(lines.map((line) => TASK_LINE.exec(line)?.[1]));
    expect(ids.size).toBe(1);
    expect(lines[0]).toMatch(/ working: Counting the rows of eu$/);
    expect(lines).toContainEqual(expect.stringMatching(/ input_required: Counting the rows of eu$/));
    expect(lines.at(-1)).toMatch(/ completed: Exporting eu with archived customers$/);
  });

  it("--trace traces a task's input round like a request's: what was asked, what was answered", async () => {
    const run = await exportEu("--trace");
    expect(run.code).toBe(0);
    const lines = run.stderr.trim().split("\n");
    const taskId = TASK_LINE.exec(lines.find((line) => TASK_LINE.test(line)) ?? "")?.[1];
    expect(lines.filter((line) => line.startsWith("[trace]"))).toEqual([
      "[trace] tools/call export_customers: sending",
      `[trace] task ${taskId} round 1: input_required, 1 question`,
      "[trace]   asked archived: elicitation/create form",
      "[trace]   answered archived (elicitation/create): accept (fields: archived) [form]",
      "[trace] tools/call complete after 1 input round",
    ]);
  });

  it("--no-tasks runs the same tool inline: same answer, no task", async () => {
    const run = await exportEu("--no-tasks");
    expect(run).toEqual({ code: 0, stdout: "Exported 12000 rows of eu to customers-eu.csv\n", stderr: "" });
  });

  it("task <id> resumes a task another process started, and exits 3 on an unknown id", async () => {
    const result = await callDeclaringTasks(url, "export_customers", { region: "us" });
    const run = await runInProcess(["task", url, result.taskId as string, ...ANSWER]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Exported 12000 rows of us to customers-us.csv\n");
    const unknown = await runInProcess(["task", url, "no-such-task"]);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain("Failed to retrieve task: Task not found");
  });

  it("a status message cannot drive the terminal: control characters are replaced", async () => {
    const mcp = new MCPServer("hostile", {
      logger: silentLogger,
      tasks: serverTasks({ immediateResultMs: 0, pollIntervalMs: 10 }),
    });
    mcp.tool("job", { task: "optional" }, async (_args, ctx) => {
      ctx.task?.setStatusMessage("\u001b]0;pwned\u0007\u001b[2Jcleared\nsecond line");
      await new Promise((resolve) => setTimeout(resolve, 30));
      return "done";
    });
    const hostile = await serveHttp(mcp);
    try {
      const run = await runInProcess(["call", hostile.url.href, "job"]);
      expect(run.code).toBe(0);
      const controls = [...run.stderr].filter((char) => {
        const code = char.codePointAt(0) ?? 0;
        return (code < 0x20 && char !== "\n") || code === 0x7f;
      });
      expect(controls).toEqual([]);
      expect(run.stderr).toContain("\ufffd]0;pwned\ufffd\ufffd[2Jcleared second line");
    } finally {
      await hostile.close();
    }
  });

  it("task needs its id", async () => {
    const run = await runInProcess(["task", url]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("task needs <taskId>");
  });
});
