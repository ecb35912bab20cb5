import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Client, InputRequiredRoundsExceededError } from "../../../../src/client/index.js";
import { type AnyResolver, elicit, resolver } from "../../../../src/server/mcp/index.js";
import { MemoryTransport } from "../../../../src/transports/memory.js";
import type { ElicitResult } from "../../../../src/types/index.js";
import { wireTap } from "../../../helpers.js";
import { quietServer } from "../helpers.js";

/** Resolver tools driven by the SDK's own auto-loop (`Client`), counted at the wire. */
describe("resolvers under the Client auto-loop", () => {
  it("independent questions are answered in a single round: exactly two legs (#36)", async () => {
    const mcp = quietServer();
    const region = resolver("region", () => elicit("Region?", z.object({ region: z.string() })));
    const size = resolver("size", () => elicit("Size?", z.object({ gb: z.number() })));
    mcp.tool(
      "provision",
      { resolve: { region, size } },
      (_a, { region, size }) => `${size.gb} GB in ${region.region}`,
    );
    const tap = wireTap();
    const seen: string[] = [];
    const client = await Client.connect(new MemoryTransport(mcp, { onWire: tap.onWire }), {
      elicitation: (ctx, params): ElicitResult => {
        seen.push(String(ctx.requestId));
        return params.message === "Region?"
          ? { action: "accept", content: { region: "eu" } }
          : { action: "accept", content: { gb: 8 } };
      },
    });
    const result = await client.callTool("provision", {});
    expect(result.content).toEqual([{ type: "text", text: "8 GB in eu" }]);
    expect(seen.sort()).toEqual(["region", "size"]); // the callback's requestId is the inputRequests key
    expect(tap.sent().filter((m) => m.method === "tools/call")).toHaveLength(2);
  });

  it("gives up when a chain outlasts the round budget: 11 questions, 10 answered, 11 legs (#52)", async () => {
    const mcp = quietServer();
    let previous: AnyResolver | undefined;
    const chain: AnyResolver[] = [];
    for (let i = 1; i <= 11; i++) {
      const deps: Record<string, AnyResolver> = previous ? { prev: previous } : {};
      const step: AnyResolver = resolver(`q${i}`, { deps }, () =>
        elicit(`Question ${i}?`, z.object({ v: z.string() })),
      );
      chain.push(step);
      previous = step;
    }
    mcp.tool("long", { resolve: { last: previous as AnyResolver } }, () => "never");
    const tap = wireTap();
    let answered = 0;
    const client = await Client.connect(new MemoryTransport(mcp, { onWire: tap.onWire }), {
      elicitation: () => {
        answered++;
        return { action: "accept", content: { v: "x" } };
      },
    });
    const error = await client.callTool("long", {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputRequiredRoundsExceededError);
    expect((error as InputRequiredRoundsExceededError).maxRounds).toBe(10);
    expect(answered).toBe(10);
    expect(tap.sent().filter((m) => m.method === "tools/call")).toHaveLength(11);
    expect(Object.keys((error as InputRequiredRoundsExceededError).lastResult.inputRequests ?? {})).toEqual([
      "q11",
    ]);
  });
});
