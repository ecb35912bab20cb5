/**
 * `node:http` without a framework: `toNodeListener` (any fetch handler; a `createHttpHandler`
 * endpoint serves POSTs directly, without `Request`/`Response`) and `serveHttp` on top of it.
 */
import { createServer, type IncomingMessage, type Server, ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Dispatcher } from "../../shared/dispatch.js";
import { timerDelay } from "../../shared/timers.js";
import { ErrorCode } from "../../types/core.js";
import type { Reply } from "./body.js";
import {
  closeHttpSessions,
  createHttpHandler,
  endListenStreams,
  endpointOf,
  type FetchHandler,
  type HttpHandlerOptions,
} from "./handler.js";
import { isLoopbackHostname } from "./loopback.js";
import { toWebRequest, writeReply, writeWebResponse } from "./node-adapter.js";
import { onConnectionGone, onResponseOver } from "./node-gone.js";
import { NodeIncoming, servesDirectly } from "./node-incoming.js";
import { resourceMetadataReply, resourceMetadataUrl } from "./protected-resource.js";

/**
 * A `node:http` request listener (also usable as Express/Connect middleware's final handler).
 *
 * @example
 * const listener: NodeListener = toNodeListener(createHttpHandler(server));
 * expressApp.post("/mcp", listener);
 */
export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

function failed(res: ServerResponse): void {
  if (!res.headersSent) {
    res.writeHead(500, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        jsonrpc: "2.0",
        id: null,
        error: { code: ErrorCode.InternalError, message: "Internal error" },
      }),
    );
  } else res.destroy();
}

/** Through `Request`/`Response`: what any fetch handler gets. */
function webListener(handler: FetchHandler): NodeListener {
  return (req, res) => {
    const controller = new AbortController();
    onConnectionGone(req, res, () => controller.abort());
    let request: Request;
    try {
      request = toWebRequest(req, controller.signal);
    } catch {
      res.writeHead(400, { "content-type": "application/json", connection: "close" });
      res.end(
        JSON.stringify({
          jsonrpc: "2.0",
          id: null,
          error: { code: ErrorCode.InvalidRequest, message: "Invalid Request: malformed HTTP request" },
        }),
      );
      return;
    }
    handler(request)
      .then((response) => writeWebResponse(response, req, res))
      .catch(() => failed(res));
  };
}

/**
 * Adapts a fetch handler to `node:http` (Express and Connect accept it too). The client closing
 * the connection aborts the `Request`'s signal, which cancels the dispatch. A handler made by
 * `createHttpHandler` answers POSTs straight from the IncomingMessage, with the same answers.
 *
 * @example
 * const listener = toNodeListener(createHttpHandler(server));
 * http.createServer((req, res) => (req.url === "/mcp" ? listener(req, res) : res.end())).listen(3000);
 */
export function toNodeListener(handler: FetchHandler): NodeListener {
  const viaWeb = webListener(handler);
  const endpoint = endpointOf(handler);
  if (!endpoint) return viaWeb;
  return (req, res) => {
    // `new Request` refuses CONNECT and TRACE: the endpoint answers them (405) without one.
    if (!servesDirectly(req) && req.method !== "CONNECT" && req.method !== "TRACE") return viaWeb(req, res);
    endpoint(new NodeIncoming(req, res)).then(
      (reply) => writeOrFail(reply, req, res),
      () => failed(res),
    );
  };
}

/** Writes the reply; any failure, synchronous or not, ends in `failed` (one promise fewer than a `.catch`). */
function writeOrFail(reply: Reply, req: IncomingMessage, res: ServerResponse): void {
  try {
    writeReply(reply, req, res)?.catch(() => failed(res));
  } catch {
    failed(res);
  }
}

/**
 * Options of `serveHttp`: where to listen, plus every handler option.
 *
 * @example
 * await serveHttp(server, { host: "0.0.0.0", port: 8080, allowedHosts: ["mcp.internal"] });
 */
export interface ServeHttpOptions extends HttpHandlerOptions {
  /** Interface to bind (default `127.0.0.1`). Loopback binds turn on `localhostOnly`. */
  host?: string;
  /** Port (default 0: any free port; read it from `url`). */
  port?: number;
  /** The MCP endpoint path (default `/mcp`), as a URL has it; any other path gets 404. */
  path?: string;
  /**
   * How long `close()` lets requests in flight finish before it drops their connections (default
   * 5 s, as `serveStdio`). 0 drops them at once.
   */
  drainTimeoutMs?: number;
}

/** Default time `close()` gives requests in flight (5 s). */
export const DEFAULT_HTTP_DRAIN_TIMEOUT_MS = 5_000;

/** How long `close()` lets streams it ended flush their last bytes (a client not reading is cut). */
const STREAM_END_MS = 1_000;

/**
 * A running HTTP endpoint.
 *
 * @example
 * const handle: HttpServerHandle = await serveHttp(server);
 * process.once("SIGTERM", () => void handle.close());
 */
