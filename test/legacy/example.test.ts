/** The legacy-clients example and docs page, run: one server, both generations, one set of callbacks. */
import { afterEach, describe, expect, it } from "vitest";
import { asked, provisionBothWays } from "../../examples/legacy-client-modes.js";
import { mcp } from "../../examples/legacy-clients.js";
import { Client } from "../../src/client/client.js";
import { silentLogger } from "../../src/server/logger.js";
import { type HttpServerHandle, serveHttp } from "../../src/transports/http/node.js";

mcp.server.logger.warn = silentLogger.warn;
mcp.server.logger.error = silentLogger.error;

let handle: HttpServerHandle | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
  asked.length = 0;
});

describe("examples/legacy-clients.ts", () => {
  it("one resolver tool serves a 2025 and a 2026 client at once, in memory", async () => {
    expect(await provisionBothWays(mcp)).toEqual([
      "2025-11-25",
      "2026-07-28",
      "Provisioned old in eu-west-1.",
      "Provisioned new in eu-west-1.",
    ]);
    expect(asked).toEqual(expect.arrayContaining([1, "ask_region"]));
  });

  it("and over HTTP, on one endpoint", async () => {
    handle = await serveHttp(mcp, { port: 0 });
    expect((await provisionBothWays(handle.url.toString())).slice(0, 2)).toEqual([
      "2025-11-25",
      "2026-07-28",
    ]);
  });

  it("the hand-built tool completes on both eras thanks to the shim", async () => {
    for (const mode of ["legacy", "auto"] as const) {
      const client = await Client.connect(mcp, {
        mode,
        elicitation: () => ({ action: "accept", content: { region: "us" } }),
      });
      const result = await client.callTool("provision_by_hand", { name: "db" });
      expect(result.content).toEqual([
        { type: "text", text: `Provisioned db in us (${client.protocolVersion}).` },
      ]);
      await client.close();
    }
  });
});
