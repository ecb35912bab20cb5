/** The options of the low-level `Server`: its identity, handlers, listen streams, eras and telemetry. */
import type { CacheHints, Icon, ServerCapabilities } from "../types/index.js";
import type { Logger, ServerTelemetry } from "./context.js";
import type { ServerEventBus } from "./events.js";
import type { ServerHandlers } from "./handlers.js";
import type { LegacyOptions } from "./legacy/options.js";
import type { PrincipalBinder } from "./state/principal.js";

/**
 * What a server says about itself in `serverInfo`, besides its name.
 *
 * @example
 * const identity: ServerIdentity = { version: "2.0.0", title: "Weather", websiteUrl: "https://example.com" };
 */
export interface ServerIdentity {
  version?: string;
  title?: string;
  /** What it is for, its home page, its icons: shown with its name by clients. */
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
}

/** Options of a low-level server, besides its handlers. */
export interface ServerOptions extends ServerHandlers, ServerIdentity {
  instructions?: string;
  /** Where rejections and handler crashes are logged. Defaults to stderr. */
  logger?: Logger;
  /** Capabilities merged over the ones derived from the registered handlers (e.g. `{ logging: {} }`). */
  capabilities?: ServerCapabilities;
  /**
   * Serve `subscriptions/listen` and advertise `listChanged` (and `resources.subscribe`) for the
   * registered kinds. Publish changes with `notifyToolsListChanged()` and friends. Default off.
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
   * Announce list changes and resource updates through this bus, so the listen streams of every
   * instance behind one endpoint hear them (default: this instance's streams only).
   */
  events?: ServerEventBus;
  /** Cache hints per cacheable method when a handler gives none (default `ttlMs: 0, cacheScope: "private"`). */
  cacheHints?: Partial<Record<string, CacheHints>>;
  /**
   * Serving 2025-11-25 (and older) clients through `initialize` next to modern ones (default on).
   * `false` makes the server modern-only; see `LegacyOptions` for the shim and the timeouts.
   */
  legacy?: LegacyOptions | false;
  /**
   * Runs first around every handler, and hears of the requests refused before the chain (see
   * `ServerTelemetry`; `serverTelemetry()` from `roundtrip-mcp/otel`).
   */
  telemetry?: ServerTelemetry;
  /**
   * Who a caller is, for what belongs to one: tasks, listen-stream quotas, 2025 HTTP sessions and
   * HTTP+SSE streams (for those it sees only `authInfo` and `http`). Default
   * `authenticatedPrincipal`; `MCPServer` passes its `requestStateSecurity`'s `bindPrincipal`.
   * Pass the one your `RequestStateBoundary` uses, so the caller its states belong to is the same.
   *
   * @example
   * new Server("s", { principal: (ctx) => ctx.http?.header("x-user") ?? undefined });
   */
  principal?: PrincipalBinder;
}
