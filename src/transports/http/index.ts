/**
 * Streamable HTTP for the 2026-07-28 revision: the server endpoint as a web-standard fetch
 * handler, its `node:http` adapter (`serveHttp`, `toNodeListener`), and the client transport.
 * Runtimes without `node:http` import `./web.js` instead.
 *
 * @example
 * import { serveHttp, StreamableHttpClientTransport } from "roundtrip-mcp/http";
 * const { url } = await serveHttp(server);
 * const session = await ClientSession.connect(new StreamableHttpClientTransport(url));
 */
export {
  type HttpServerHandle,
  type NodeListener,
  type ServeHttpOptions,
  serveHttp,
  toNodeListener,
} from "./node.js";
export * from "./web.js";
