/**
 * Loopback Streamable HTTP on 127.0.0.1 (client and server in one process, as in the reference
 * measurements), at concurrency 1 and 16, next to a bare `node:http` JSON echo measured the same
 * way. Ours: `serveHttp(mcpServer)` + `Client.connect(url)`. Theirs: `createMcpHandler(factory)`
 * behind `node:http` through our generic Node↔fetch adapter (`toNodeListener` from
 * src/transports/http/node.ts; `@modelcontextprotocol/node` is not installed), and their
 * `StreamableHTTPClientTransport(url)` on Node's global `fetch`. Our `serveHttp` takes its direct
 * Node path and our client posts through `node:http`; the echo is driven by a `node:http`
 * keep-alive client too, so that the "% of echo" row compares like with like. At concurrency 1,
 * each side of ours also runs against a bare peer that replays the other side's recorded bytes,
 * which splits the gap to the echo between our client and our server.
 */
import { Agent, createServer, request, type Server } from "node:http";
import type { MeasureOptions } from "../lib/measure.js";
import { bareClient, bareServer, listenLoopback, recordOurFlow } from "../lib/replay.js";
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
  type SummaryRow,
  type ThroughputResult,
} from "../lib/scenario.js";
import type { OpenTarget } from "../lib/session.js";
import { fmt, fmtRatio, fmtSummary, type Summary } from "../lib/stats.js";
import { EXPECTED_TEXT, expectEqual, LegCounter, MODERN_VERSION } from "../lib/workload.js";
import { DETAIL_HEADER, detailLine, runText } from "./inmemory.js";

/**
 * `ourServer`: our server with a bare `node:http` client replaying our client's bytes;
 * `ourClient`: our client against a bare server replaying our server's answers (bench/lib/replay.ts).
 */
type Who = "ours" | "theirs" | "echo" | "echoFetch" | "ourServer" | "ourClient";

interface Task {
  family: "http";
  who: Who;
  measure: MeasureOptions;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

const ECHO_BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: {
    name: "provision",
    arguments: { name: "orders" },
    _meta: {
      "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
      "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
    },
  },
});

/** The bare baseline: parse the JSON body, answer a JSON result with Content-Length. */
function echoServer(legs: LegCounter): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      legs.count++;
      const request = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: number };
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: request.id,
        result: { content: [{ type: "text", text: EXPECTED_TEXT }] },
      });
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    });
  });
}

const ECHO_HEADERS = {
  "content-type": "application/json",
  accept: "application/json",
  "content-length": String(Buffer.byteLength(ECHO_BODY)),
};

/**
 * One echo POST through the cheapest client there is (node:http, keep-alive), as our client uses
 * on Node: the echo must not look slow because of its client.
 */
function echoViaHttp(url: URL, agent: Agent): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", agent, headers: ECHO_HEADERS }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve((JSON.parse(Buffer.concat(chunks).toString("utf8")) as { result: unknown }).result),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(ECHO_BODY);
  });
}

/** One echo POST through `fetch`: the baseline as measured before our client left it. */
async function echoViaFetch(url: URL): Promise<unknown> {
  const response = await fetch(url, { method: "POST", headers: ECHO_HEADERS, body: ECHO_BODY });
  return ((await response.json()) as { result: unknown }).result;
}

/** Child side. */
export async function open(input: unknown): Promise<OpenTarget> {
  const task = input as Task;
  const legs = new LegCounter();
  const posts = { count: 0 };
  if (task.who === "echo" || task.who === "echoFetch") {
    const server = echoServer(legs);
    server.on("request", () => posts.count++);
    const url = await listenLoopback(server);
    const agent = new Agent({ keepAlive: true });
    return {
      flow: task.who === "echoFetch" ? () => echoViaFetch(url) : () => echoViaHttp(url, agent),
      expectedText: EXPECTED_TEXT,
      legsPerFlow: 1,
      legs,
      postsPerFlow: 1,
      posts,
      roundTripsPerFlow: 1,
      version: "—",
      close: () => {
        agent.destroy();
        return closeServer(server);
      },
    };
  }
  const common = {
    expectedText: EXPECTED_TEXT,
    legsPerFlow: 2,
    legs,
    postsPerFlow: 2,
    posts,
    roundTripsPerFlow: 2,
  };
  if (task.who === "ourServer" || task.who === "ourClient") return openSplit(task.who, legs, posts, common);
  if (task.who === "ours") {
    const handle = await serveOurs(legs, posts);
    return ourClientOn(handle.url, common, handle.close);
  }
  const theirs = await import("../lib/theirs.js");
  const { toNodeListener } = await import("../../src/transports/http/index.js");
  const handler = theirs.theirHandler(legs, false);
  const listener = toNodeListener((request) => handler.fetch(request));
  const server = createServer((req, res) => {
    posts.count++;
    if ((req.url ?? "/").split("?")[0] === "/mcp") return listener(req, res);
    res.writeHead(404).end();
  });
  const url = await listenLoopback(server);
  const pair = await theirs.connectTheirHttp(url);
  const version = theirs.theirVersion(pair.client) ?? "";
  expectEqual("their negotiated version", version, MODERN_VERSION);
  return {
    ...common,
    flow: () => theirs.theirFlow(pair.client),
    version,
    close: async () => {
      await pair.close();
      await handler.close();
      await closeServer(server);
    },
  };
}

