/**
 * The engine behind `Client`: a cached list read, and a multi-round-trip flow — the first leg,
 * the input-required rounds answered with the callbacks, and a task driven to its end — under one
 * scope (the caller's signal, the total budget).
 */

import { linkSignals } from "../shared/linked-signal.js";
import { isCreateTaskResult, isInputRequiredResult } from "../types/core.js";
import type { CreateTaskResult, InputRequiredResult, ResultObject } from "../types/index.js";
import type { CacheMode, ListCache } from "./cache.js";
import { type DispatchInputRequest, runInputRequiredLoop, type StateOnlyBackoff } from "./driver.js";
import { flowScope, legOptions } from "./flow.js";
import {
  type CachedCallOptions,
  type ClientRound,
  checkBackoff,
  checkRounds,
  checkTotal,
  type ReadResourceOptions,
} from "./options.js";
import type { ClientSession, InputCallOptions } from "./session.js";
import { driveTask } from "./tasks.js";

/** One leg of a flow. Only `tools/call` can answer with a task (the session refuses it elsewhere). */
export type Leg<R> = (
  options: InputCallOptions & { allowInputRequired: true; allowTask: true },
) => Promise<R | InputRequiredResult | CreateTaskResult>;

/** A task handle as the input-required loop carries it (its results are `ResultObject`s). */
type Handle = CreateTaskResult & ResultObject;

/**
 * What every flow of one client shares, fixed when it connects.
 *
 * @example
 * const host: FlowHost = { session, modern: true, cache: () => cache, partition, maxRounds: 10, ... };
 */
export interface FlowHost {
  readonly session: ClientSession;
  /** Results are cached on the 2026-07-28 wire only (2025 results carry no hints). */
  readonly modern: boolean;
  /**
   * The cache, when enabled, for this call: first drops this client's partition when the
   * authorization changed since the last call (a new sign-in may be another user).
   */
  cache(): ListCache | undefined;
  /** This client's cache partition: one authorization context, never shared. */
  readonly partition: string;
  readonly maxRounds: number;
  readonly maxTotalTimeoutMs: number | undefined;
  readonly stateOnlyBackoff: StateOnlyBackoff | undefined;
  readonly onRound: ((round: ClientRound) => void) | undefined;
  /** Answers an embedded request with the callbacks: for input-required rounds and tasks alike. */
  readonly dispatch: DispatchInputRequest;
  /** Whether a task's driver follows its notifications (the server advertises the extension). */
  readonly followTasks: boolean;
}

/**
 * A list read served from the cache while fresh (`cacheMode` "use"), refreshed, or bypassed.
 *
 * @example
 * await cachedRead(host, "tools/list", cursor, options, () => host.session.listTools(cursor, options));
 */
export async function cachedRead<R extends ResultObject>(
  host: FlowHost,
  method: string,
  paramsKey: string | undefined,
  options: CachedCallOptions,
  fetch: () => Promise<R>,
): Promise<R> {
  const mode: CacheMode = options.cacheMode ?? "use";
  const cache = host.modern && mode !== "bypass" ? host.cache() : undefined;
  if (cache && mode === "use") {
    const hit = cache.get(host.partition, method, paramsKey);
    if (hit) return hit as R;
  }
  const since = cache?.invalidations;
  const result = await fetch();
  cache?.set(host.partition, method, paramsKey, result, since);
  return result;
}

/**
 * A call's options for the task driver: it follows the task's notifications where the server has
 * tasks, and answers at most the call's `inputRequiredMaxRounds` (else the client's) input rounds.
 *
 * @example
 * await driveTask(taskId, host.session, host.dispatch, signal, driveOptions(host, options));
 */
export function driveOptions<O extends { inputRequiredMaxRounds?: number }>(
  host: FlowHost,
  options: O,
  roundsUsed = 0,
): O & { follow: boolean; maxRounds: number; roundsUsed: number } {
  const maxRounds = options.inputRequiredMaxRounds ?? host.maxRounds;
  return Object.assign({}, options, { follow: host.followTasks, maxRounds, roundsUsed });
}

/**
 * Runs one flow to its terminal result (see the module comment). A `cacheKey` makes it a cached
 * read; seeded flows are neither served from nor written to the cache (a spec MUST).
 *
 * @example
 * await runFlow(host, "prompts/get", options, (leg) => host.session.getPrompt(name, args, leg));
 */
export async function runFlow<R extends ResultObject>(
  host: FlowHost,
  method: string,
  options: ReadResourceOptions,
  leg: Leg<R>,
  cacheKey?: string,
): Promise<R> {
  checkRounds(options.inputRequiredMaxRounds);
  checkTotal(options.maxTotalTimeoutMs);
  checkBackoff(options.stateOnlyBackoff);
  const seeded = options.inputResponses !== undefined || options.requestState !== undefined;
  const mode: CacheMode = options.cacheMode ?? "use";
  const cache =
    cacheKey !== undefined && !seeded && mode !== "bypass" && host.modern ? host.cache() : undefined;
  if (cache && mode === "use") {
    const hit = cache.get(host.partition, method, cacheKey as string);
    if (hit) return hit as R;
  }
  const base = {
    timeoutMs: options.timeoutMs,
    resetTimeoutOnProgress: options.resetTimeoutOnProgress,
    maxTimeoutMs: options.maxTimeoutMs,
    onProgress: options.onProgress,
    onLog: options.onLog,
    meta: options.meta,
    allowInputRequired: true as const,
    allowTask: true as const,
  };
  const total = options.maxTotalTimeoutMs ?? host.maxTotalTimeoutMs;
  // Inline rather than through `scoped`: this is every call's path, and a closure plus an extra
  // promise per flow shows in the in-memory benchmark.
  const scope = flowScope(method, options.signal, total);
  const since = cache?.invalidations;
  const signal = scope.signal;
  try {
    const first = await leg(legOptions(base, signal, options.inputResponses, options.requestState));
    if (!isInputRequiredResult(first) && !isCreateTaskResult(first)) {
      cache?.set(host.partition, method, cacheKey as string, first, since);
      return first;
    }
    // The warm entry is superseded by a flow that needs input (or runs as a task): never cached.
    cache?.delete(host.partition, method, cacheKey as string);
    const onRound = host.onRound;
    // Each answered round ends in one retry: the task driver gets what is left of the cap.
    let retries = 0;
    let outcome = first as R | Handle;
    if (isInputRequiredResult(first)) {
      // Closing the client ends a round waiting on a callback: no leg is in flight to fail it.
      const rounds = linkSignals(host.session.connection.closedSignal, signal);
      try {
        outcome = await runInputRequiredLoop<R | Handle>(first, {
          maxRounds: options.inputRequiredMaxRounds ?? host.maxRounds,
          stateOnlyBackoff: options.stateOnlyBackoff ?? host.stateOnlyBackoff,
          signal: rounds.signal,
          onRound: onRound ? (round) => onRound({ ...round, method }) : undefined,
          dispatch: host.dispatch,
          retry: (inputResponses, requestState, legSignal) => {
            retries++;
            return leg(legOptions(base, legSignal, inputResponses, requestState)) as Promise<
              R | Handle | InputRequiredResult
            >;
          },
        });
      } finally {
        rounds.dispose();
      }
    }
    // Only tools/call answers with a task, and its R is CallToolResult: the task's own result.
    if (!isCreateTaskResult(outcome)) return outcome;
    return (await driveTask(
      outcome,
      host.session,
      host.dispatch,
      signal,
      driveOptions(host, options, retries),
    )) as R;
  } catch (error) {
    throw scope.failure(error);
  } finally {
    scope.dispose();
  }
}
