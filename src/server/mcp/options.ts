/** The options of `MCPServer`: its identity, sealing, logging, caching, listen streams, eras and tasks. */
import type { CacheHints, ServerCapabilities } from "../../types/index.js";
import type { Logger, ServerTelemetry } from "../context.js";
import type { ServerEventBus } from "../events.js";
import type { LegacyOptions, LegacyShimOptions } from "../legacy/options.js";
import type { ServerIdentity } from "../server.js";
import type { RequestStateSecurity } from "../state/policy.js";
import type { TaskRunner } from "../tasks/runner.js";

/**
 * Options of `new MCPServer(name, options)`.
 *
 * @example
 * const options: MCPServerOptions = { version: "1.2.0", listChanged: true, websiteUrl: "https://example.com" };
 */
export interface MCPServerOptions extends ServerIdentity {
  instructions?: string;
  /**
   * How `requestState` is sealed. Default: `RequestStateSecurity.ephemeral()` — a key generated at
   * start that never leaves the process. Pass shared `keys` (or a codec) as soon as a retry may
   * reach another instance or survive a restart.
   */
  requestStateSecurity?: RequestStateSecurity;
  logger?: Logger;
  /**
   * Runs first around every handler, sealing included, and hears of the requests refused before
   * (`serverTelemetry()` from `roundtrip-mcp/otel`).
   */
  telemetry?: ServerTelemetry;
  /** Capabilities merged over the derived ones. */
  capabilities?: ServerCapabilities;
  cacheHints?: Partial<Record<string, CacheHints>>;
  /**
   * Serve `subscriptions/listen`: clients may subscribe to list changes (announced automatically
   * when tools, prompts or resources are registered later) and to resource updates
   * (`mcp.server.notifyResourceUpdated(uri)`). Default off.
   */
  listChanged?: boolean;
  /** Most concurrent listen streams, a positive integer (default 100); one more answers -32603. */
  maxSubscriptions?: number;
  /**
   * Most concurrent listen streams of one authenticated principal, a positive integer (default 10);
   * one more answers -32603, so one caller cannot take the slots of `maxSubscriptions` from the
   * others. Anonymous callers only count against `maxSubscriptions`.
   */
  maxSubscriptionsPerPrincipal?: number;
  /**
   * Announce list changes and resource updates to the listen streams of every instance behind one
   * endpoint, through your pub/sub (see `ServerEventBus`). Default: this instance's streams only.
   */
  events?: ServerEventBus;
  /**
   * Serve hand-built `InputRequiredResult`s to 2025 clients too: each embedded request goes out
   * through the back-channel and the handler is re-entered with the answers (write-once handlers).
   * Default off: on a 2025 session such a result answers -32603. Resolvers need no shim.
   */
  legacyShim?: boolean | LegacyShimOptions;
  /** Serving 2025 clients through `initialize` (default on); `false` makes the server modern-only. */
  legacy?: LegacyOptions | false;
  /**
   * Runs tools registered with `task` as tasks (the Tasks extension, advertised as soon as one such
   * tool exists): `serverTasks()` from `roundtrip-mcp/tasks`.
   */
  tasks?: TaskRunner;
}
