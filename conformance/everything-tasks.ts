// The Tasks-extension fixtures of the everything server (io.modelcontextprotocol/tasks, SEP-2663):
// the tools the suite's tasks-* scenarios call, with the behaviour each scenario describes. Every
// task-capable tool does some work before answering, longer than the server's immediateResultMs,
// so a client that declared the extension gets a task rather than an inline answer.
import { ErrorCode, McpError } from "roundtrip-mcp";
import {
  elicitationRequest,
  inputRequired,
  inputResponse,
  type MCPServer,
  ToolError,
} from "roundtrip-mcp/server";
import { z } from "zod";

const WORK_MS = 300;

/** Resolves after `ms`, or rejects as soon as `signal` aborts (a cancelled task stops working). */
function work(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      signal.removeEventListener("abort", stop);
      resolve();
    }
    function stop(): void {
      clearTimeout(timer);
      reject(new Error("cancelled"));
    }
    signal.addEventListener("abort", stop, { once: true });
  });
}

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

const ASK_USER_NAME = elicitationRequest(
  "What is your name?",
  z.object({ name: z.string().describe("Your name") }),
);
const ASK_CONFIRM = elicitationRequest(
  "Really delete the file?",
  z.object({ confirm: z.boolean().describe("Delete it") }),
);
const ASK_FIRST = elicitationRequest(
  "First input: your name?",
  z.object({ name: z.string().describe("A name") }),
);
const ASK_SECOND = elicitationRequest(
  "Second input: confirm?",
  z.object({ confirm: z.boolean().describe("Confirm") }),
);

export function registerTaskTools(mcp: MCPServer): void {
  mcp.tool(
    "greet",
    { description: "Greets synchronously (never a task)", input: z.object({ name: z.string() }) },
    ({ name }) => text(`Hello, ${name}!`),
  );

  mcp.tool(
    "slow_compute",
    {
      description: "Sleeps `seconds` seconds, then answers; a task for clients that declare the extension",
      input: z.object({ seconds: z.number().min(0).max(600), label: z.string().optional() }),
      task: "optional",
    },
    async ({ seconds, label }, ctx) => {
      ctx.task?.setStatusMessage(`Computing ${label ?? "a result"} for ${seconds} s`);
      await work(seconds * 1000, ctx.signal);
      return text(`Computed ${label ?? "a result"} after ${seconds} s.`);
    },
  );

  mcp.tool(
    "failing_job",
    { description: "Fails with a tool error after about a second (task required)", task: "required" },
    async (_args, ctx) => {
      await work(1000, ctx.signal);
      throw new ToolError("The job failed: the input was invalid.");
    },
  );

  mcp.tool(
    "protocol_error_job",
    { description: "Fails with a JSON-RPC error (a protocol-level failure)", task: "optional" },
    async (_args, ctx) => {
      await work(WORK_MS, ctx.signal);
      throw new McpError(ErrorCode.InternalError, "The job crashed while processing.");
    },
  );

  mcp.tool(
    "confirm_delete",
    {
      description: "Checks the file, asks for confirmation, then deletes it",
      input: z.object({ filename: z.string() }),
      task: "optional",
    },
    async ({ filename }, ctx) => {
      const answer = inputResponse(ctx, "confirm");
      if (answer.kind !== "accept") {
        await work(WORK_MS, ctx.signal);
        return inputRequired({ inputRequests: { confirm: ASK_CONFIRM } });
      }
      return text(answer.content?.confirm === true ? `Deleted ${filename}.` : `Kept ${filename}.`);
    },
  );

  mcp.tool(
    "multi_input",
    { description: "Asks two questions at once, then reports both answers", task: "optional" },
    async (_args, ctx) => {
      const first = inputResponse(ctx, "first");
      const second = inputResponse(ctx, "second");
      if (first.kind !== "accept" || second.kind !== "accept") {
        await work(WORK_MS, ctx.signal);
        return inputRequired({ inputRequests: { first: ASK_FIRST, second: ASK_SECOND } });
      }
      return text(`Got ${JSON.stringify(first.content)} and ${JSON.stringify(second.content)}.`);
    },
  );

  mcp.tool(
    "test_tool_with_task",
    { description: "Asks for user_name inline (MRTR), then greets as a task", task: "required" },
    async (_args, ctx) => {
      const answer = inputResponse(ctx, "user_name");
      if (answer.kind !== "accept") return inputRequired({ inputRequests: { user_name: ASK_USER_NAME } });
      await work(WORK_MS, ctx.signal);
      return text(`Hello, ${String(answer.content?.name)}!`);
    },
  );
}
