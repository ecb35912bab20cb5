/**
 * Cold-start child: `node cold.js '{"side":"ours"}'`. Times, from process start
 * (`performance.now()` counts from the time origin): the import of the SDK's server + client entry
 * points (whatever they pull in themselves, zod included when they need it); then the app's own
 * start (its zod import for the tool schema, if not loaded yet, building the server, the in-memory
 * connect with the `auto` probe); then the first finished two-round flow.
 */
import { performance } from "node:perf_hooks";
import { replyFromChild, taskArgument } from "../lib/child.js";
import { EXPECTED_TEXT, expectEqual, firstText, LegCounter, MODERN_VERSION } from "../lib/workload.js";

/** What one cold child reports (ms since process start, or phase durations). */
export interface ColdSample {
  /** Node boot until this script started running. */
  readonly bootMs: number;
  readonly importMs: number;
  readonly connectMs: number;
  readonly firstFlowMs: number;
  /** Process start to the end of the first flow. */
  readonly totalMs: number;
}

const { side } = taskArgument<{ side: "ours" | "theirs" }>();

await replyFromChild(async (): Promise<ColdSample> => {
  const bootMs = performance.now();
  const legs = new LegCounter();
  let flow: () => Promise<unknown>;
  let version: () => string | undefined;
  let importMs: number;
  let connectMs: number;
  if (side === "ours") {
    await import("../../src/server/index.js");
    await import("../../src/client/index.js");
    importMs = performance.now() - bootMs;
    const t = performance.now();
    await import("zod");
    const ours = await import("../lib/ours.js");
    const client = await ours.connectOurs(ours.buildOurServer(legs));
    connectMs = performance.now() - t;
    flow = () => ours.ourFlow(client);
    version = () => client.protocolVersion;
  } else {
    await import("@modelcontextprotocol/server");
    await import("@modelcontextprotocol/server/stdio");
    await import("@modelcontextprotocol/client");
    importMs = performance.now() - bootMs;
    const t = performance.now();
    await import("zod");
    const theirs = await import("../lib/theirs.js");
    const pair = await theirs.connectTheirInMemory(legs, true);
    connectMs = performance.now() - t;
    flow = () => theirs.theirFlow(pair.client);
    version = () => theirs.theirVersion(pair.client);
  }
  const t = performance.now();
  const result = await flow();
  const totalMs = performance.now();
  expectEqual("cold first flow", firstText(result), EXPECTED_TEXT);
  expectEqual("cold negotiated version", version(), MODERN_VERSION);
  expectEqual("cold legs", legs.count, 2);
  return { bootMs, importMs, connectMs, firstFlowMs: totalMs - t, totalMs };
});
process.exit();
