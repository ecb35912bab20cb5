// Starts N fleet instances (real child processes) behind a private nginx and runs K two-round
// `provision` flows through it with our Client. Used by test/fleet/fleet.test.ts; also by hand:
//
//   npx tsx examples/fleet/run.ts                        # 3 instances, shared keys, 500 flows
//   npx tsx examples/fleet/run.ts --keys process-local   # watch cross-instance retries get rejected
//   npx tsx examples/fleet/run.ts --kill-after 150       # SIGKILL one instance after 150 flows
//   options: --instances N --flows K --concurrency C --leg-delay-ms MS --mode auto|manual
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Client, type ClientSession } from "roundtrip-mcp/client";
import { HttpStatusError, HttpTransportError } from "roundtrip-mcp/http";
import {
  type CallToolResult,
  type ElicitResult,
  type InputRequiredResult,
  type InputResponses,
  isInputRequiredResult,
  McpError,
} from "roundtrip-mcp/types";
import { findNginx, type NginxHandle, startNginx, waitForExit } from "./nginx.js";
import { INSTANCE_META_KEY, PROVISIONED, taskIdPrefix } from "./server.js";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const SERVER_ENTRY = fileURLToPath(new URL("./server.ts", import.meta.url));

/** What every flow answers to the region question. */
export const REGION = "eu-west-1";
export const ANSWER: ElicitResult = { action: "accept", content: { region: REGION } };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// Processes

/** Every child this module spawned, so that nothing outlives the run even if a caller forgets. */
const spawned = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of spawned)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

export interface FleetInstance {
  readonly id: string;
  readonly port: number;
  readonly url: string;
  readonly child: ChildProcess;
  /** What the instance logged (rejections are logged with their real reason). */
  stderr(): string;
  alive(): boolean;
}

/** SIGTERM (graceful close), then SIGKILL if it has not exited after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 2_000): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGTERM");
    if (!(await waitForExit(child, graceMs))) {
      child.kill("SIGKILL");
      await waitForExit(child, graceMs);
    }
  }
  spawned.delete(child);
}

/**
 * Spawns `node --import tsx examples/fleet/server.ts` on a free loopback port and waits (bounded)
 * for its ready line. `keys` undefined: the process-local default key.
 */
export async function startInstance(
  id: string,
  options: { keys?: readonly string[]; legDelayMs?: number; startTimeoutMs?: number } = {},
): Promise<FleetInstance> {
  const env: NodeJS.ProcessEnv = { ...process.env, INSTANCE_ID: id, PORT: "0" };
  delete env.ROUNDTRIP_STATE_KEYS;
  if (options.keys !== undefined) env.ROUNDTRIP_STATE_KEYS = options.keys.join(",");
  if (options.legDelayMs !== undefined) env.FLEET_LEG_DELAY_MS = String(options.legDelayMs);
  const child = spawn(process.execPath, ["--import", "tsx", SERVER_ENTRY], {
    cwd: REPO_ROOT,
    env,
    // The IPC channel is the fleet's events bus (startFleet relays it).
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  spawned.add(child);
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    if (stderr.length < 256 * 1024) stderr += chunk;
  });
  let stdout = "";
  child.stdout?.setEncoding("utf8");
  try {
    const ready = await new Promise<{ url: string }>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`instance ${id} not ready after ${options.startTimeoutMs ?? 20_000} ms`)),
        options.startTimeoutMs ?? 20_000,
      );
      child.stdout?.on("data", (chunk: string) => {
        stdout += chunk;
        const line = stdout.split("\n").find((candidate) => candidate.includes('"event":"ready"'));
        if (line === undefined) return;
        clearTimeout(timer);
        resolve(JSON.parse(line) as { url: string });
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`instance ${id} exited (${code ?? signal}) before it was ready:\n${stderr}`));
      });
      child.once("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    const url = new URL(ready.url);
    return {
      id,
      port: Number(url.port),
      url: ready.url,
      child,
      stderr: () => stderr,
      alive: () => child.exitCode === null && child.signalCode === null,
    };
  } catch (error) {
    await stopChild(child, 500);
    throw error;
  }
}

