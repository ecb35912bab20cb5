// One instance of a fleet: an MCPServer named "fleet" with a two-round `provision` tool, served over
// Streamable HTTP on 127.0.0.1:$PORT. Run several behind a load balancer (see nginx.conf.template
// and run.ts). Every instance of one fleet has the same name and, through ROUNDTRIP_STATE_KEYS, the
// same key ring, so any instance verifies the requestState a sibling sealed.
//
//   INSTANCE_ID=a PORT=8001 ROUNDTRIP_STATE_KEYS=<key>[,<older key>] node --import tsx examples/fleet/server.ts
//
// Without ROUNDTRIP_STATE_KEYS the instance seals under the default process-local key: fine for one
// process, but a retry that lands on a sibling is rejected with the frozen -32602 (HTTP 400).
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type HttpServerHandle, serveHttp } from "roundtrip-mcp/http";
import {
  elicitationRequest,
  inputRequired,
  inputResponse,
  MCPServer,
  type MiddlewareFunction,
  RequestStateSecurity,
  type ServerEventBus,
  type SharedServerEvent,
} from "roundtrip-mcp/server";
import { serverTasks } from "roundtrip-mcp/tasks";
import * as z from "zod";

/**
 * The result `_meta` key that names the instance which answered. A vendor-prefixed key, as the wire
 * allows for implementation-specific metadata; the frozen requestState error carries none (its body
 * is fixed), and nginx's `X-Fleet-Upstream` header names the instance for those.
 */
export const INSTANCE_META_KEY = "dev.roundtrip-mcp.examples/fleet-instance";

/** Our own question id, kept in the state: the SDK cannot know which question an answer belongs to. */
export const QUESTION_ID = "provision/ask-region/v1";

export const Region = z.object({
  region: z.enum(["eu-west-1", "us-east-1", "ap-south-1"]).describe("Cloud region"),
});

/**
 * The tag an instance puts in front of its task ids ("i1."): a task lives in the memory of the
 * instance that created it, and the load balancer routes `tasks/*` on this prefix of `Mcp-Name`.
 */
export function taskIdPrefix(instanceId: string): string {
  return `${instanceId}.`;
}

/** The final text of an export that ran as a task on `instanceId`. */
export function exportedText(name: string, region: string, instanceId: string): string {
  return `Exported '${name}' to ${region} (task ran on ${instanceId}).`;
}

export const EXPORTED = /^Exported '(.+)' to ([a-z0-9-]+) \(task ran on ([\w.-]+)\)\.$/;

/** Derived from nothing per-call, so every instance renders the very same question. */
export const ASK_REGION = elicitationRequest("Which region should the database live in?", Region);

/** The final text of a flow; `askedBy` sealed round one's state, `answeredBy` unsealed it. */
export function provisionedText(name: string, region: string, askedBy: string, answeredBy: string): string {
  return `Provisioned '${name}' in ${region} (asked by ${askedBy}, answered by ${answeredBy}).`;
}

/** Parses `provisionedText` back (for tests and the runner). */
export const PROVISIONED =
  /^Provisioned '(.+)' in ([a-z0-9-]+) \(asked by ([\w.-]+), answered by ([\w.-]+)\)\.$/;

/**
 * Reads the key ring from `ROUNDTRIP_STATE_KEYS` (comma-separated, each ≥ 32 bytes as UTF-8; the
 * first one seals, all verify). `undefined` when unset or blank: the process-local default applies.
 */
export function stateKeysFromEnv(env: NodeJS.ProcessEnv = process.env): string[] | undefined {
  const keys = (env.ROUNDTRIP_STATE_KEYS ?? "")
    .split(",")
    .map((key) => key.trim())
    .filter((key) => key.length > 0);
  return keys.length === 0 ? undefined : keys;
}

/**
 * The fleet's events bus in this example: the supervisor (run.ts) relays every message an instance
 * sends over its IPC channel to every instance. In production this is your pub/sub (Redis, NATS,
 * Postgres LISTEN); undefined when the process has no IPC channel.
 */
export function ipcEventBus(): ServerEventBus | undefined {
  const send = process.send?.bind(process);
  if (send === undefined) return undefined;
  return {
    // With a callback, a closed channel (the supervisor is gone) rejects this publish, which the SDK
    // logs; without one, Node raises it as an 'error' event on `process` and the instance dies.
    publish: (event) =>
      new Promise<void>((resolve, reject) => {
        send({ fleetEvent: event }, undefined, {}, (error: Error | null) =>
          error ? reject(error) : resolve(),
        );
      }),
    subscribe: (listener) => {
      const onMessage = (message: unknown) => {
        if (typeof message === "object" && message !== null && "fleetEvent" in message) {
          listener((message as { fleetEvent: SharedServerEvent }).fleetEvent);
        }
      };
      process.on("message", onMessage);
      return () => process.off("message", onMessage);
    },
  };
}