export interface HttpServerHandle {
  /** The endpoint's URL, e.g. `http://127.0.0.1:53117/mcp`. */
  readonly url: URL;
  /** The underlying `node:http` server. */
  readonly server: Server;
  /**
   * Shuts the endpoint down gracefully: stops accepting connections, ends this endpoint's listen
   * streams with their result (the server's streams on other endpoints or transports stay open),
   * lets requests in flight finish for up to `drainTimeoutMs`, ends the 2025 sessions and HTTP+SSE
   * streams (their streams end cleanly), then drops what is left (their streams close, which
   * cancels them). Calling it again returns the same promise.
   */
  close(): Promise<void>;
}

/**
 * Serves a dispatcher over Streamable HTTP on `node:http`. Binds to 127.0.0.1 by default and then
 * checks Host/Origin against loopback names (DNS-rebinding protection) unless lists are given.
 *
 * @example
 * const { url, close } = await serveHttp(server, { port: 3000 });
 * console.log(`MCP endpoint at ${url}`); // http://127.0.0.1:3000/mcp
 */
export async function serveHttp(
  dispatcher: Dispatcher,
  options: ServeHttpOptions = {},
): Promise<HttpServerHandle> {
  const { host = "127.0.0.1", port = 0, path = "/mcp", drainTimeoutMs, ...handlerOptions } = options;
  const drainMs = drainTimeoutMs ?? DEFAULT_HTTP_DRAIN_TIMEOUT_MS;
  if (!(Number.isFinite(drainMs) && drainMs >= 0)) {
    throw new RangeError(`drainTimeoutMs must be a non-negative number of milliseconds, got ${drainMs}`);
  }
  // Requests are matched on their exact URL path, and the URL is built once listening.
  if (typeof path !== "string" || !path.startsWith("/") || new URL(path, "http://x").pathname !== path) {
    throw new TypeError(
      `path must be a URL path: a leading "/", no query, fragment or character to percent-encode, got ${JSON.stringify(path)}`,
    );
  }
  const localhostOnly = handlerOptions.localhostOnly ?? isLoopbackHostname(host);
  const handler = createHttpHandler(dispatcher, { ...handlerOptions, localhostOnly });
  const listener = toNodeListener(handler);
  const resource = handlerOptions.protectedResource;
  const metadataPath = resource && resourceMetadataUrl(resource.resource).pathname;
  const inFlight = new InFlight();
  const streams = new InFlight();
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    // Requests are POSTs; GETs are 2025 and HTTP+SSE streams, which end with their sessions.
    if (req.method === "POST") inFlight.track(req, res);
    else if (req.method === "GET") streams.track(req, res);
    const pathname = (req.url ?? "/").split("?")[0];
    if (pathname === path) return listener(req, res);
    if (resource && pathname === metadataPath) {
      req.resume();
      return void writeReply(resourceMetadataReply(req.method ?? "GET", resource), req, res);
    }
    // Plain text on purpose: a JSON-RPC -32601 body would read as "unknown MCP method".
    res.writeHead(404, {
      "content-type": "text/plain",
      connection: req.complete && res.shouldKeepAlive ? "keep-alive" : "close",
    });
    res.end("Not Found");
  };
  const server = createServer(onRequest);
  // node:http hands CONNECT only to "connect" listeners, else drops the socket: answer it as a request.
  server.on("connect", (req: IncomingMessage, socket: Socket) => {
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket);
    res.once("finish", () => socket.end());
    onRequest(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostname =
    address.family === "IPv6" || address.address.includes(":") ? `[${address.address}]` : address.address;
  const shutdown = async () => {
    const closed = new Promise<void>((resolve, reject) => {
      // Already closed by hand (`handle.server.close()`): the drain below is still ours to do.
      server.close((error) =>
        error && (error as NodeJS.ErrnoException).code !== "ERR_SERVER_NOT_RUNNING"
          ? reject(error)
          : resolve(),
      );
    });
    server.closeIdleConnections();
    // Listen streams never end on their own: ours get their closing result now (the server's
    // streams on other listeners or transports stay open).
    endListenStreams(handler);
    await inFlight.drained(drainMs);
    // 2025 sessions and HTTP+SSE streams: ended cleanly rather than cut with their connections.
    closeHttpSessions(handler);
    await streams.drained(STREAM_END_MS);
    server.closeAllConnections();
    await closed;
  };
  // One shutdown however often it is asked for (SIGINT then SIGTERM, a signal and a `finally`): a
  // second `server.close()` would fail with ERR_SERVER_NOT_RUNNING while the first still drains.
  let closing: Promise<void> | undefined;
  return {
    url: new URL(`http://${hostname}:${address.port}${path}`),
    server,
    close: () => {
      closing ??= shutdown();
      return closing;
    },
  };
}

/** The responses still open (POSTs being answered, or GET streams), to wait for at shutdown. */
class InFlight {
  #open = 0;
  #idle: (() => void) | undefined;

  track(req: IncomingMessage, res: ServerResponse): void {
    this.#open++;
    // A response queued behind another on a dropped connection never closes: its connection does.
    onResponseOver(req, res, () => {
      this.#open--;
      if (this.#open === 0) this.#idle?.();
    });
  }

  /** Resolves once nothing is open, or after `timeoutMs`. */
  drained(timeoutMs: number): Promise<void> {
    if (this.#open === 0 || timeoutMs === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timerDelay(timeoutMs));
      this.#idle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
