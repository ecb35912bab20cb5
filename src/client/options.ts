import type { StreamableHttpClientOptions } from "../transports/http/client.js";
import type {
  ClientCapabilities,
  DetailedTask,
  DiscoverResult,
  Implementation,
  InputResponses,
  LoggingLevel,
  LoggingMessageNotificationParams,
} from "../types/index.js";
import { isRecord } from "../types/record.js";
import type { CacheMode, ListCache } from "./cache.js";
import type { ClientCallbacks } from "./callbacks.js";
import type { InputRequiredRound, StateOnlyBackoff } from "./driver.js";
import type { ClientMode } from "./negotiation.js";
import { checkMode } from "./negotiation.js";
import type { CallOptions } from "./session.js";
import type { ClientSessionOptions } from "./session-options.js";

/**
 * A round of the automatic loop, as reported to `onRound`.
 *
 * @example
 * onRound: ({ method, round }) => log(`${method}: round ${round}`)
 */
export interface ClientRound extends InputRequiredRound {
  /** `tools/call`, `prompts/get` or `resources/read`. */
  readonly method: string;
}

/**
 * The HTTP options `Client.connect` gives the transports it opens for a URL.
 *
 * @example
 * await Client.connect(url, { http: { authProvider: () => process.env.MCP_TOKEN } });
 */
export type HttpTargetOptions = Pick<
  StreamableHttpClientOptions,
  "headers" | "fetch" | "authProvider" | "maxResponseBytes"
>;

/**
 * Options of `Client.connect`: the callbacks that answer the server's questions, the loop's
 * bounds, and how the protocol era is chosen.
 *
 * @example
 * const options: ClientOptions = { elicitation, inputRequiredMaxRounds: 5, maxTotalTimeoutMs: 120_000 };
 */
export interface ClientOptions extends ClientCallbacks {
  /**
   * Input rounds one call answers before `InputRequiredRoundsExceededError` (default 10, so at most
   * 11 legs); a call that becomes a task shares the count with the task's rounds.
   */
  inputRequiredMaxRounds?: number;
  /** Bound on a whole auto-loop call: every leg, callback and pause (default: none). */
  maxTotalTimeoutMs?: number;
  /** Progress hook, once per input-required round. */
  onRound?: (round: ClientRound) => void;
  /** Pacing of state-only rounds (default 50 ms doubling to 250 ms). */
  stateOnlyBackoff?: StateOnlyBackoff;
  /** Aborts connecting and era negotiation (e.g. Ctrl-C in a CLI). */
  signal?: AbortSignal;
  /** Default `"auto"`: probe `server/discover`, fall back to the 2025 handshake on legacy evidence. */
  mode?: ClientMode;
  /**
   * With `"auto"`: remember, for this process, the URLs and commands that turned out to be 2025
   * servers, and skip their probe next time (default true; re-probed if the handshake fails).
   */
  eraCache?: boolean;
  /**
   * For a URL target: the extra `headers`, the `fetch` and the bearer-token `authProvider` (e.g. an
   * `OAuthClientProvider`) of every HTTP request, on Streamable HTTP and on the HTTP+SSE fallback
   * alike. A `TypeError` with any other target: a transport carries its own options.
   */
  http?: HttpTargetOptions;
  /** With a version pin only: the DiscoverResult to adopt instead of probing (ignored otherwise). */
  priorDiscover?: DiscoverResult;
  clientInfo?: Implementation;
  /**
   * Capabilities declared beyond what the callbacks imply, e.g. `{ elicitation: { form: {} } }` for
   * a process that drives the manual loop and hands the questions to another process.
   */
  clientCapabilities?: ClientCapabilities;
  logLevel?: LoggingLevel;
  /** Per-request timeout in milliseconds (default 60 000). Each leg of a flow gets its own. */
  timeoutMs?: number;
  /** Log messages of requests that set no `onLog` of their own. */
  onLog?: (params: LoggingMessageNotificationParams) => void;
  /**
   * Client-side warnings (default stderr): a listener that threw, a listed tool dropped for invalid
   * `x-mcp-header`, what the transport reports (e.g. an SSE event that is not JSON).
   */
  onWarning?: ClientSessionOptions["onWarning"];
  /**
   * Extra `_meta` keys for every request, computed as it goes out: for tracing, the active span's
   * `traceparent` (and `tracestate`, `baggage`). Each leg of a multi-round call asks again.
   */
  requestMeta?: ClientSessionOptions["requestMeta"];
  /** Observes every request, each leg of a flow included (telemetry: `clientTelemetry()` from `roundtrip-mcp/otel`). */
  instrument?: ClientSessionOptions["instrument"];
  /** The result cache honouring `ttlMs` (default on: a private `ListCache`; `false` turns it off). */
  cache?: boolean | ListCache;
  /**
   * Declare the Tasks extension (`io.modelcontextprotocol/tasks`) on every request, so a server may
   * run a `tools/call` as a task; `callTool` then drives it to its end (default false).
   */
  tasks?: boolean;
}

