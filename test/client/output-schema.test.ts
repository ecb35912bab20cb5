// Client.callTool checks a tool's structuredContent against the outputSchema tools/list gave for
// it (spec: clients SHOULD validate structured results): a mismatch or a missing structuredContent
// is a ProtocolError, error results and unlisted tools pass as they are.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Client } from "../../src/client/client.js";
import { silentLogger } from "../../src/server/logger.js";
import { Server } from "../../src/server/server.js";
import { ProtocolError } from "../../src/shared/errors.js";
import { quietServer } from "../server/mcp/helpers.js";

const FORECAST_SCHEMA = {
  type: "object",
  properties: { city: { type: "string" }, celsius: { type: "number" } },
  required: ["city", "celsius"],
};

/** A low-level server whose `forecast` answers whatever `answer` says, whatever its schema. */
function lyingServer(
  answer: () => Record<string, unknown>,
  outputSchema: Record<string, unknown> = FORECAST_SCHEMA,
) {
  return new Server("liar", {
    logger: silentLogger,
    onListTools: () => ({
      tools: [{ name: "forecast", inputSchema: { type: "object" }, outputSchema }],
    }),
    onCallTool: () => answer() as never,
  });
}

const text = [{ type: "text", text: "forecast" }];

describe("structuredContent against the listed outputSchema", () => {
  it("passes a matching result from a real MCPServer tool", async () => {
    const mcp = quietServer();
    mcp.tool("forecast", { output: z.object({ city: z.string(), celsius: z.number() }) }, () => ({
      city: "Lyon",
      celsius: 21,
    }));
    const client = await Client.connect(mcp);
    await client.listTools();
    expect((await client.callTool("forecast")).structuredContent).toEqual({ city: "Lyon", celsius: 21 });
  });

  it("refuses a mismatch and a missing structuredContent once the schema is known", async () => {
    let answer: Record<string, unknown> = {
      content: text,
      structuredContent: { city: "Lyon", celsius: "warm" },
    };
    const client = await Client.connect(lyingServer(() => answer));
    // Not listed yet: nothing to check against.
    expect((await client.callTool("forecast")).structuredContent).toEqual({ city: "Lyon", celsius: "warm" });

    await client.listTools();
    const mismatch = await client.callTool("forecast").catch((error: unknown) => error);
    expect(mismatch).toBeInstanceOf(ProtocolError);
    expect((mismatch as Error).message).toMatch(
      /^Tool forecast returned structuredContent that does not match its outputSchema \(celsius: .+\)$/,
    );

    answer = { content: text };
    await expect(client.callTool("forecast")).rejects.toThrow(
      new ProtocolError("Tool forecast has an outputSchema but returned no structuredContent"),
    );

    answer = { content: text, isError: true };
    expect((await client.callTool("forecast")).isError).toBe(true);

    answer = { content: text, structuredContent: { city: "Lyon", celsius: 21 } };
    expect((await client.callTool("forecast")).structuredContent).toEqual({ city: "Lyon", celsius: 21 });
  });

  it("a schema this client cannot evaluate does not refuse the result", async () => {
    const answer = { content: text, structuredContent: { anything: true } };
    const client = await Client.connect(
      lyingServer(() => answer, { $ref: "https://schemas.example/forecast.json" }),
    );
    await client.listTools();
    expect((await client.callTool("forecast")).structuredContent).toEqual({ anything: true });
  });

  it("never runs the server's regular expressions, and checks everything else", async () => {
    // `^(a+)+$` against forty characters and a "!" backtracks for an hour: a hostile server's freeze.
    const schema = {
      type: "object",
      properties: {
        code: { type: "string", pattern: "^(a+)+$" },
        pattern: { type: "number" },
        tags: {
          type: "object",
          patternProperties: { "^(x+)+$": { type: "string" } },
          additionalProperties: false,
        },
      },
      required: ["code"],
    };
    let structured: Record<string, unknown> = { code: `${"a".repeat(40)}!`, pattern: 1, tags: { xxxx: "y" } };
    const client = await Client.connect(
      lyingServer(() => ({ content: text, structuredContent: structured }), schema),
    );
    await client.listTools();
    expect((await client.callTool("forecast")).structuredContent).toEqual(structured);
    // A property named "pattern" is a property, not the keyword: it is still checked.
    structured = { code: "a", pattern: "one" };
    expect(await client.callTool("forecast").catch((error: unknown) => error)).toBeInstanceOf(ProtocolError);
    structured = { pattern: 1 };
    expect(await client.callTool("forecast").catch((error: unknown) => error)).toBeInstanceOf(ProtocolError);
    // What tools/list gave is left as it was.
    expect((await client.listTools()).tools[0]?.outputSchema).toEqual(schema);
  });

  it("finds the server's regular expressions wherever subschemas go: items, anyOf, $defs", async () => {
    const evil = { type: "string", pattern: "^(a+)+$" };
    const schema = {
      type: "object",
      properties: {
        list: { type: "array", items: evil },
        either: { anyOf: [evil, { type: "number" }] },
        ref: { $ref: "#/$defs/code" },
      },
      $defs: { code: evil },
    };
    const slow = `${"a".repeat(40)}!`;
    let structured: Record<string, unknown> = { list: [slow], either: slow, ref: slow };
    const client = await Client.connect(
      lyingServer(() => ({ content: text, structuredContent: structured }), schema),
    );
    await client.listTools();
    expect((await client.callTool("forecast")).structuredContent).toEqual(structured);
    // The rest of those subschemas is still checked.
    structured = { list: [7] };
    expect(await client.callTool("forecast").catch((error: unknown) => error)).toBeInstanceOf(ProtocolError);
  });

  it("drops a pattern that is not a string: new RegExp would make it one", async () => {
    // ["^(a+)+$"] reaches the validator's `new RegExp(pattern)` as "^(a+)+$": the same freeze.
    const schema = { type: "object", properties: { code: { type: "string", pattern: ["^(a+)+$"] } } };
    const client = await Client.connect(
      lyingServer(() => ({ content: text, structuredContent: { code: "no match" } }), schema),
    );
    await client.listTools();
    // Run, the expression would refuse this value: it passes only because it was not run.
    expect((await client.callTool("forecast")).structuredContent).toEqual({ code: "no match" });
  });

  it("a schema too deep to evaluate does not refuse the result either", async () => {
    // Deep enough to overflow the stack of a recursive walk, shallow enough for JSON on the wire.
    let schema: Record<string, unknown> = { type: "object" };
    for (let depth = 0; depth < 4_000; depth++) schema = { allOf: [schema] };
    const answer = { content: text, structuredContent: { anything: true } };
    const client = await Client.connect(lyingServer(() => answer, schema));
    await client.listTools();
    expect((await client.callTool("forecast")).structuredContent).toEqual({ anything: true });
  });

  it("a schema that fans out exponentially neither stalls the client nor refuses the result", async () => {
    // Level n applies level n-1 twice: 2^40 applications unbounded; the validator stops after 100,000.
    const $defs: Record<string, unknown> = { l0: { type: "object" } };
    for (let level = 1; level <= 40; level++) {
      $defs[`l${level}`] = { allOf: [{ $ref: `#/$defs/l${level - 1}` }, { $ref: `#/$defs/l${level - 1}` }] };
    }
    const schema = { $defs, $ref: "#/$defs/l40" };
    const answer = { content: text, structuredContent: { anything: true } };
    const client = await Client.connect(lyingServer(() => answer, schema));
    await client.listTools();
    expect((await client.callTool("forecast")).structuredContent).toEqual({ anything: true });
  });

  it("checks every subschema of a huge schema, and runs none of its expressions", async () => {
    const properties: Record<string, unknown> = Object.fromEntries(
      Array.from({ length: 12_000 }, (_, i) => [`p${i}`, { type: "integer" }]),
    );
    // Past the first 10,000 subschemas, where a bounded walk would leave it in place.
    properties.code = { type: "string", pattern: "^(a+)+$" };
    let structured: Record<string, unknown> = { p0: 1, p11999: 2, code: "no match" };
    const client = await Client.connect(
      lyingServer(() => ({ content: text, structuredContent: structured }), { type: "object", properties }),
    );
    await client.listTools();
    expect((await client.callTool("forecast")).structuredContent).toEqual(structured);
    structured = { p11999: "not an integer" };
    expect(await client.callTool("forecast").catch((error: unknown) => error)).toBeInstanceOf(ProtocolError);
  });
});