type Common = Omit<OpenTarget, "flow" | "version" | "close">;

/** Our `serveHttp` with the workload's server, counting POSTs. */
async function serveOurs(legs: LegCounter, posts: { count: number }) {
  const ours = await import("../lib/ours.js");
  const { serveHttp } = await import("../../src/transports/http/index.js");
  const handle = await serveHttp(ours.buildOurServer(legs));
  handle.server.on("request", () => posts.count++);
  return handle;
}

/** Our client on `url` as the flow target; `stop` then closes whatever serves the URL. */
async function ourClientOn(url: URL, common: Common, stop: () => Promise<void>): Promise<OpenTarget> {
  const ours = await import("../lib/ours.js");
  const client = await ours.connectOurs(url);
  expectEqual("our negotiated version", client.protocolVersion, MODERN_VERSION);
  return {
    ...common,
    flow: () => ours.ourFlow(client),
    version: client.protocolVersion,
    close: async () => {
      await client.close();
      await stop();
    },
  };
}

/** One side of ours against a bare `node:http` peer that replays the other side's recorded bytes. */
async function openSplit(
  who: "ourServer" | "ourClient",
  legs: LegCounter,
  posts: { count: number },
  common: Common,
): Promise<OpenTarget> {
  const recorded = await recordOurFlow();
  if (who === "ourServer") {
    const handle = await serveOurs(legs, posts);
    const bare = bareClient(recorded, handle.url);
    return {
      ...common,
      flow: bare.flow,
      version: MODERN_VERSION,
      close: async () => {
        bare.agent.destroy();
        await handle.close();
      },
    };
  }
  const server = bareServer(recorded, legs);
  server.on("request", () => posts.count++);
  return ourClientOn(await listenLoopback(server), common, () => closeServer(server));
}

const LABELS: Record<Who, string> = {
  ours: "roundtrip `serveHttp` + `Client.connect(url)`, sealed",
  theirs: "official `createMcpHandler` via `toNodeListener`, no codec",
  echo: 'bare `node:http` JSON echo + `node:http` keep-alive client (1 POST per "flow")',
  echoFetch: "the same echo + `fetch` as its client (the baseline before our client left `fetch`)",
  ourServer: "split: roundtrip `serveHttp` + a bare `node:http` client replaying our client's bytes",
  ourClient:
    "split: roundtrip `Client.connect(url)` + a bare `node:http` server replaying our server's answers",
};

/** CPU µs per POST, per run (`posts` POSTs per flow). */
function cpuMicrosPerPost(r: ThroughputResult, posts: number): Summary {
  return perRun(r, (s) => 1e6 / (s.flowsPerCpuSecond * posts));
}

/** Where the gap to the echo is: CPU per POST of each pairing, and what 60 % of the echo allows. */
function splitTable(
  echo: ThroughputResult,
  ours: ThroughputResult,
  ourServer: ThroughputResult,
  ourClient: ThroughputResult,
): string[] {
  const echoUs = cpuMicrosPerPost(echo, 1).median;
  const line = (label: string, r: ThroughputResult) => {
    const us = cpuMicrosPerPost(r, 2);
    return `| ${label} | ${fmtSummary(us, "µs", 1)} | +${fmt(us.median - echoUs, 1)} µs |`;
  };
  return [
    "Where the gap to the echo is (concurrency 1; client and server share one process, so each row's CPU is both ends):",
    "",
    "| pairing | CPU per POST | over the echo |",
    "| --- | --- | --- |",
    `| bare echo client + bare echo server | ${fmtSummary(cpuMicrosPerPost(echo, 1), "µs", 1)} | — |`,
    line("bare client replaying our client's bytes + roundtrip server", ourServer),
    line("roundtrip client + bare server replaying our server's answers", ourClient),
    line("roundtrip client + roundtrip server", ours),
    "",
    `60 % of the echo's POSTs/s means at most ${fmt(echoUs / 0.6, 1)} CPU µs per POST, ${fmt(echoUs / 0.6 - echoUs, 1)} µs over the echo for both our ends together. The bare peers parse and re-serialise every body, as the echo does; the server's share includes sealing the request state (first POST) and verifying it (retry).`,
  ];
}

