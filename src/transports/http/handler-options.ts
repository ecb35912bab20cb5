/** The options of `createHttpHandler` (and so of `serveHttp` and `toNodeListener`). */
import type { Logger } from "../../server/context.js";
import type { ResponseMode } from "./exchange.js";
import type { AuthOptions, OriginGuardOptions } from "./guards.js";
import type { LegacyHttpOptions } from "./legacy-sessions.js";
import type { ToolInputSchemaLookup } from "./validate.js";

/**
 * Options of `createHttpHandler`.
 *
 * @example
 * const options: HttpHandlerOptions = { localhostOnly: true, keepAliveMs: 10_000, logger: console };
 */
export interface HttpHandlerOptions extends OriginGuardOptions, AuthOptions {
  /** Largest accepted body, in bytes: a positive integer (default 4 MiB); larger gets 413. */
  maxBodyBytes?: number;
  /** Interval of `: keep-alive` comments on open SSE responses (default 15 000 ms; 0 disables). */
  keepAliveMs?: number;
  /**
   * The `inputSchema` of a tool, to validate `Mcp-Param-*` headers against its `x-mcp-header`s.
   * Defaults to the dispatcher's own `toolInputSchema(name)` when it has one (`MCPServer` does); the
   * -32020 is then raised by that server once it finds the tool visible to the caller. A lookup
   * given here is enforced by the endpoint itself, before dispatch.
   */
  toolInputSchema?: ToolInputSchemaLookup;
  /** Where transport-level failures are reported (never with credentials). Default: silent. */
  logger?: Pick<Logger, "warn" | "error">;
  /**
   * 2025-11-25 clients on the same endpoint (when the dispatcher serves them, as `Server` and
   * `MCPServer` do): session limits, or `false` for a modern-only endpoint.
   */
  legacy?: LegacyHttpOptions | false;
  /**
   * How 2026-07-28 answers are framed (default `"auto"`, see `ResponseMode`). `"sse"` keeps long
   * calls alive through proxies that cut idle connections; `"json"` suits hosts that buffer
   * streams, and drops progress and logs sent before the result (`subscriptions/listen` still
   * streams). 2025 sessions always use `"auto"`: their back-channel needs the stream.
   */
  responseMode?: ResponseMode;
}
