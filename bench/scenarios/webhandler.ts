/**
 * In-process web handler: the client's `fetch` calls the server's `(Request) => Promise<Response>`
 * directly — no socket, but the full HTTP shape (Request/Response objects, headers, JSON bodies).
 * Ours: `createHttpHandler(mcpServer)` + `StreamableHttpClientTransport({ fetch })`. Theirs: their
 * documented 2026 in-process path, `createMcpHandler(factory)` + `StreamableHTTPClientTransport({ fetch })`.
 */
import type { MeasureOptions } from "../lib/measure.js";
import {
  flowsPerSecond,
  higherIsBetter,
  measureOptions,
  pairedRatio,
  perRun,
  type RunContext,
  ratioText,
  runGroup,
  type Scenario,
  type Side,
  type ThroughputResult,
} from "../lib/scenario.js";
import type { OpenTarget } from "../lib/session.js";
import { fmt, type Summary } from "../lib/stats.js";
import {
  EXPECTED_TEXT,
  expectEqual,
  LegCounter,
  MODERN_VERSION,
  TOOL_MRTR,
  TOOL_PLAIN,
} from "../lib/workload.js";
import { DETAIL_HEADER, detailLine, runText } from "./inmemory.js";

interface Task {
  family: "webhandler";
  /** `floor`: our recorded bytes through bare `Request`/`Response`, no SDK (bench/lib/replay.ts). */
  side: Side | "floor";
  tool: "mrtr" | "plain";
  sealed: boolean;
  /** Floor only: pass an abort signal with each `Request`, as a client that can cancel does. */
  signal?: boolean;
  measure: MeasureOptions;
}

const URL_IN_PROCESS = new URL("http://localhost/mcp");

/** Child side. */
export async function open(input: unknown): Promise<OpenTarget> {
  const task = input as Task;
  const legs = new LegCounter();
  const posts = { count: 0 };
  const legsPerFlow = task.tool === "plain" ? 1 : 2;
  const tool = task.tool === "plain" ? TOOL_PLAIN : TOOL_MRTR;
  const common = {
    expectedText: EXPECTED_TEXT,
    legsPerFlow,
    legs,
    posts,
    postsPerFlow: legsPerFlow,
    roundTripsPerFlow: legsPerFlow,
  };
  if (task.side === "floor") {
    const { recordOurFlow, webFloorFlow } = await import("../lib/replay.js");
    const recorded = await recordOurFlow();
    return {
      ...common,
      flow: () => webFloorFlow(recorded, { legs, posts }, task.signal === true),
      version: "—",
      close: async () => {},
    };
  }
  if (task.side === "ours") {
    const ours = await import("../lib/ours.js");
    const oursHttp = await import("../lib/ours-http.js");
    const handler = oursHttp.ourHandler(ours.buildOurServer(legs));
    const client = await oursHttp.connectOursHttp(URL_IN_PROCESS, (url, init) => {
      posts.count++;
      return handler(new Request(url, init));
    });
    expectEqual("our negotiated version", client.protocolVersion, MODERN_VERSION);
    return {
      ...common,
      flow: () => ours.ourFlow(client, tool),
      version: client.protocolVersion,
      close: () => client.close(),
    };
  }
  const theirs = await import("../lib/theirs.js");
  const handler = theirs.theirHandler(legs, task.sealed);
  const pair = await theirs.connectTheirHttp(URL_IN_PROCESS, (url, init) => {
    posts.count++;
    return handler.fetch(new Request(url, init));
  });
  const version = theirs.theirVersion(pair.client) ?? "";
  expectEqual("their negotiated version", version, MODERN_VERSION);
  return {
    ...common,
    flow: () => theirs.theirFlow(pair.client, tool),
    version,
    close: async () => {
      await pair.close();
      await handler.close();
    },
  };
}

const VARIANTS = [
  {
    key: "ours-mrtr",
    label: "roundtrip `createHttpHandler`, two-round MRTR, sealed (default)",
    side: "ours",
    tool: "mrtr",
    sealed: true,
  },
  {
    key: "theirs-mrtr",
    label: "official `createMcpHandler`, two-round MRTR, no codec (documented)",
    side: "theirs",
    tool: "mrtr",
    sealed: false,
  },
  {
    key: "theirs-mrtr-sealed",
    label: "official `createMcpHandler`, two-round MRTR, HMAC codec",
    side: "theirs",
    tool: "mrtr",
    sealed: true,
  },
  {
    key: "ours-plain",
    label: "roundtrip `createHttpHandler`, plain tools/call",
    side: "ours",
    tool: "plain",
    sealed: true,
  },
  {
    key: "theirs-plain",
    label: "official `createMcpHandler`, plain tools/call",
    side: "theirs",
    tool: "plain",
    sealed: false,
  },
  {
    key: "floor-signal",
    label:
      "floor: our recorded MRTR bytes through bare `Request`/`Response`, a signal per `Request` (no SDK)",
    side: "floor",
    tool: "mrtr",
    sealed: true,
    signal: true,
  },
  {
    key: "floor-bare",
    label: "floor: the same without a signal (no SDK)",
    side: "floor",
    tool: "mrtr",
    sealed: true,
    signal: false,
  },
] as const;