export const scenario: Scenario = {
  id: "http",
  title: "Loopback HTTP (127.0.0.1)",
  async run(ctx: RunContext) {
    const rows: SummaryRow[] = [];
    const detail: string[] = [];
    const data: Record<string, ThroughputResult> = {};
    for (const concurrency of [1, 16]) {
      const measure = measureOptions(ctx, { maxFlows: 10_000, concurrency });
      // The split (which side of ours adds what) is measured once, at concurrency 1.
      const WHO: readonly Who[] =
        concurrency === 1
          ? ["ours", "theirs", "echo", "echoFetch", "ourServer", "ourClient"]
          : ["ours", "theirs", "echo", "echoFetch"];
      const list = await runGroup(
        ctx,
        WHO.map((who) => ({ label: `${who} c=${concurrency}`, task: { family: "http", who, measure } })),
      );
      const [ours, theirs, echo, echoFetch, ourServer, ourClient] = list as [
        ThroughputResult,
        ThroughputResult,
        ThroughputResult,
        ThroughputResult,
        ThroughputResult?,
        ThroughputResult?,
      ];
      WHO.forEach((who, i) => {
        data[`${who}-c${concurrency}`] = list[i] as ThroughputResult;
      });
      rows.push(
        higherIsBetter(`Loopback HTTP c=${concurrency}, two-round MRTR flow (flows/s)`, ours, theirs, 3, {
          ours: "(sealed)",
          theirs: "(no codec)",
        }),
      );
      // POSTs/s: 2 per flow for ours, 1 per "flow" for the echo; paired per round like the rest.
      const share = pairedRatio(ours, echo) * 2;
      const wallShare = pairedRatio(ours, echo, "wall") * 2;
      const ourPosts: Summary = perRun(ours, (s) => s.flowsPerSecond * 2);
      const echoPosts = flowsPerSecond(echo);
      rows.push({
        scenario: `Loopback HTTP c=${concurrency}, POSTs/s vs bare \`node:http\` echo`,
        ours: fmtSummary(ourPosts),
        theirs: `echo ${fmtSummary(echoPosts)}`,
        ratio: `${(share * 100).toFixed(0)}% of echo (wall ${(wallShare * 100).toFixed(0)}%)`,
        target: "≥ 60% of echo",
        status: share >= 0.6 ? "PASS" : "MISS",
        margin: share >= 0.6 ? `${fmtRatio(share / 0.6)} over target` : `needs ${fmtRatio(0.6 / share)} more`,
      });
      const fetchShare = pairedRatio(ours, echoFetch) * 2;
      rows.push({
        scenario: `Loopback HTTP c=${concurrency}, POSTs/s vs the echo driven by \`fetch\``,
        ours: fmtSummary(ourPosts),
        theirs: `echo ${fmtSummary(flowsPerSecond(echoFetch))}`,
        ratio: `${(fetchShare * 100).toFixed(0)}% of echo`,
        target: "— (report)",
        status: "info",
        margin: "",
      });
      detail.push(
        `Concurrency ${concurrency}: ${runText(measure)}; POSTs counted by the \`node:http\` server.`,
        "",
        ...DETAIL_HEADER,
        ...WHO.map((who, i) => detailLine(LABELS[who], list[i] as ThroughputResult)),
        "",
        `Issue 7 at c=${concurrency}: roundtrip ${fmtSummary(flowsPerSecond(ours))} flows/s = ${fmtSummary(ourPosts)} POSTs/s; official ${fmtSummary(flowsPerSecond(theirs))} flows/s (roundtrip ${ratioText(pairedRatio(ours, theirs), pairedRatio(ours, theirs, "wall"))}); bare echo ${fmtSummary(echoPosts)} POSTs/s (roundtrip reaches ${(share * 100).toFixed(0)}% of it).`,
        "",
      );
      if (ourServer && ourClient) detail.push(...splitTable(echo, ours, ourServer, ourClient), "");
    }
    return { rows, details: detail.join("\n").trim(), data };
  },
};
