import { ClientSession, type ClientSessionOptions } from "../../../src/client/session.js";
import type { Logger, ServerRequestContext } from "../../../src/server/context.js";
import { silentLogger } from "../../../src/server/logger.js";
import { Context, MCPServer, type MCPServerOptions } from "../../../src/server/mcp/index.js";
import type { DispatchContext, Dispatcher } from "../../../src/shared/dispatch.js";
import { MemoryTransport, type MemoryTransportOptions } from "../../../src/transports/memory.js";
import type { ClientCapabilities, JSONRPCNotification, JSONRPCResponse } from "../../../src/types/index.js";
import { meta, request } from "../../helpers.js";

/** The `_meta` stamp every result of a server named `name` (version "") carries. */
export function stamp(name: string, version = ""): Record<string, unknown> {
  return { "io.modelcontextprotocol/serverInfo": { name, version } };
}

/** A quiet MCPServer (no stderr noise). */
export function quietServer(name = "srv", options: MCPServerOptions = {}): MCPServer {
  return new MCPServer(name, { logger: silentLogger, ...options });
}

/** Dispatches one modern request and returns the response. */
export function send(
  target: Dispatcher,
  method: string,
  params: Record<string, unknown> = {},
  capabilities: ClientCapabilities = {},
  context?: DispatchContext,
): Promise<JSONRPCResponse | undefined> {
  return target.dispatch(request(method, params, capabilities), context);
}

/** A modern request whose `_meta` carries extra keys (progressToken, logLevel, …). */
export function requestWithMeta(
  method: string,
  params: Record<string, unknown>,
  extraMeta: Record<string, unknown>,
  capabilities: ClientCapabilities = {},
) {
  const base = request(method, params, capabilities);
  return { ...base, params: { ...params, _meta: meta(capabilities, extraMeta) } };
}

/** Collects the request-scoped notifications a dispatch emits. */
export function notificationSink(): DispatchContext & { seen: JSONRPCNotification[] } {
  const seen: JSONRPCNotification[] = [];
  return {
    seen,
    notify: (notification) => {
      seen.push(notification);
    },
  };
}

/** A client session over an in-memory wire to `target`. */
export function connect(
  target: Dispatcher,
  options: ClientSessionOptions = {},
  transport: MemoryTransportOptions = {},
): Promise<ClientSession> {
  return ClientSession.connect(new MemoryTransport(target, transport), options);
}

/** Lines a recording logger captured at `level`, without the level prefix. */
export function linesAt(logger: Logger & { lines: string[] }, level: "warn" | "error"): string[] {
  return logger.lines.filter((l) => l.startsWith(`${level}: `)).map((l) => l.slice(level.length + 2));
}

/** A promise with its resolver exposed. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** A handler Context whose round carries `inputResponses` (nothing else is used by the helpers). */
export function contextWith(inputResponses?: Record<string, unknown>): Context {
  const params: Record<string, unknown> = { name: "t" };
  if (inputResponses !== undefined) params.inputResponses = inputResponses;
  const request: ServerRequestContext = {
    method: "tools/call",
    requestId: 1,
    params,
    protocolVersion: "2026-07-28",
    clientCapabilities: {},
    clientInfo: undefined,
    logLevel: undefined,
    progressToken: undefined,
    authInfo: undefined,
    signal: new AbortController().signal,
    logger: silentLogger,
    notify: async () => {},
  };
  return new Context(request, async () => {
    throw new Error("no nested reads here");
  });
}
