import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { provisionThroughGroup } from "../../examples/client-group.js";
import { silentLogger } from "../../src/server/logger.js";
import { MCPServer } from "../../src/server/mcp/mcp-server.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

it("examples/client-group: a stdio server and an in-memory one as one namespace", async () => {
  const billing = new MCPServer("Billing", { logger: silentLogger });
  billing.tool("invoice", {}, async () => "invoiced");
  const { tools, text } = await provisionThroughGroup([
    { command: process.execPath, args: ["--import", "tsx", "examples/stdio-server.ts"], cwd: root },
    billing,
  ]);
  expect(tools).toEqual(["Provisioner.provision", "Billing.invoice"]);
  expect(text).toBe("Provisioned 'orders' in eu-west-1.");
});