export interface FleetInstanceOptions {
  /** Appears in the final text and in every result's `_meta`. */
  instanceId: string;
  /** Shared key ring; omitted: the default process-local key. */
  keys?: readonly string[];
  /** Artificial work per leg, in ms (keeps requests in flight long enough to kill an instance under them). */
  legDelayMs?: number;
  /** The fleet's bus: with one, tasks are shared, so a listen stream on any instance follows them. */
  events?: ServerEventBus;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Builds one instance: same name on every instance (the name is the sealed audience). */
export function createFleetInstance(options: FleetInstanceOptions): MCPServer {
  const { instanceId, keys, legDelayMs = 0, events } = options;
  const mcp = new MCPServer("fleet", {
    version: "1.0.0",
    // Quick polls, and every call of a task-capable tool becomes a task at once, for the test.
    tasks: serverTasks({
      taskIdPrefix: taskIdPrefix(instanceId),
      pollIntervalMs: 20,
      immediateResultMs: 0,
      shareOverEvents: events !== undefined,
    }),
    ...(events === undefined ? {} : { events }),
    ...(keys === undefined ? {} : { requestStateSecurity: new RequestStateSecurity({ keys: [...keys] }) }),
  });

  // Inside the sealing boundary (pushed after it): stamps every result this instance produced.
  const stamp: MiddlewareFunction = async (ctx, next) => {
    const result = await next(ctx);
    const meta = typeof result._meta === "object" && result._meta !== null ? result._meta : {};
    return { ...result, _meta: { ...meta, [INSTANCE_META_KEY]: instanceId } };
  };
  mcp.server.middleware.push(stamp);

  mcp.tool(
    "provision",
    {
      description: "Provision a database. Asks which region to put it in (two rounds).",
      input: z.object({ name: z.string().min(1).max(200) }),
    },
    async ({ name }, ctx) => {
      if (legDelayMs > 0) await sleep(legDelayMs);
      const askAgain = () =>
        inputRequired({
          inputRequests: { region: ASK_REGION },
          requestState: JSON.stringify({ q: QUESTION_ID, askedBy: instanceId }),
        });
      const state = readState(ctx.requestState);
      const answer = inputResponse(ctx, "region");
      if (state === undefined || answer.kind !== "accept") return askAgain();
      const region = Region.safeParse(answer.content);
      if (!region.success) return askAgain();
      return provisionedText(name, region.data.region, state.askedBy, instanceId);
    },
  );
  // A long job: a task for clients that declare the extension. It asks the region mid-task, so the
  // task's tasks/get, tasks/update and tasks/get again must all reach the instance holding it.
  mcp.tool(
    "export",
    {
      description: "Export a database (runs as a task). Asks which region to export to.",
      input: z.object({ name: z.string().min(1).max(200) }),
      task: "optional",
    },
    async ({ name }, ctx) => {
      await sleep(20 + legDelayMs);
      const answer = inputResponse(ctx, "region");
      const region = answer.kind === "accept" ? Region.safeParse(answer.content) : undefined;
      if (!region?.success) return inputRequired({ inputRequests: { region: ASK_REGION } });
      return exportedText(name, region.data.region, instanceId);
    },
  );
  return mcp;
}

/** Plaintext state as this tool wrote it (the boundary already verified the seal). */
function readState(raw: string | undefined): { askedBy: string } | undefined {
  if (raw === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== "object" || parsed === null) return undefined;
    const { q, askedBy } = parsed as { q?: unknown; askedBy?: unknown };
    return q === QUESTION_ID && typeof askedBy === "string" ? { askedBy } : undefined;
  } catch {
    return undefined;
  }
}

/** Starts one instance from the environment: INSTANCE_ID, PORT (0: any free port), ROUNDTRIP_STATE_KEYS. */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<HttpServerHandle> {
  const instanceId = env.INSTANCE_ID ?? `pid-${process.pid}`;
  const keys = stateKeysFromEnv(env);
  const mcp = createFleetInstance({
    instanceId,
    keys,
    legDelayMs: Number(env.FLEET_LEG_DELAY_MS ?? 0) || 0,
    events: ipcEventBus(),
  });
  // Loopback only; behind nginx the Host header is the client's (127.0.0.1:<nginx port>).
  const handle = await serveHttp(mcp, { host: "127.0.0.1", port: Number(env.PORT ?? 0) || 0 });
  // One JSON line on stdout: the supervisor (run.ts) waits for it.
  process.stdout.write(
    `${JSON.stringify({
      event: "ready",
      instance: instanceId,
      url: handle.url.href,
      pid: process.pid,
      keys: keys === undefined ? "process-local" : "shared",
    })}\n`,
  );
  const stop = () => {
    void handle.close().finally(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  return handle;
}

const entry = process.argv[1];
if (entry !== undefined && realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url))) {
  main().catch((error: unknown) => {
    process.stderr.write(`fleet instance failed to start: ${String(error)}\n`);
    process.exit(1);
  });
}
