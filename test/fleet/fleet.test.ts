// Issue 7, point 4: three real server processes ("fleet", one name) behind a real nginx.
//   1. Shared key ring: 500 concurrent two-round flows through nginx with our Client all complete,
//      and many of them had their two rounds answered by different instances.
//   2. Default process-local keys: a retry that lands on another instance gets exactly the frozen
//      -32602 with HTTP 400, on the wire.
//   3. SIGKILL of one instance mid-run: no flow is lost (nginx moves refused connections on; legs
//      whose request died with the instance are re-issued by the flow harness).
//   4. Tasks: every tasks/* request reaches the instance that holds its task, and a listen stream on
//      any instance follows a task held by another (tasks shared over the fleet's IPC bus).
// Needs the nginx binary (Debian's package; .ci/run installs it). Skipped only when it is absent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AccessLogEntry, findNginx } from "../../examples/fleet/nginx.js";
import {
  ANSWER,
  autoFlow,
  connectClient,
  type Fleet,
  type FlowResult,
  flowName,
  instanceOf,
  manualFlow,
  newKeyRing,
  runFlows,
  startFleet,
  summarize,
} from "../../examples/fleet/run.js";
import { EXPORTED, INSTANCE_META_KEY, PROVISIONED, taskIdPrefix } from "../../examples/fleet/server.js";
import type { Client } from "../../src/client/client.js";
import { McpError, TASKS_EXTENSION } from "../../src/types/index.js";
import { meta } from "../helpers.js";
import { sseMessages } from "../legacy/http-helpers.js";
import { post, rpc } from "../transports/http/helpers.js";

const nginxBin = findNginx();
const hasNginx = nginxBin !== undefined;
const NO_NGINX =
  "skipped: no nginx binary found (looked at $NGINX_BIN, $PATH, /usr/sbin/nginx and other usual places); " +
  "install it with `apt-get install -y nginx` (.ci/run does) or set NGINX_BIN";
const label = (title: string) => (hasNginx ? title : `${title} [${NO_NGINX}]`);
if (!hasNginx) console.warn(`[fleet] ${NO_NGINX}`);

const FLOWS = 500;
const TASKS = 60;
/** The exact error object a cross-instance retry gets under process-local keys. */
const FROZEN_ERROR =
  '{"code":-32602,"message":"Invalid or expired requestState","data":{"reason":"invalid_request_state"}}';

const report = (what: string, value: unknown) => console.info(`[fleet] ${what}: ${JSON.stringify(value)}`);

// ---------------------------------------------------------------------------------------------
// Raw wire legs (fetch), to see statuses, headers and exact bodies.

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
  "io.modelcontextprotocol/clientInfo": { name: "fleet-wire", version: "1.0.0" },
};

interface WireAnswer {
  id: number;
  status: number;
  contentType: string | null;
  /** nginx's `X-Fleet-Upstream` (absent when the leg went straight to an instance). */
  upstream: string | null;
  text: string;
  body: {
    id?: number;
    result?: {
      resultType?: string;
      requestState?: string;
      content?: { text?: string }[];
      _meta?: Record<string, unknown>;
    };
    error?: unknown;
  };
}

let wireIds = 1000;

async function wireLeg(
  url: string,
  name: string,
  retry?: { requestState: string | undefined },
): Promise<WireAnswer> {
  const id = ++wireIds;
  const params: Record<string, unknown> = { name: "provision", arguments: { name } };
  if (retry) {
    params.inputResponses = { region: ANSWER };
    params.requestState = retry.requestState;
  }
  params._meta = ENVELOPE;
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "provision",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params }),
  });
  const text = await response.text();
  return {
    id,
    status: response.status,
    contentType: response.headers.get("content-type"),
    upstream: response.headers.get("x-fleet-upstream"),
    text,
    body: JSON.parse(text) as WireAnswer["body"],
  };
}

