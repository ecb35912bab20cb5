// Minimal roundtrip MRTR server over stdio (bundle-size entry; never run by the harness).
import { serveStdio } from "../../src/transports/stdio/index.js";
import { provisioner } from "./ours-provisioner.js";

serveStdio(provisioner());