/** CPU microseconds per flow, per run. */
function cpuMicrosPerFlow(r: ThroughputResult): Summary {
  return perRun(r, (s) => 1e6 / s.flowsPerCpuSecond);
}

export const scenario: Scenario = {
  id: "webhandler",
  title: "In-process web handler (`fetch(Request)`)",
  async run(ctx: RunContext) {
    const measure = measureOptions(ctx, { maxFlows: 10_000 });
    const list = await runGroup(
      ctx,
      VARIANTS.map((v) => ({
        label: v.key,
        task: {
          family: "webhandler",
          side: v.side,
          tool: v.tool,
          sealed: v.sealed,
          signal: "signal" in v ? v.signal : undefined,
          measure,
        },
      })),
    );
    const results = new Map<string, ThroughputResult>(
      VARIANTS.map((v, i) => [v.key, list[i] as ThroughputResult]),
    );
    const get = (key: string) => results.get(key) as ThroughputResult;
    // Against their faster (codec-less, documented) variant: the conservative comparison.
    const rows = [
      higherIsBetter(
        "In-process web handler, two-round MRTR flow (flows/s)",
        get("ours-mrtr"),
        get("theirs-mrtr"),
        10,
        {
          ours: "(sealed)",
          theirs: "(createMcpHandler, no codec)",
        },
      ),
    ];
    const us = (key: string) => cpuMicrosPerFlow(get(key)).median;
    const budget = us("theirs-mrtr") / 10;
    const floor = us("floor-signal");
    rows.push({
      scenario:
        "In-process web handler: platform floor, our recorded MRTR bytes through bare `Request`/`Response`, no SDK (CPU µs per flow)",
      ours: `${fmt(floor, 1)} µs (${fmt(us("floor-bare"), 1)} µs without the signal); roundtrip ${fmt(us("ours-mrtr"), 1)} µs`,
      theirs: `${fmt(us("theirs-mrtr"), 1)} µs`,
      ratio: `10× needs ≤ ${fmt(budget, 1)} µs per flow`,
      target: "— (report)",
      status: "info",
      margin: "",
    });
    const details = [
      `${runText(measure)}. POSTs counted in the client's \`fetch\`. The summary ratio is against their codec-less (faster) variant; against their sealed variant it is ${ratioText(pairedRatio(get("ours-mrtr"), get("theirs-mrtr-sealed")), pairedRatio(get("ours-mrtr"), get("theirs-mrtr-sealed"), "wall"))}; plain single-round calls: ${ratioText(pairedRatio(get("ours-plain"), get("theirs-plain")), pairedRatio(get("ours-plain"), get("theirs-plain"), "wall"))} (${Math.round(flowsPerSecond(get("ours-plain")).median).toLocaleString("en-US")} vs ${Math.round(flowsPerSecond(get("theirs-plain")).median).toLocaleString("en-US")} calls/s).`,
      "",
      ...DETAIL_HEADER,
      ...VARIANTS.map((v) => detailLine(v.label, get(v.key))),
      "",
      `The floor rows replay the two POSTs of one of our flows (recorded once, bench/lib/replay.ts): each request body becomes a \`Request\` that is read and parsed, each recorded answer a \`Response\` that is read and parsed — the objects every in-process web flow builds, with no SDK code. That costs ${fmt(floor, 1)} CPU µs per flow with an abort signal on each \`Request\` (what a client that can cancel passes; undici links it to the request's own signal) and ${fmt(us("floor-bare"), 1)} µs without. Their flow costs ${fmt(us("theirs-mrtr"), 1)} µs, so the 10× target leaves ${fmt(budget, 1)} µs per flow; ours costs ${fmt(us("ours-mrtr"), 1)} µs, i.e. ${fmt(us("ours-mrtr") - floor, 1)} µs above the floor for both our client and our server, sealing included.`,
    ].join("\n");
    return { rows, details, data: Object.fromEntries(results) };
  },
};
