/**
 * State-only rounds (reference plan §5.1 I): a tool that answers `input_required` with a
 * `requestState` and no question three times ("not yet"), then completes. Each client's automatic
 * loop waits between such rounds: ours 50 ms doubling to 250 ms, theirs a fixed 250 ms. Wall-clock
 * milliseconds per flow, in memory, each side in its own child; the final text and the number of
 * handler entries (legs) are checked on every flow.
 */
import { compiled } from "../lib/build.js";
import { runChild } from "../lib/child.js";
import type { RunContext, Scenario, Side, SummaryRow } from "../lib/scenario.js";
import { fmt, fmtRatio, median } from "../lib/stats.js";

/** "Not yet" rounds before the tool completes. */
const ROUNDS = 3;
const TOOL = "wait_ready";
const DONE = `Ready after ${ROUNDS} rounds.`;

interface Task {
  family: "pacing";
  side: Side;
  flows: number;
}

interface PacingResult {
  /** Wall-clock milliseconds of each flow. */
  readonly flowMs: number[];
}

/** The round a `requestState` names (0 when absent). */
function roundOf(state: unknown): number {
  return typeof state === "string" ? Number(state) : 0;
}

async function ourFlows(): Promise<{
  run: () => Promise<unknown>;
  legs: () => number;
  close(): Promise<void>;
}> {
  const { Client } = await import("../../src/client/index.js");
  const { inputRequired, MCPServer, silentLogger } = await import("../../src/server/index.js");
  let legs = 0;
  const mcp = new MCPServer("bench-pacing", { logger: silentLogger });
  mcp.tool(TOOL, { description: "Completes after a few state-only rounds." }, (_args, ctx) => {
    legs++;
    const round = roundOf(ctx.requestState);
    return round < ROUNDS ? inputRequired({ requestState: String(round + 1) }) : DONE;
  });
  const client = await Client.connect(mcp);
  return { run: () => client.callTool(TOOL, {}), legs: () => legs, close: () => client.close() };
}

async function theirFlows(): Promise<{
  run: () => Promise<unknown>;
  legs: () => number;
  close(): Promise<void>;
}> {
  const { Client, InMemoryTransport } = await import("@modelcontextprotocol/client");
  const { inputRequired, McpServer } = await import("@modelcontextprotocol/server");
  const { serveStdio } = await import("@modelcontextprotocol/server/stdio");
  let legs = 0;
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  const handle = serveStdio(
    () => {
      const server = new McpServer(
        { name: "bench-pacing", version: "1.0.0" },
        { capabilities: { tools: {} } },
      );
      server.registerTool(TOOL, { description: "Completes after a few state-only rounds." }, async (ctx) => {
        legs++;
        const round = roundOf(ctx.mcpReq.requestState<string>());
        if (round < ROUNDS) return inputRequired({ requestState: String(round + 1) });
        return { content: [{ type: "text", text: DONE }] };
      });
      return server;
    },
    { transport: serverEnd },
  );
  const client = new Client(
    { name: "bench-client", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(clientEnd);
  return {
    run: () => client.callTool({ name: TOOL, arguments: {} }),
    legs: () => legs,
    close: async () => {
      await client.close();
      await handle.close();
    },
  };
}

/** Child side. */
export async function work(input: unknown): Promise<PacingResult> {
  const task = input as Task;
  const { firstText } = await import("../lib/workload.js");
  const target = task.side === "ours" ? await ourFlows() : await theirFlows();
  const flowMs: number[] = [];
  try {
    for (let i = 0; i < task.flows; i++) {
      const before = target.legs();
      const started = performance.now();
      const result = await target.run();
      flowMs.push(performance.now() - started);
      const text = firstText(result);
      if (text !== DONE) throw new Error(`${task.side}: expected "${DONE}", got ${JSON.stringify(text)}`);
      const legs = target.legs() - before;
      if (legs !== ROUNDS + 1)
        throw new Error(`${task.side}: expected ${ROUNDS + 1} legs per flow, got ${legs}`);
    }
  } finally {
    await target.close();
  }
  return { flowMs };
}

export const scenario: Scenario = {
  id: "pacing",
  title: "State-only rounds (pacing of the automatic loop)",
  async run(ctx: RunContext) {
    const flows = ctx.quick ? 1 : 5;
    const results: Record<Side, PacingResult> = {} as Record<Side, PacingResult>;
    for (const side of ["ours", "theirs"] as const) {
      ctx.log(`pacing: ${side} (${flows} flows)`);
      const task: Task = { family: "pacing", side, flows };
      results[side] = (
        await runChild<PacingResult>(compiled("bench/worker.ts"), task, { timeoutMs: 60_000 })
      ).result;
    }
    const ours = median(results.ours.flowMs);
    const theirs = median(results.theirs.flowMs);
    const rows: SummaryRow[] = [
      {
        scenario: `State-only rounds: ${ROUNDS} "not yet" rounds, then done (ms per flow, in memory)`,
        ours: `${fmt(ours, 1)} ms (waits 50, 100, 200 ms)`,
        theirs: `${fmt(theirs, 1)} ms (waits 250 ms each)`,
        ratio: fmtRatio(ours / theirs),
        target: "— (report)",
        status: "info",
      },
    ];
    const details = [
      `A tool answers \`input_required\` with only a \`requestState\` ${ROUNDS} times, then completes; each client's automatic loop drives it. Median of ${flows} flow(s) per side, wall-clock (the waits are the point), in memory: ours \`Client.connect(mcpServer)\`, theirs \`serveStdio\` over \`InMemoryTransport\`.`,
      "",
      "| side | ms per flow, median (all flows) |",
      "| --- | --- |",
      `| roundtrip | ${fmt(ours, 1)} (${results.ours.flowMs.map((ms) => fmt(ms, 0)).join(", ")}) |`,
      `| official | ${fmt(theirs, 1)} (${results.theirs.flowMs.map((ms) => fmt(ms, 0)).join(", ")}) |`,
    ].join("\n");
    return { rows, details, data: results };
  },
};