describe("output schemas after the server's tools change", () => {
  // A tool's output schema may change with its list: the old one, kept after the server said so,
  // refused the new shape of a correct server's results.
  it("forgets them on tools/list_changed: the tool's new shape is not checked against its old schema", async () => {
    const mcp = quietServer("weather", { listChanged: true });
    mcp.tool("forecast", { output: z.object({ celsius: z.number() }) }, () => ({ celsius: 21 }));
    const client = await Client.connect(mcp);
    await client.listTools();
    const heard: string[] = [];
    const subscription = client.listen({ toolsListChanged: true }, (notification) => {
      heard.push(notification.method);
    });
    await subscription.acknowledged;
    mcp.removeTool("forecast");
    mcp.tool("forecast", { output: z.object({ fahrenheit: z.number() }) }, () => ({ fahrenheit: 70 }));
    await expect.poll(() => heard).toContain("notifications/tools/list_changed");
    expect((await client.callTool("forecast")).structuredContent).toEqual({ fahrenheit: 70 });
    // Listed again, the new schema is checked.
    await client.listTools();
    expect((await client.callTool("forecast")).structuredContent).toEqual({ fahrenheit: 70 });
    subscription.close();
    await client.close();
  });

  it("keeps only the current listing's: a server that renames its tools on every list grows nothing", async () => {
    // Each tools/list names a new tool; the schemas of every listing used to be kept for good.
    let listings = 0;
    const server = new Server("renamer", {
      logger: silentLogger,
      onListTools: () => ({
        tools: [{ name: `t${listings++}`, inputSchema: { type: "object" }, outputSchema: FORECAST_SCHEMA }],
      }),
      onCallTool: () => ({ content: text, structuredContent: { code: "anything" } }) as never,
    });
    const client = await Client.connect(server);
    await client.listTools();
    await expect(client.callTool("t0")).rejects.toBeInstanceOf(ProtocolError);
    for (let n = 0; n < 3; n++) await client.listTools();
    // t0 is no longer listed: its schema went with the listing it came from; t3's is checked.
    expect((await client.callTool("t0")).structuredContent).toEqual({ code: "anything" });
    await expect(client.callTool("t3")).rejects.toBeInstanceOf(ProtocolError);
    await client.close();
  });
});
