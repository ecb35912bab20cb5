// One URL for every generation of client, down to those that only speak the deprecated HTTP+SSE
// transport of 2024-11-05: they GET the URL for their event stream, everyone else POSTs to it.
import { httpPlusSse, serveHttp } from "roundtrip-mcp/http";
import { mcp } from "./legacy-clients.js";

/** Serves the provisioner on 127.0.0.1 (`port` 0 picks a free one). */
export function serveEveryGeneration(port = 0) {
  return serveHttp(mcp, { port, legacy: { sse: httpPlusSse } });
}
