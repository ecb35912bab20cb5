/**
 * Some 2025 stdio servers exit when their first message is not `initialize`. In `auto`, our probe
 * (`server/discover`) would lose the process; the client spawns the command again and handshakes
 * first, and remembers the verdict. Real child processes.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { clearEraCache } from "../../src/client/era-cache.js";
import { ConnectionClosedError } from "../../src/shared/errors.js";
import { fixture, killSpawned, REPO_ROOT, spawnTarget } from "./stdio-helpers.js";

const STRICT = fixture("strict-legacy-server");

afterEach(() => {
  clearEraCache();
  killSpawned();
});

describe("auto mode against a 2025 stdio server that exits on the probe", () => {
  it("spawns it again, handshakes first, and serves calls on the 2025 wire", async () => {
    const client = await Client.connect(spawnTarget(STRICT), {
      elicitation: () => ({ action: "accept", content: { region: "eu-west-1" } }),
    });
    expect([client.era, client.protocolVersion]).toEqual(["legacy", "2025-11-25"]);
    const result = await client.callTool("provision", { name: "orders" });
    expect(result.content).toEqual([{ type: "text", text: "Provisioned orders in eu-west-1." }]);
    await client.close();

    // Remembered: the next connect handshakes at once, so the first process already serves it.
    const again = await Client.connect(spawnTarget(STRICT));
    expect(again.era).toBe("legacy");
    await again.close();
  });

  it("a command that dies whatever it is sent fails after the second spawn", async () => {
    const target = { command: process.execPath, args: ["-e", "process.exit(2)"], cwd: REPO_ROOT };
    const error = await Client.connect(target).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionClosedError);
  });

  it("a pinned 2026-07-28 client sends nothing at connect, and its first request finds the process gone", async () => {
    const client = await Client.connect(spawnTarget(STRICT), { mode: "2026-07-28" });
    const error = await client.listTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionClosedError);
    await client.close();
  });
});