export interface Fleet {
  readonly nginx: NginxHandle;
  /** The MCP endpoint through nginx. */
  readonly url: string;
  readonly instances: readonly FleetInstance[];
  /** Instance id for an upstream address as nginx logs it (`127.0.0.1:PORT`). */
  instanceAt(address: string): string | undefined;
  /** Kills one instance (default SIGKILL: no goodbye, connections reset) and waits for it to exit. */
  kill(id: string, signal?: NodeJS.Signals): Promise<void>;
  /** Stops nginx and every instance; safe to call twice. */
  stop(): Promise<void>;
}

export interface FleetOptions {
  instances?: number;
  /** Shared key ring; undefined: each instance uses its own process-local key. */
  keys?: readonly string[];
  legDelayMs?: number;
  nginxBin?: string;
}

/** A fresh key ring of one 32-byte key (base64url: 43 characters). */
export function newKeyRing(): string[] {
  return [randomBytes(32).toString("base64url")];
}

/** Starts the instances (in parallel), then nginx over their ports. Cleans up if anything fails. */
export async function startFleet(options: FleetOptions = {}): Promise<Fleet> {
  const count = options.instances ?? 3;
  const ids = Array.from({ length: count }, (_, index) => `i${index + 1}`);
  const started = await Promise.allSettled(
    ids.map((id) => startInstance(id, { keys: options.keys, legDelayMs: options.legDelayMs })),
  );
  const instances = started.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
  const failed = started.find((outcome) => outcome.status === "rejected");
  if (failed !== undefined) {
    await Promise.all(instances.map((instance) => stopChild(instance.child)));
    throw failed.reason;
  }
  let nginx: NginxHandle;
  try {
    nginx = await startNginx({
      upstreams: instances.map((instance) => `127.0.0.1:${instance.port}`),
      taskPrefixes: instances.map((instance) => taskIdPrefix(instance.id)),
      bin: options.nginxBin,
    });
  } catch (error) {
    await Promise.all(instances.map((instance) => stopChild(instance.child)));
    throw error;
  }
  spawned.add(nginx.process);
  relayEvents(instances);
  const byAddress = new Map(instances.map((instance) => [`127.0.0.1:${instance.port}`, instance.id]));
  let stopped = false;
  return {
    nginx,
    url: nginx.url,
    instances,
    instanceAt: (address) => byAddress.get(address),
    kill: async (id, signal = "SIGKILL") => {
      const instance = instances.find((candidate) => candidate.id === id);
      if (!instance) throw new Error(`no instance ${id}`);
      instance.child.kill(signal);
      await waitForExit(instance.child, 5_000);
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await Promise.allSettled([
        nginx.stop().finally(() => spawned.delete(nginx.process)),
        ...instances.map((instance) => stopChild(instance.child)),
      ]);
    },
  };
}

/**
 * The example's events bus: whatever an instance publishes on its IPC channel goes to every live
 * instance, the publisher included (as `ServerEventBus` requires).
 */
