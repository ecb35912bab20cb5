/**
 * Cold-start child: `node cold.js '{"side":"ours"}'`, run from the cold-start tree
 * (bench/lib/build.ts `buildColdTree`), where `../../src/server/index.js` and
 * `../../src/client/index.js` are our package's bundled build: what `npm run build` writes to `dist/`
 * (the same code; only the chunks' content hashes in file names differ).
 *
 * Times, from process start (`performance.now()` counts from the time origin): the import of the
 * SDK's server + client entry points (whatever they pull in themselves, zod included when they need
 * it); then the app's own start (its zod import for the tool schema, if not loaded yet, building the
 * server, the in-memory connect with the `auto` probe); then the first finished two-round flow.
 *
 * `floor` loads no SDK: Node's boot plus the app's `import("zod")`, which every process of this
 * workload pays whichever SDK serves it.
 */
import { performance } from "node:perf_hooks";
import { replyFromChild, taskArgument } from "../lib/child.js";
import { EXPECTED_TEXT, expectEqual, firstText, LegCounter, MODERN_VERSION } from "../lib/workload.js";

/** Which process to start: one of the SDKs, or the SDK-less floor. */
export type ColdSide = "ours" | "theirs" | "floor";

/** What one cold child reports (ms since process start, or phase durations). */
export interface ColdSample {
  /** Node boot until this script started running. */
  readonly bootMs: number;
  readonly importMs: number;
  readonly connectMs: number;
  readonly firstFlowMs: number;
  /** Process start to the end of the first flow (`floor`: to the end of its zod import). */
  readonly totalMs: number;
}

const { side } = taskArgument<{ side: ColdSide }>();

await replyFromChild(async (): Promise<ColdSample> => {
  const bootMs = performance.now();
  if (side === "floor") {
    await import("zod");
    const totalMs = performance.now();
    // Its app start is the zod import alone.
    return { bootMs, importMs: 0, connectMs: totalMs - bootMs, firstFlowMs: 0, totalMs };
  }
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