function expectFrozen(answer: WireAnswer): void {
  expect(answer.status).toBe(400);
  expect(answer.contentType).toMatch(/^application\/json/);
  expect(answer.text).toBe(`{"jsonrpc":"2.0","id":${answer.id},"error":${FROZEN_ERROR}}`);
  expect(JSON.stringify(answer.body.error)).toBe(FROZEN_ERROR);
}

function expectInputRequired(answer: WireAnswer): string {
  expect(answer.status).toBe(200);
  expect(answer.body.result?.resultType).toBe("input_required");
  const state = answer.body.result?.requestState;
  expect(typeof state).toBe("string");
  return state as string;
}

/** The legs of flows only (a client's connect adds a server/discover line of its own). */
function toolCalls(log: AccessLogEntry[]): AccessLogEntry[] {
  return log.filter((entry) => entry.method === "tools/call");
}

function wireInstance(answer: WireAnswer): unknown {
  return answer.body.result?._meta?.[INSTANCE_META_KEY];
}

// ---------------------------------------------------------------------------------------------

// In CI the fleet test must run, never skip: .ci/run installs nginx.
if (!hasNginx && process.env.CI !== undefined) {
  it("nginx is installed in CI (.ci/run installs it)", () => {
    expect.fail(`CI must run the fleet test, but ${NO_NGINX}`);
  });
}

