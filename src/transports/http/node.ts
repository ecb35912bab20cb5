/**
 * `node:http` without a framework: a direct IncomingMessage → Request / Response → ServerResponse
 * adapter (bodies streamed both ways, disconnects propagated), and `serveHttp` on top of it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Dispatcher } from "../../shared/dispatch.js";
import { ErrorCode } from "../../types/index.js";
import { isLoopbackHostname } from "./guards.js";
import { createHttpHandler, type FetchHandler, type HttpHandlerOptions } from "./handler.js";

/**
 * A `node:http` request listener (also usable as Express/Connect middleware's final handler).
 *
 * @example
 * const listener: NodeListener = toNodeListener(createHttpHandler(server));
 * expressApp.post("/mcp", listener);
 */
export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

const BODYLESS = new Set(["GET", "HEAD"]);

function toWebRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string);
  }
  let url: URL;
  try {
    url = new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`);
  } catch {
    // A Host that is not a URL authority: keep it in the headers for the Host guard to refuse.
    url = new URL(req.url?.startsWith("/") ? req.url : "/", "http://localhost");
  }
  const method = req.method ?? "GET";
  const init: RequestInit & { duplex?: "half" } = { method, headers, signal };
  if (!BODYLESS.has(method)) {
    init.duplex = "half";
    init.body = new ReadableStream<Uint8Array>(
      {
        start(controller) {
          req.on("data", (chunk: Buffer) => {
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
            if ((controller.desiredSize ?? 0) <= 0) req.pause();
          });
          req.once("end", () => controller.close());
          req.once("error", (error) => controller.error(error));
        },
        pull() {
          req.resume();
        },
        cancel() {
          // The handler stopped reading (e.g. 413): stop buffering; the response closes the connection.
          req.pause();
        },
      },
      { highWaterMark: 16 },
    );
  }
  return new Request(url, init);
}

async function writeWebResponse(
  response: Response,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  // An unread body (413, early rejections) must not be drained: close the connection instead.
  if (!req.complete) headers.connection = "close";
  if (response.statusText) res.statusMessage = response.statusText;
  const type = response.headers.get("content-type") ?? "";
  if (response.body === null || type.startsWith("application/json")) {
    // Bounded bodies go out in one write with a Content-Length (no chunked framing, one packet).
    const data = response.body === null ? undefined : new Uint8Array(await response.arrayBuffer());
    if (data) headers["content-length"] = String(data.byteLength);
    res.writeHead(response.status, headers);
    res.end(data);
    return;
  }
  res.writeHead(response.status, headers);
  // Event streams must reach the client now, not with the first event.
  if (type.startsWith("text/event-stream")) res.flushHeaders();
  const reader = response.body.getReader();
  const stop = () => void reader.cancel().catch(() => {});
  res.once("close", stop);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          res.once("drain", resolve);
          res.once("close", resolve);
        });
      }
      if (res.destroyed) break;
    }
  } catch {
    // The stream failed or was cancelled because the client left: nothing more to send.
  } finally {
    res.off("close", stop);
    res.end();
  }
}

/**
 * Adapts a fetch handler to `node:http` (Express and Connect accept it too). The client closing
 * the connection aborts the `Request`'s signal, which cancels the dispatch.
 *
 * @example
 * const listener = toNodeListener(createHttpHandler(server));
 * http.createServer((req, res) => (req.url === "/mcp" ? listener(req, res) : res.end())).listen(3000);
 */
export function toNodeListener(handler: FetchHandler): NodeListener {
  return (req, res) => {
    const controller = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) controller.abort();
    });
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
      .catch(() => {
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
      });
  };
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
  /** The MCP endpoint path (default `/mcp`); any other path gets 404. */
  path?: string;
}

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
  /** Stops listening and drops every open connection (open streams cancel their requests). */
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
  const { host = "127.0.0.1", port = 0, path = "/mcp", ...handlerOptions } = options;
  const localhostOnly = handlerOptions.localhostOnly ?? isLoopbackHostname(host);
  const listener = toNodeListener(createHttpHandler(dispatcher, { ...handlerOptions, localhostOnly }));
  const server = createServer((req, res) => {
    const pathname = (req.url ?? "/").split("?")[0];
    if (pathname === path) return listener(req, res);
    // Plain text on purpose: a JSON-RPC -32601 body would read as "unknown MCP method".
    res.writeHead(404, { "content-type": "text/plain", connection: req.complete ? "keep-alive" : "close" });
    res.end("Not Found");
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
  return {
    url: new URL(`http://${hostname}:${address.port}${path}`),
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
