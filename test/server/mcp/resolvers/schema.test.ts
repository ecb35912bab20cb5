import { describe, expect, it } from "vitest";
import { z } from "zod";
import { elicit, jsonSchema, resolver, type SchemaLike } from "../../../../src/server/mcp/index.js";
import { resultOf } from "../../../helpers.js";
import { quietServer, send } from "../helpers.js";
import { accept, asked, Flow, textOf } from "./helpers.js";

function provisioner(input: SchemaLike) {
  const mcp = quietServer();
  const seenByResolver: Record<string, unknown>[] = [];
  const askRegion = resolver("ask_region", ({ args }) => {
    seenByResolver.push({ ...args });
    return elicit("Which region?", z.object({ region: z.string() }));
  });
  const tier = resolver("tier", () => "gold");
  mcp.tool(
    "provision",
    {
      description: "Provision a database",
      input: input as z.ZodObject,
      resolve: { region: askRegion, tier },
    },
    (args, { region, tier }) => JSON.stringify({ args, region: region.region, tier: tier }),
  );
  return { mcp, seenByResolver };
}

describe("resolved parameters and the advertised schema", () => {
  it("resolved names never appear in the advertised inputSchema (#88)", async () => {
    const { mcp } = provisioner(z.object({ name: z.string() }));
    const listed = resultOf(await send(mcp, "tools/list"));
    expect(listed.tools).toEqual([
      {
        name: "provision",
        description: "Provision a database",
        inputSchema: {
          $schema: "https://json-schema.org/draft/2020-12/schema",
          type: "object",
          properties: { name: { type: "string" } },
          required: ["name"],
        },
      },
    ]);
  });

  it("a tool whose only parameters are resolved advertises an empty object", async () => {
    const mcp = quietServer();
    const ask = resolver("ask", () => elicit("?", z.object({ x: z.string() })));
    mcp.tool("t", { resolve: { ask } }, () => "");
    const listed = resultOf(await send(mcp, "tools/list"));
    expect((listed.tools as { inputSchema: unknown }[])[0]?.inputSchema).toEqual({
      type: "object",
      properties: {},
    });
  });

  it.each([
    ["a zod input", z.object({ name: z.string() })],
    [
      "a raw JSON Schema input",
      jsonSchema({ type: "object", properties: { name: { type: "string" } }, required: ["name"] }),
    ],
  ])(
    "with %s, a client value under a resolved name cannot influence the resolved value (#87)",
    async (_n, input) => {
      const { mcp } = provisioner(input);
      const flow = new Flow(mcp, "provision", { name: "orders", region: "evil-1", tier: "free" });
      expect(Object.keys(asked(await flow.round()))).toEqual(["ask_region"]);
      const done = JSON.parse(textOf(await flow.round({ ask_region: accept({ region: "eu-west-1" }) })).text);
      expect(done.region).toBe("eu-west-1");
      expect(done.tier).toBe("gold");
    },
  );

  it("a client cannot answer a resolver through its arguments: the question is still asked", async () => {
    const { mcp } = provisioner(z.object({ name: z.string() }));
    const first = await new Flow(mcp, "provision", {
      name: "orders",
      ask_region: { action: "accept", content: { region: "evil-1" } },
      region: { region: "evil-1" },
    }).round();
    expect(Object.keys(asked(first))).toEqual(["ask_region"]);
  });

  it("the zod input strips undeclared arguments before any resolver sees them", async () => {
    const { mcp, seenByResolver } = provisioner(z.object({ name: z.string() }));
    await new Flow(mcp, "provision", { name: "orders", region: "evil-1" }).round();
    expect(seenByResolver).toEqual([{ name: "orders" }]);
  });

  it("arguments are validated before any resolver runs: bad arguments ask nothing", async () => {
    const { mcp, seenByResolver } = provisioner(z.object({ name: z.string() }));
    const result = await new Flow(mcp, "provision", { name: 42 }).round();
    expect(result.isError).toBe(true);
    expect(seenByResolver).toEqual([]);
  });
});
