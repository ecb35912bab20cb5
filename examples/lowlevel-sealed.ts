// The low-level Server seals nothing until you add the boundary: the one-line opt-in.
import { RequestStateBoundary, RequestStateSecurity } from "roundtrip-mcp/server";
import { createProvisionerServer } from "./provisioner-lowlevel.js";

export const server = createProvisionerServer();
server.middleware.push(
  new RequestStateBoundary(RequestStateSecurity.ephemeral(), { defaultAudience: server.name }),
);