/**
 * Options of `callTool`, `getPrompt` and `readResource` on `Client` (the automatic loop).
 *
 * @example
 * await client.callTool("provision", args, { inputResponses, requestState, signal });
 */
export interface AutoCallOptions extends CallOptions {
  /** Seeds the first request: answers to a persisted round, under its keys. */
  inputResponses?: InputResponses;
  /** Seeds the first request: the persisted round's `requestState`, byte-exact. */
  requestState?: string;
  /** Overrides the client's cap for this call. */
  inputRequiredMaxRounds?: number;
  /** Overrides the client's total time bound for this call. */
  maxTotalTimeoutMs?: number;
  /** Overrides the client's pacing of state-only rounds for this call. */
  stateOnlyBackoff?: StateOnlyBackoff;
  /**
   * When the server runs the call as a task: told of the task when it is created (persist
   * `taskId` to resume with `waitForTask`) and on every change of its status or `statusMessage`.
   */
  onTask?: (task: DetailedTask) => void;
}

/**
 * Options of `Client.waitForTask`. `timeoutMs`, `onLog` and `meta` apply to each `tasks/*`
 * request; `signal` and `maxTotalTimeoutMs` bound the whole wait (and cancel the task).
 *
 * @example
 * await client.waitForTask(taskId, { maxTotalTimeoutMs: 600_000, onTask: (task) => show(task) });
 */
export interface WaitForTaskOptions extends CallOptions {
  /** Overrides the client's total time bound for this wait. */
  maxTotalTimeoutMs?: number;
  /** Overrides the client's cap on the task's input rounds for this wait. */
  inputRequiredMaxRounds?: number;
  /** Told of the task on the first poll and on every change of its status or `statusMessage`. */
  onTask?: (task: DetailedTask) => void;
}

/**
 * Options of a cacheable call.
 *
 * @example
 * await client.listPrompts(undefined, { cacheMode: "bypass" });
 */
export interface CachedCallOptions extends CallOptions {
  /** `"use"` (default) serves fresh entries and stores; `"refresh"` stores without serving; `"bypass"` neither. */
  cacheMode?: CacheMode;
}

/**
 * Options of `Client.readResource`: the automatic loop plus the cache.
 *
 * @example
 * await client.readResource("x://reports/1", { cacheMode: "refresh", maxTotalTimeoutMs: 30_000 });
 */
export interface ReadResourceOptions extends AutoCallOptions {
  cacheMode?: CacheMode;
}

/** Refuses bad options before anything is connected. */
export function checkOptions(options: ClientOptions): ClientMode {
  const mode = checkMode(options.mode ?? "auto");
  checkRounds(options.inputRequiredMaxRounds);
  checkTotal(options.maxTotalTimeoutMs);
  checkBackoff(options.stateOnlyBackoff);
  return mode;
}

export function checkRounds(rounds: number | undefined): void {
  if (rounds !== undefined && !(Number.isInteger(rounds) && rounds >= 0)) {
    throw new RangeError(`inputRequiredMaxRounds must be a non-negative integer, got ${rounds}`);
  }
}

export function checkTotal(ms: number | undefined): void {
  if (ms !== undefined && !(Number.isFinite(ms) && ms > 0)) {
    throw new RangeError(`maxTotalTimeoutMs must be a positive number of milliseconds, got ${ms}`);
  }
}

export function checkBackoff(backoff: StateOnlyBackoff | undefined): void {
  for (const key of ["initialMs", "capMs"] as const) {
    const ms = backoff?.[key];
    // NaN would make every pause 1 ms: a "not yet" server would be asked as fast as it answers.
    if (ms !== undefined && !(Number.isFinite(ms) && ms >= 0)) {
      throw new RangeError(
        `stateOnlyBackoff.${key} must be a non-negative number of milliseconds, got ${ms}`,
      );
    }
  }
}

/** Capabilities from the callbacks, with the explicit extras merged one level deep. */
export function mergeCapabilities(
  base: ClientCapabilities,
  extra: ClientCapabilities = {},
): ClientCapabilities {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = merged[key];
    merged[key] = isRecord(current) && isRecord(value) ? { ...current, ...value } : (value as unknown);
  }
  return merged as ClientCapabilities;
}
