import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../../src/client/client.js";
import { killSpawned, PROVISIONER, REPO_ROOT } from "./helpers.js";

afterEach(killSpawned);

describe("Client.connect({ command }) over stdio", () => {
  it("spawns the server, negotiates 2026-07-28 through server/discover and drives the loop", async () => {
    const asked: string[] = [];
    const client = await Client.connect(
      { command: process.execPath, args: ["--import", "tsx", PROVISIONER], cwd: REPO_ROOT },
      {
        elicitation: async (ctx, params) => {
          asked.push(`${String(ctx.requestId)}: ${params.message}`);
          return { action: "accept", content: { region: "eu-west-1" } };
        },
      },
    );
    try {
      expect(client.protocolVersion).toBe("2026-07-28");
      expect(client.serverInfo).toEqual({ name: "Provisioner", version: "1.0.0" });
      const result = await client.callTool("provision", { name: "orders" });
      expect(result.content).toEqual([{ type: "text", text: "Provisioned 'orders' in eu-west-1." }]);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatch(/^region: /);
    } finally {
      await client.close();
    }
  });

  it("fails clearly when the command does not exist", async () => {
    await expect(Client.connect({ command: "/nonexistent/roundtrip-server" })).rejects.toThrow(
      /ENOENT|spawn/,
    );
  });
});
