// Minimal official-SDK MRTR server as a web fetch handler, for Workers, Deno or Bun (bundle-size
// entry for the browser platform; never run by the harness).
import { createMcpHandler } from "@modelcontextprotocol/server";
import { provisioner } from "./theirs-provisioner.js";

const handler = createMcpHandler(provisioner);
export default { fetch: (request: Request) => handler.fetch(request) };
