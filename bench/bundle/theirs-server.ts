// Minimal official-SDK MRTR server over stdio (bundle-size entry; never run by the harness).
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { provisioner } from "./theirs-provisioner.js";

serveStdio(provisioner);
