/**
 * A 2025-era session (the `initialize` handshake) whose tool needs an answer: the server asks
 * through the back-channel (a real `elicitation/create` pushed to the client) and completes.
 * Theirs: their default (legacy) client and their default-on legacy shim over `InMemoryTransport`.
 * Ours: `Client.connect(mcpServer, { mode: "legacy" })` and the resolver-based tool. A server
 * built without legacy serving answers `initialize` with -32601: reported "n/a". Once it connects,
 * any wrong answer is a correctness failure like everywhere else.
 */
import type { MeasureOptions } from "../lib/measure.js";
import {
  higherIsBetter,
  measureOptions,
  type RunContext,
  runGroup,
  type Scenario,
  type Side,
  type ThroughputResult,
} from "../lib/scenario.js";
import type { OpenTarget } from "../lib/session.js";
import { CorrectnessError, EXPECTED_TEXT, expectEqual, firstText, LegCounter } from "../lib/workload.js";
import { DETAIL_HEADER, detailLine, runText } from "./inmemory.js";

const LEGACY_VERSION = "2025-11-25";

interface Task {
  family: "legacy";
  side: Side;
  measure: MeasureOptions;
}

/** Errors that mean "our legacy layer is not there yet" rather than "it is wrong". */
function notImplemented(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  if ((error as { code?: unknown }).code === -32601) return `not implemented (server: ${error.message})`;
  return undefined;
}

/** Child side. */
export async function open(input: unknown): Promise<OpenTarget | { unavailable: string }> {
  const task = input as Task;
  const legs = new LegCounter();
  if (task.side === "ours") {
    const ours = await import("../lib/ours.js");
    const mcp = ours.buildOurServer(legs);
    let client: Awaited<ReturnType<typeof ours.connectOurs>>;
    try {
      client = await ours.connectOurs(mcp, "legacy");
    } catch (error) {
      const reason = notImplemented(error);
      if (reason === undefined) throw error;
      return { unavailable: reason };
    }
    expectEqual("our legacy era", client.era, "legacy");
    expectEqual("our legacy version", client.protocolVersion, LEGACY_VERSION);
    // How often the resolver body runs per flow is the layer's business: learn it from one flow,
    // then hold every run to it.
    const before = legs.count;
    expectEqual(
      "first legacy flow",
      firstText(await ours.ourFlow(client, ours.TOOL_RESOLVED)),
      EXPECTED_TEXT,
    );
    const legsPerFlow = legs.count - before;
    if (legsPerFlow < 1) throw new CorrectnessError("the legacy flow never ran the resolver");
    return {
      flow: () => ours.ourFlow(client, ours.TOOL_RESOLVED),
      expectedText: EXPECTED_TEXT,
      legsPerFlow,
      legs,
      roundTripsPerFlow: 1,
      version: client.protocolVersion,
      close: () => client.close(),
    };
  }
  const theirs = await import("../lib/theirs.js");
  const pair = await theirs.connectTheirLegacy(legs);
  const version = theirs.theirVersion(pair.client) ?? "";
  expectEqual("their legacy era", pair.client.getProtocolEra(), "legacy");
  expectEqual("their legacy version", version, LEGACY_VERSION);
  // Their shim re-enters the write-once handler: 2 handler entries, 1 tools/call + 1 pushed elicitation.
  return {
    flow: () => theirs.theirFlow(pair.client),
    expectedText: EXPECTED_TEXT,
    legsPerFlow: 2,
    legs,
    roundTripsPerFlow: 1,
    version,
    close: () => pair.close(),
  };
}

export const scenario: Scenario = {
  id: "legacy",
  title: "Legacy 2025 session through the back-channel",
  async run(ctx: RunContext) {
    const measure = measureOptions(ctx, { maxFlows: 20_000 });
    const [ours, theirs] = (await runGroup(ctx, [
      { label: "ours legacy", task: { family: "legacy", side: "ours", measure } },
      { label: "theirs legacy", task: { family: "legacy", side: "theirs", measure } },
    ])) as [ThroughputResult, ThroughputResult];
    const row = higherIsBetter(
      "Legacy 2025 session, elicitation through the back-channel (flows/s)",
      ours,
      theirs,
      2,
      { ours: ours.unavailable ? "(not implemented)" : "(resolver)", theirs: "(legacy shim)" },
    );
    const details = [
      `One flow = one \`tools/call\` whose handler asks once; the answer travels as a server→client \`elicitation/create\`. ${runText(measure)}.`,
      "",
      ...DETAIL_HEADER,
      detailLine('roundtrip `mode: "legacy"` + resolver', ours),
      detailLine("official legacy client + legacy shim (InMemoryTransport)", theirs),
    ].join("\n");
    return { rows: [row], details, data: { ours, theirs } };
  },
};
