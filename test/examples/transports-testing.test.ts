import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { checkProvision } from "../../examples/in-memory-testing.js";
import { Client } from "../../src/client/client.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

it("examples/in-memory-testing: lands on 2026-07-28 and completes in two legs", async () => {
  const { text, protocolVersion, wire } = await checkProvision();
  expect(text).toBe("Provisioned 'orders' in eu-west-1.");
  expect(protocolVersion).toBe("2026-07-28");
  const calls = wire.filter((m) => (m as { method?: string }).method === "tools/call");
  expect(calls).toHaveLength(2);
});

it("examples/stdio-server: a client spawns it and completes the flow over stdio", async () => {
  const client = await Client.connect(
    { command: process.execPath, args: ["--import", "tsx", "examples/stdio-server.ts"], cwd: root },
    { elicitation: async () => ({ action: "accept", content: { region: "ap-south-1" } }) },
  );
  try {
    const result = await client.callTool("provision", { name: "logs" });
    expect(result.content).toEqual([{ type: "text", text: "Provisioned 'logs' in ap-south-1." }]);
  } finally {
    await client.close();
  }
});