describe("a fleet of 3 instances sharing one key ring, behind nginx", () => {
  let fleet: Fleet | undefined;
  const clients: Client[] = [];

  beforeAll(async () => {
    if (!hasNginx) return;
    // 20 ms of work per leg keeps requests in flight long enough to kill an instance under them.
    fleet = await startFleet({ instances: 3, keys: newKeyRing(), legDelayMs: 20, nginxBin });
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await fleet?.stop();
  });

  it.skipIf(!hasNginx)(
    label(`${FLOWS} concurrent two-round flows all complete, many with their rounds on different instances`),
    async () => {
      const { url } = fleet as Fleet;
      const client = await connectClient(url);
      clients.push(client);
      const before = (await (fleet as Fleet).nginx.settledAccessLog()).length;
      const run = await runFlows({
        count: FLOWS,
        concurrency: FLOWS, // all in flight at once
        flow: (index) => autoFlow(client, flowName("shared", index)),
      });
      expect(run.errors.map(({ error }) => String(error))).toEqual([]);
      expect(run.results).toHaveLength(FLOWS);
      // Every flow got its own, right text (autoFlow checked name, region and the _meta stamp).
      expect(new Set(run.results.map((result) => result.name)).size).toBe(FLOWS);
      const summary = summarize(run.results);
      report("shared keys, 500 flows", { durationMs: Math.round(run.durationMs), ...summary });
      // The point of the exercise: state sealed by one process, verified and finished by another.
      expect(summary.crossInstance).toBeGreaterThan(0);
      const ids = (fleet as Fleet).instances.map((instance) => instance.id);
      for (const id of ids) {
        expect(run.results.some((result) => result.askedBy === id)).toBe(true);
        expect(run.results.some((result) => result.answeredBy === id)).toBe(true);
      }
      // nginx saw both legs of every flow, all answered 200 by an instance, none moved on.
      const log = toolCalls((await (fleet as Fleet).nginx.settledAccessLog()).slice(before));
      expect(log).toHaveLength(2 * FLOWS);
      expect(log.every((entry) => entry.status === 200 && entry.upstreams.length === 1)).toBe(true);
    },
    60_000,
  );

  it.skipIf(!hasNginx)(
    label("on the wire: round one on instance 1, its retry on instance 2, answered 200"),
    async () => {
      const [first, second] = (fleet as Fleet).instances;
      const leg1 = await wireLeg(first?.url as string, "wire-shared");
      const state = expectInputRequired(leg1);
      expect(wireInstance(leg1)).toBe(first?.id);
      const leg2 = await wireLeg(second?.url as string, "wire-shared", { requestState: state });
      expect(leg2.status).toBe(200);
      expect(leg2.body.result?.resultType).toBe("complete");
      expect(leg2.body.result?.content?.[0]?.text).toBe(
        `Provisioned 'wire-shared' in eu-west-1 (asked by ${first?.id}, answered by ${second?.id}).`,
      );
      expect(wireInstance(leg2)).toBe(second?.id);
    },
  );

  it.skipIf(!hasNginx)(
    label(`${TASKS} concurrent tasks: every tasks/* request reaches the instance that holds its task`),
    async () => {
      const current = fleet as Fleet;
      const client = await connectClient(current.url, true);
      clients.push(client);
      const before = (await current.nginx.settledAccessLog()).length;
      const taskIds = new Map<string, string>();
      const run = await runFlows({
        count: TASKS,
        concurrency: TASKS,
        flow: async (index) => {
          const name = flowName("task", index);
          const result = await client.callTool(
            "export",
            { name },
            { onTask: (task) => void taskIds.set(name, task.taskId) },
          );
          const text = result.content[0]?.type === "text" ? result.content[0].text : "";
          return { name, text };
        },
      });
      expect(run.errors.map(({ error }) => String(error))).toEqual([]);
      const ranOn = new Set<string>();
      for (const { name, text } of run.results) {
        const match = EXPORTED.exec(text);
        expect(match?.slice(1, 3)).toEqual([name, "eu-west-1"]);
        const instance = match?.[3] as string;
        ranOn.add(instance);
        // The task id carries the tag of the instance that created it, and ran it to the end.
        expect(taskIds.get(name)?.startsWith(taskIdPrefix(instance))).toBe(true);
      }
      // tools/call itself is round robin: the tasks were spread over the fleet.
      expect(ranOn.size).toBe(current.instances.length);
      const log = (await current.nginx.settledAccessLog()).slice(before);
      const taskRequests = log.filter((entry) => entry.method.startsWith("tasks/"));
      report(`${TASKS} tasks`, {
        durationMs: Math.round(run.durationMs),
        tasksRequests: taskRequests.length,
        byMethod: Object.fromEntries(
          ["tasks/get", "tasks/update"].map((m) => [m, taskRequests.filter((e) => e.method === m).length]),
        ),
      });
      // At least: the question seen, the answer sent, the result read, for every task.
      expect(taskRequests.length).toBeGreaterThanOrEqual(3 * TASKS);
      for (const entry of taskRequests) {
        expect(entry.status).toBe(200);
        expect(entry.upstreams).toHaveLength(1);
        expect(`${current.instanceAt(entry.upstreams[0] as string)}.`).toBe(`${entry.name.split(".")[0]}.`);
      }
      // Why the routing matters: the same task asked of another instance is unknown there.
      const [taskId] = [...taskIds.values()];
      const owner = current.instances.find((instance) => taskId?.startsWith(taskIdPrefix(instance.id)));
      const other = current.instances.find((instance) => instance !== owner);
      const get = rpc("tasks/get", { taskId }, 7);
      get.params._meta = meta({ extensions: { [TASKS_EXTENSION]: {} } });
      const elsewhere = await post(new URL(other?.url as string), get);
      expect(await elsewhere.json()).toEqual({
        jsonrpc: "2.0",
        id: 7,
        error: { code: -32602, message: "Failed to retrieve task: Task not found" },
      });
    },
    60_000,
  );

  it.skipIf(!hasNginx)(
    label("a listen stream on any instance follows a task held by another (tasks shared over the bus)"),
    async () => {
      const current = fleet as Fleet;
      const tasks = meta({ elicitation: { form: {} }, extensions: { [TASKS_EXTENSION]: {} } });
      const call = rpc("tools/call", { name: "export", arguments: { name: "shared" } }, 90);
      call.params._meta = tasks;
      const created = (await (await post(new URL(current.url), call)).json()) as {
        result: { resultType: string; taskId: string };
      };
      expect(created.result.resultType).toBe("task");
      const taskId = created.result.taskId;
      const owner = current.instances.find((instance) => taskId.startsWith(taskIdPrefix(instance.id)));
      expect(owner).toBeDefined();

      // Straight to each instance, as a round-robin balancer may send it: every one acknowledges.
      const streams = await Promise.all(
        current.instances.map(async (instance) => {
          for (let attempt = 0; ; attempt++) {
            const controller = new AbortController();
            const listen = rpc("subscriptions/listen", { notifications: { taskIds: [taskId] } }, 91);
            listen.params._meta = tasks;
            const response = await post(new URL(instance.url), listen, {}, { signal: controller.signal });
            const events = sseMessages(response);
            const ack = (await events.next()).value as {
              params?: { notifications?: { taskIds?: string[] } };
            };
            if (ack?.params?.notifications?.taskIds?.includes(taskId))
              return { instance, events, controller };
            controller.abort();
            // The bus is asynchronous: the creation may not have reached this instance yet.
            if (attempt >= 20) throw new Error(`${instance.id} never followed ${taskId}`);
            await new Promise((resolve) => setTimeout(resolve, 25));
          }
        }),
      );

      // The task asks for the region; answer it through nginx (routed to the owner on Mcp-Name).
      const get = rpc("tasks/get", { taskId }, 92);
      get.params._meta = tasks;
      let asked: { inputRequests?: Record<string, unknown>; status?: string } = {};
      for (let attempt = 0; attempt < 100 && asked.status !== "input_required"; attempt++) {
        asked = ((await (await post(new URL(current.url), get)).json()) as { result: typeof asked }).result;
        if (asked.status !== "input_required") await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const [key] = Object.keys(asked.inputRequests ?? {});
      const update = rpc("tasks/update", { taskId, inputResponses: { [key as string]: ANSWER } }, 93);
      update.params._meta = tasks;
      expect((await post(new URL(current.url), update)).status).toBe(200);

      // Every stream, the owner's and its siblings', carries the task to its end.
      const finals = await Promise.all(
        streams.map(async ({ instance, events, controller }) => {
          for (;;) {
            const next = await events.next();
            if (next.done) throw new Error(`${instance.id}'s stream ended early`);
            const message = next.value as { method?: string; params?: { status?: string; result?: unknown } };
            if (message.method === "notifications/tasks" && message.params?.status === "completed") {
              controller.abort();
              return { instance: instance.id, result: message.params.result };
            }
          }
        }),
      );
      const text = `Exported 'shared' to eu-west-1 (task ran on ${owner?.id}).`;
      expect(finals.map((final) => final.instance)).toEqual(current.instances.map((instance) => instance.id));
      for (const final of finals) {
        // The owner's result exactly, whichever instance's stream carried it.
        expect(final.result).toEqual(finals[0]?.result);
        expect(final.result).toMatchObject({ resultType: "complete", content: [{ type: "text", text }] });
      }
    },
    30_000,
  );

  it.skipIf(!hasNginx)(
    label(`SIGKILL of one instance mid-run: all ${FLOWS} flows still complete`),
    async () => {
      const current = fleet as Fleet;
      const victim = "i2";
      const victimAddress = `127.0.0.1:${current.instances.find((instance) => instance.id === victim)?.port}`;
      const client = await connectClient(current.url);
      clients.push(client);
      const before = (await current.nginx.settledAccessLog()).length;
      const startedAt = performance.now();
      let killing: Promise<void> | undefined;
      let killSentAt = 0;
      let victimGoneAt = Number.POSITIVE_INFINITY;
      const settledAt = new Map<string, number>();
      const run = await runFlows({
        count: FLOWS,
        concurrency: 100,
        // The manual loop, re-issuing a leg whose request died with the instance (HTTP 502 from
        // nginx): our Client's automatic loop does not retry a tools/call leg by itself.
        flow: async (index) => {
          const result = await manualFlow(client.session, flowName("kill", index), { maxLegAttempts: 5 });
          settledAt.set(result.name, performance.now());
          return result;
        },
        onSettled: (settled) => {
          if (settled !== 150) return;
          killSentAt = performance.now();
          killing = current.kill(victim, "SIGKILL").then(() => {
            victimGoneAt = performance.now();
          });
        },
      });
      await killing;
      expect(killing).toBeDefined();
      expect(current.instances.find((instance) => instance.id === victim)?.alive()).toBe(false);

      // Nothing lost: every flow completed with its own right text.
      expect(run.errors.map(({ error }) => String(error))).toEqual([]);
      expect(run.results).toHaveLength(FLOWS);
      expect(new Set(run.results.map((result) => result.name)).size).toBe(FLOWS);
      const summary = summarize(run.results);
      // Flows whose state was sealed by the victim and finished by a survivor.
      const orphaned = run.results.filter(
        (result: FlowResult) => result.askedBy === victim && result.answeredBy !== victim,
      ).length;
      const finishedAfterDeath = run.results.filter(
        (result) => (settledAt.get(result.name) ?? 0) > victimGoneAt,
      );
      const log = toolCalls((await current.nginx.settledAccessLog()).slice(before));
      const nginx = {
        requests: log.length,
        status502: log.filter((entry) => entry.status === 502).length,
        movedOn: log.filter((entry) => entry.upstreams.length > 1).length,
      };
      report("kill mid-run (manual loop + leg retry)", {
        durationMs: Math.round(run.durationMs),
        killSentAtMs: Math.round(killSentAt - startedAt),
        flowsFinishedAfterDeath: finishedAfterDeath.length,
        ...summary,
        askedByVictimFinishedElsewhere: orphaned,
        nginx,
      });
      // Legs whose request the victim had received but never answered came back as 502 (nginx does
      // not resend a POST it already sent) and were re-issued by the harness; nothing else failed.
      expect(summary.legRetries).toBeGreaterThan(0);
      expect(
        Object.keys(summary.legFailures).every((kind) => kind === "HTTP 502" || kind === "transport"),
      ).toBe(true);
      expect(nginx.status502).toBe(summary.legFailures["HTTP 502"] ?? 0);
      // State sealed by the dead instance was still good on its siblings.
      expect(orphaned).toBeGreaterThan(0);
      // A flow that finished after the victim was gone was finished by a survivor.
      expect(finishedAfterDeath.length).toBeGreaterThan(0);
      expect(finishedAfterDeath.every((result) => result.answeredBy !== victim)).toBe(true);

      // Once nginx's fail_timeout (1 s) has passed it probes the dead instance again with real
      // traffic: the connection is refused before anything was sent, so nginx moves the POST on to
      // a live instance by itself (proxy_next_upstream error), and the client sees nothing at all.
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const mark = (await current.nginx.settledAccessLog()).length;
      const plain = await runFlows({
        count: 12,
        concurrency: 1,
        flow: (index) => autoFlow(client, flowName("after-kill", index)),
      });
      expect(plain.errors.map(({ error }) => String(error))).toEqual([]);
      const later = toolCalls((await current.nginx.settledAccessLog()).slice(mark));
      const movedOn = later.filter((entry) => entry.upstreams.length > 1);
      report("after the kill, plain automatic loop", {
        flows: plain.results.length,
        nginxMovedOn: movedOn.map((entry) => ({
          upstreams: entry.upstreams,
          statuses: entry.upstreamStatuses,
        })),
      });
      expect(later).toHaveLength(2 * plain.results.length);
      expect(later.every((entry) => entry.status === 200)).toBe(true);
      expect(movedOn.length).toBeGreaterThan(0);
      expect(movedOn.every((entry) => entry.upstreams[0] === victimAddress)).toBe(true);
      expect(plain.results.every((result) => result.askedBy !== victim && result.answeredBy !== victim)).toBe(
        true,
      );
    },
    60_000,
  );
});

describe("a fleet of 3 instances with the default process-local keys, behind nginx", () => {
  let fleet: Fleet | undefined;
  const clients: Client[] = [];

  beforeAll(async () => {
    if (!hasNginx) return;
    fleet = await startFleet({ instances: 3, nginxBin });
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await fleet?.stop();
  });

  it.skipIf(!hasNginx)(
    label("on the wire: a retry on another instance gets exactly the frozen -32602 with HTTP 400"),
    async () => {
      const [first, second] = (fleet as Fleet).instances;
      const leg1 = await wireLeg(first?.url as string, "wire-local");
      const state = expectInputRequired(leg1);
      expectFrozen(await wireLeg(second?.url as string, "wire-local", { requestState: state }));
      // The same state is fine on the instance that sealed it.
      const home = await wireLeg(first?.url as string, "wire-local", { requestState: state });
      expect(home.status).toBe(200);
      expect(home.body.result?.content?.[0]?.text).toBe(
        `Provisioned 'wire-local' in eu-west-1 (asked by ${first?.id}, answered by ${first?.id}).`,
      );
      // The rejecting instance logged the real reason (never the token).
      expect(second?.stderr()).toMatch(/requestState rejected on tools\/call: \S+/);
      expect(second?.stderr()).not.toContain(state);
    },
  );

  it.skipIf(!hasNginx)(
    label("through nginx: every cross-instance retry is rejected, every same-instance retry completes"),
    async () => {
      const current = fleet as Fleet;
      const flows = 60;
      const run = await runFlows({
        count: flows,
        concurrency: 6, // interleaved, so that some retries come back to the instance that asked
        flow: async (index) => {
          const name = flowName("local", index);
          const leg1 = await wireLeg(current.url, name);
          const state = expectInputRequired(leg1);
          const leg2 = await wireLeg(current.url, name, { requestState: state });
          return {
            asked: current.instanceAt(leg1.upstream ?? ""),
            stamped: wireInstance(leg1),
            answered: current.instanceAt(leg2.upstream ?? ""),
            leg2,
          };
        },
      });
      expect(run.errors.map(({ error }) => String(error))).toEqual([]);
      const outcomes = run.results;
      // nginx's header and the instance's own stamp name the same instance.
      for (const outcome of outcomes) expect(outcome.asked).toBe(outcome.stamped);
      expect(outcomes).toHaveLength(flows);
      const cross = outcomes.filter((outcome) => outcome.asked !== outcome.answered);
      const same = outcomes.filter((outcome) => outcome.asked === outcome.answered);
      report("process-local keys through nginx (raw wire)", {
        flows,
        crossInstanceRejected: cross.length,
        sameInstanceCompleted: same.length,
      });
      expect(cross.length).toBeGreaterThan(0);
      for (const { leg2 } of cross) expectFrozen(leg2);
      for (const { leg2, asked } of same) {
        expect(leg2.status).toBe(200);
        const match = PROVISIONED.exec(leg2.body.result?.content?.[0]?.text ?? "");
        expect(match?.[3]).toBe(asked);
        expect(match?.[4]).toBe(asked);
      }
    },
    30_000,
  );

  it.skipIf(!hasNginx)(
    label(
      "our Client reports it as McpError(-32602); restarting a sequential flow never helps under round robin",
    ),
    async () => {
      const client = await connectClient((fleet as Fleet).url);
      clients.push(client);
      // Sequential legs through one nginx worker go A, B, C, A, ...: round two never meets round one's
      // instance, so a flow restarted from the beginning (what the seed says a client must do) is
      // rejected again, every time. Process-local keys cannot work behind a round-robin balancer.
      const errors: unknown[] = [];
      for (let attempt = 0; attempt < 5; attempt++) {
        errors.push(await autoFlow(client, "sequential").catch((error: unknown) => error));
      }
      for (const error of errors) {
        expect(error).toBeInstanceOf(McpError);
        const mcpError = error as McpError;
        expect({ code: mcpError.code, message: mcpError.message, data: mcpError.data }).toEqual(
          JSON.parse(FROZEN_ERROR),
        );
      }
      // Round one alone still works (and says who asked): only the cross-instance retry fails.
      const step = await client.session.callTool(
        "provision",
        { name: "sequential" },
        { allowInputRequired: true },
      );
      expect(step.resultType).toBe("input_required");
      expect(instanceOf(step)).toMatch(/^i[123]$/);
    },
    30_000,
  );
});
