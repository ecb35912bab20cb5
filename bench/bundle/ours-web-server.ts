// Minimal roundtrip MRTR server as a web fetch handler, for Workers, Deno or Bun (bundle-size entry
// for the browser platform; never run by the harness).
import { createHttpHandler } from "../../src/transports/http/web.js";
import { provisioner } from "./ours-provisioner.js";

export default { fetch: createHttpHandler(provisioner(), { allowedHosts: ["mcp.example.com"] }) };
