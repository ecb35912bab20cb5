/** Our Streamable HTTP pieces for the web-handler and loopback scenarios (`roundtrip-mcp/http`). */
import type { Client, MCPServer } from "../../src/index.js";
import {
  createHttpHandler,
  type FetchHandler,
  StreamableHttpClientTransport,
} from "../../src/transports/http/index.js";
import { connectOurs } from "./ours.js";

/** The in-process web handler of a server. */
export function ourHandler(mcp: MCPServer): FetchHandler {
  return createHttpHandler(mcp);
}

/** Our client over Streamable HTTP, with an optional `fetch` (the in-process path). */
export function connectOursHttp(
  url: URL,
  fetchImpl?: (input: URL, init: RequestInit) => Promise<Response>,
): Promise<Client> {
  return connectOurs(new StreamableHttpClientTransport(url, fetchImpl ? { fetch: fetchImpl } : {}));
}
