/**
 * The client side of roundtrip: `Client` (automatic multi-round-trip loop, era negotiation,
 * callbacks, cache, tasks), `ClientSession` (manual loop), `ClientSessionGroup` (several servers
 * as one), the pure input-required and task drivers, and errors.
 */
export { type CacheMode, ListCache, type ListCacheOptions, MAX_CACHE_TTL_MS } from "./cache.js";
export {
  type ClientCallbacks,
  type ClientRequestContext,
  capabilitiesFor,
  dispatchInputRequest,
  type ElicitationCallback,
  type ElicitationCapabilities,
  type ListRootsCallback,
  type SamplingCallback,
} from "./callbacks.js";
export { Client } from "./client.js";
export {
  DEFAULT_INPUT_REQUIRED_MAX_ROUNDS,
  type DispatchInputRequest,
  type InputRequiredLoopOptions,
  type InputRequiredRound,
  type RetryInputRequired,
  runInputRequiredLoop,
  STATE_ONLY_BACKOFF_CAP_MS,
  STATE_ONLY_BACKOFF_INITIAL_MS,
  type StateOnlyBackoff,
} from "./driver.js";
export { clearEraCache } from "./era-cache.js";
export {
  InputRequiredError,
  InputRequiredRoundsExceededError,
  InvalidInputResponseError,
  isResourceNotFound,
  NoMutualVersionError,
  TaskCancelledError,
  TaskCreatedError,
} from "./errors.js";
export { ClientSessionGroup, type ClientSessionGroupOptions } from "./group.js";
export type { ComponentKind, ComponentNameHook } from "./group-contribution.js";
export type { LegacyConnect, LegacyConnectContext } from "./legacy.js";
export type { ListenOptions, Subscription } from "./listen.js";
export type { ClientMode, NegotiatedEra } from "./negotiation.js";
export type {
  AutoCallOptions,
  CachedCallOptions,
  ClientOptions,
  ClientRound,
  HttpTargetOptions,
  ReadResourceOptions,
  WaitForTaskOptions,
} from "./options.js";
export { type ListAllOptions, listAll } from "./pages.js";
export {
  type CallOptions,
  ClientSession,
  type ClientSessionOptions,
  DEFAULT_CLIENT_INFO,
  type InputCallOptions,
  type RequestInstrument,
  type RequestObservation,
  type RequestSession,
  type ToolCallOptions,
} from "./session.js";
export type { ClientTarget, StdioTarget } from "./targets.js";
export { driveTask, TASK_POLL_FALLBACK_MS, TASK_POLL_MAX_MS, TASK_POLL_MIN_MS } from "./tasks.js";
