// The Provisioner over stdio: newline-delimited JSON-RPC on stdin/stdout, logs on stderr only.
//   npx tsx examples/stdio-server.ts          (a client spawns it: Client.connect({ command, args }))
import { serveStdio } from "roundtrip-mcp/stdio";
import { mcp } from "./resolver-region.js";

const stdio = serveStdio(mcp);
await stdio.closed; // stdin ended: in-flight requests finished (or timed out)
process.exit(0);