function relayEvents(instances: readonly FleetInstance[]): void {
  for (const from of instances) {
    from.child.on("message", (message: unknown) => {
      for (const to of instances) {
        if (to.child.connected) to.child.send(message as object, () => {});
      }
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Flows

/** One finished flow, with who served each leg. */
export interface FlowResult {
  readonly name: string;
  readonly text: string;
  /** The instance that answered round one and sealed its state (from the final text). */
  readonly askedBy: string;
  /** The instance that unsealed that state and finished the flow (from the final text). */
  readonly answeredBy: string;
  /** Legs re-issued after a failure that reached no server or lost its answer (manual flows). */
  readonly legRetries: number;
  /** Why each re-issued leg failed, e.g. "HTTP 502". */
  readonly legFailures: readonly string[];
}

/** A client for the fleet: answers the region question, nothing else; `tasks` declares the extension. */
export function connectClient(url: string, tasks = false): Promise<Client> {
  return Client.connect(url, {
    elicitation: async () => ANSWER,
    clientInfo: { name: "fleet-runner", version: "1.0.0" },
    tasks,
  });
}

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === "text" ? first.text : JSON.stringify(result.content);
}

/** The instance stamp of a result (see `INSTANCE_META_KEY`). */
export function instanceOf(result: CallToolResult | InputRequiredResult): string | undefined {
  const stamp = result._meta?.[INSTANCE_META_KEY];
  return typeof stamp === "string" ? stamp : undefined;
}

/** Checks a final result: the right text for this flow, consistent with the result's own stamp. */
export function checkFinal(
  name: string,
  result: CallToolResult,
  legRetries = 0,
  legFailures: string[] = [],
): FlowResult {
  const text = textOf(result);
  const match = PROVISIONED.exec(text);
  if (result.isError || !match || match[1] !== name || match[2] !== REGION) {
    throw new Error(`flow ${name}: unexpected result ${JSON.stringify(result)}`);
  }
  const askedBy = match[3] as string;
  const answeredBy = match[4] as string;
  const stamp = instanceOf(result);
  if (stamp !== answeredBy) throw new Error(`flow ${name}: text says ${answeredBy}, _meta says ${stamp}`);
  return { name, text, askedBy, answeredBy, legRetries, legFailures };
}

/** A flow through the automatic loop: `client.callTool` asks, answers and retries by itself. */
export async function autoFlow(client: Client, name: string): Promise<FlowResult> {
  return checkFinal(name, await client.callTool("provision", { name }));
}

/**
 * True for a leg that failed without a JSON-RPC answer and is safe to send again as it is: the
 * request reached no instance (connection refused/reset before the response, surfaced by nginx as
 * 502, or a network error), or the instance died before answering. Re-issuing is safe here because
 * each leg is a complete request whose sealed state stays valid on every instance of the fleet, and
 * because this tool is idempotent (a real tool with side effects would also need an idempotency key).
 * A JSON-RPC error (e.g. the frozen -32602) is an answer: never retried at the leg level.
 */
export function isRetryableLegFailure(error: unknown): boolean {
  if (error instanceof McpError) return false;
  if (error instanceof HttpStatusError)
    return error.status === 502 || error.status === 503 || error.status === 504;
  return error instanceof HttpTransportError;
}

function describeFailure(error: unknown): string {
  if (error instanceof HttpStatusError) return `HTTP ${error.status}`;
  if (error instanceof HttpTransportError) return "transport";
  return error instanceof Error ? error.name : "unknown";
}

/**
 * A flow through the manual loop (`allowInputRequired`), re-issuing a leg that failed before any
 * instance answered — what the SDK's client does not do for `tools/call` (see the report in
 * test/fleet/fleet.test.ts). Bounded: `maxLegAttempts` per leg, with a short growing pause.
 */
export async function manualFlow(
  session: ClientSession,
  name: string,
  options: { maxLegAttempts?: number } = {},
): Promise<FlowResult> {
  const maxAttempts = options.maxLegAttempts ?? 5;
  const failures: string[] = [];
  const leg = async (inputResponses?: InputResponses, requestState?: string) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await session.callTool(
          "provision",
          { name },
          { inputResponses, requestState, allowInputRequired: true },
        );
      } catch (error) {
        if (!isRetryableLegFailure(error) || attempt >= maxAttempts) throw error;
        failures.push(describeFailure(error));
        await sleep(10 * attempt);
      }
    }
  };
  let result = await leg();
  for (let round = 0; isInputRequiredResult(result); round++) {
    if (round >= 3) throw new Error(`flow ${name}: still input_required after ${round} rounds`);
    const responses: InputResponses = {};
    for (const key of Object.keys(result.inputRequests ?? {})) responses[key] = ANSWER;
    result = await leg(responses, result.requestState);
  }
  return checkFinal(name, result, failures.length, failures);
}

/** Runs `count` flows, at most `concurrency` at once; `onSettled` sees the running total. */
export async function runFlows<T = FlowResult>(options: {
  count: number;
  concurrency: number;
  flow: (index: number) => Promise<T>;
  onSettled?: (settled: number) => void;
}): Promise<{ results: T[]; errors: { index: number; error: unknown }[]; durationMs: number }> {
  const started = performance.now();
  const results: T[] = [];
  const errors: { index: number; error: unknown }[] = [];
  let next = 0;
  let settled = 0;
  const worker = async () => {
    while (next < options.count) {
      const index = next++;
      try {
        results.push(await options.flow(index));
      } catch (error) {
        errors.push({ index, error });
      }
      options.onSettled?.(++settled);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, options.count) }, worker));
  return { results, errors, durationMs: performance.now() - started };
}

/** Flow name of index i (unique, so a mixed-up answer would show). */
export const flowName = (prefix: string, index: number) => `${prefix}-${String(index).padStart(4, "0")}`;

export interface FlowSummary {
  completed: number;
  /** Flows whose two rounds were answered by different instances. */
  crossInstance: number;
  sameInstance: number;
  /** "asked->answered": count. */
  pairs: Record<string, number>;
  legRetries: number;
  legFailures: Record<string, number>;
}

export function summarize(results: readonly FlowResult[]): FlowSummary {
  const pairs: Record<string, number> = {};
  const legFailures: Record<string, number> = {};
  let cross = 0;
  let retries = 0;
  for (const result of results) {
    const key = `${result.askedBy}->${result.answeredBy}`;
    pairs[key] = (pairs[key] ?? 0) + 1;
    if (result.askedBy !== result.answeredBy) cross++;
    retries += result.legRetries;
    for (const failure of result.legFailures) legFailures[failure] = (legFailures[failure] ?? 0) + 1;
  }
  const sorted = Object.fromEntries(Object.entries(pairs).sort(([a], [b]) => a.localeCompare(b)));
  return {
    completed: results.length,
    crossInstance: cross,
    sameInstance: results.length - cross,
    pairs: sorted,
    legRetries: retries,
    legFailures,
  };
}

// ---------------------------------------------------------------------------------------------
// By hand

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      instances: { type: "string", default: "3" },
      flows: { type: "string", default: "500" },
      concurrency: { type: "string", default: "100" },
      keys: { type: "string", default: "shared" },
      "kill-after": { type: "string" },
      "leg-delay-ms": { type: "string", default: "0" },
      mode: { type: "string", default: "auto" },
    },
  });
  const bounded = (raw: string | undefined, max: number) => Math.min(Math.max(1, Number(raw) || 1), max);
  const flows = bounded(values.flows, 10_000);
  const killAfter = values["kill-after"] === undefined ? undefined : bounded(values["kill-after"], flows);
  if (!findNginx()) throw new Error("nginx not found: install it (apt-get install nginx) or set NGINX_BIN");
  const fleet = await startFleet({
    instances: bounded(values.instances, 16),
    keys: values.keys === "process-local" ? undefined : newKeyRing(),
    legDelayMs: Number(values["leg-delay-ms"]) || 0,
  });
  try {
    const client = await connectClient(fleet.url);
    const victim = fleet.instances[1]?.id ?? "i1";
    let killing: Promise<void> | undefined;
    const run = await runFlows({
      count: flows,
      concurrency: bounded(values.concurrency, 1_000),
      flow: (index) =>
        values.mode === "manual" || killAfter !== undefined
          ? manualFlow(client.session, flowName("db", index))
          : autoFlow(client, flowName("db", index)),
      onSettled: (settled) => {
        if (killAfter !== undefined && settled === killAfter) killing = fleet.kill(victim);
      },
    });
    await killing;
    await client.close();
    const log = await fleet.nginx.settledAccessLog();
    const report = {
      nginx: fleet.url,
      instances: fleet.instances.map((instance) => ({
        id: instance.id,
        port: instance.port,
        alive: instance.alive(),
      })),
      killed: killAfter === undefined ? undefined : { instance: victim, afterFlows: killAfter },
      durationMs: Math.round(run.durationMs),
      failed: run.errors.length,
      firstErrors: run.errors.slice(0, 5).map(({ index, error }) => `${index}: ${String(error)}`),
      ...summarize(run.results),
      nginxRequests: log.length,
      nginxMovedOn: log.filter((entry) => entry.upstreams.length > 1).length,
      nginxStatuses: log.reduce<Record<string, number>>((acc, entry) => {
        acc[entry.status] = (acc[entry.status] ?? 0) + 1;
        return acc;
      }, {}),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    if (run.errors.length > 0) process.exitCode = 1;
  } finally {
    await fleet.stop();
  }
}

const entry = process.argv[1];
if (entry !== undefined && realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url))) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
