/**
 * Resolvers on a 2025 session ask through the back-channel: real `elicitation/create`,
 * `sampling/createMessage` and `roots/list` requests, gated by the capabilities declared at
 * initialize, with the same outcomes and error texts as the modern path.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Client } from "../../src/client/client.js";
import { silentLogger } from "../../src/server/logger.js";
import { elicit, MCPServer, resolver } from "../../src/server/mcp/index.js";
import { buildDualEraServer } from "../fixtures/legacy/dual-era.js";
import { acceptRegion, errorText, RawLegacyClient, text } from "./helpers.js";

const ELICIT = { elicitation: { form: {}, url: {} } };

async function session(capabilities: Record<string, unknown> = ELICIT, options = {}) {
  const client = new RawLegacyClient(buildDualEraServer(options));
  await client.initialize(capabilities);
  return client;
}

describe("resolvers ask through the back-channel", () => {
  it("elicitation: one elicitation/create, then the tool completes", async () => {
    const client = await session();
    const response = await client.call("provision", { name: "orders" });
    expect(response).toEqual({ jsonrpc: "2.0", id: 2, result: text("Provisioned orders in eu-west-1.") });
    expect(client.written).toEqual([
      {
        jsonrpc: "2.0",
        id: 1,
        method: "elicitation/create",
        params: {
          mode: "form",
          message: "Which region?",
          requestedSchema: {
            type: "object",
            properties: { region: { type: "string" } },
            required: ["region"],
          },
        },
      },
    ]);
  });

  it("a 2025-06-18 session gets a form elicitation without mode", async () => {
    const client = new RawLegacyClient(buildDualEraServer());
    await client.initialize({ elicitation: {} }, "2025-06-18");
    await client.call("provision", { name: "orders" });
    expect(client.serverRequests[0]?.params).not.toHaveProperty("mode");
  });

  it("sampling and roots go out as sampling/createMessage and roots/list", async () => {
    const client = await session({ sampling: {}, roots: {} });
    client.answer = (request) =>
      request.method === "roots/list"
        ? { result: { roots: [{ uri: "file:///work" }, { uri: "file:///tmp" }] } }
        : { result: { role: "assistant", content: { type: "text", text: "A short summary." }, model: "m" } };
    expect(await client.call("summarize", { topic: "MCP" })).toMatchObject({
      result: text("A short summary."),
    });
    expect(await client.call("workspace")).toMatchObject({ result: text("file:///work,file:///tmp") });
    expect(client.serverRequests.map((r) => r.method)).toEqual(["sampling/createMessage", "roots/list"]);
    expect(client.serverRequests[0]?.params).toMatchObject({
      messages: [{ role: "user", content: { type: "text", text: "Summarize MCP" } }],
      maxTokens: 50,
    });
  });

  it("URL mode: a synthesized elicitationId, then notifications/elicitation/complete once accepted", async () => {
    const client = await session();
    client.answer = () => ({ result: { action: "accept" } });
    expect(await client.call("connect")).toMatchObject({ result: text("consent: accept") });
    const [request, complete] = client.written;
    const elicitationId = (request?.params as { elicitationId?: string } | undefined)?.elicitationId;
    expect(elicitationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(request?.params).toMatchObject({ mode: "url", url: "https://auth.example.com/login" });
    expect(complete).toEqual({
      jsonrpc: "2.0",
      method: "notifications/elicitation/complete",
      params: { elicitationId },
    });
    client.answer = () => ({ result: { action: "decline" } });
    expect(await client.call("connect")).toMatchObject({ result: text("consent: decline") });
    expect(client.written.filter((m) => m.method === "notifications/elicitation/complete")).toHaveLength(1);
  });
});

describe("outcomes and errors match the modern path", () => {
  it.each(["decline", "cancel"] as const)(
    "%s fails a plain consumer with the modern isError text",
    async (action) => {
      const client = await session();
      client.answer = () => ({ result: { action } });
      const legacy = await client.call("provision", { name: "orders" });
      const modern = await Client.connect(buildDualEraServer(), { elicitation: () => ({ action }) });
      const modernResult = await modern.callTool("provision", { name: "orders" });
      const past = action === "decline" ? "declined" : "cancelled";
      const expected = errorText(`Resolver 'ask_region' could not resolve: elicitation was ${past}`);
      expect(legacy).toMatchObject({ result: expected });
      expect(modernResult).toMatchObject(expected);
      await modern.close();
    },
  );

  it("a consumer that asked for the outcome branches on it", async () => {
    const client = await session();
    client.answer = () => ({ result: { action: "decline" } });
    expect(await client.call("provision_outcome", { name: "x" })).toMatchObject({
      result: text("Not provisioned: decline."),
    });
  });

  it("content that does not match the schema fails the call like a modern retry", async () => {
    const client = await session();
    client.answer = () => ({ result: { action: "accept", content: { region: 7 } } });
    expect(await client.call("provision", { name: "x" })).toMatchObject({
      result: errorText("Resolver 'ask_region' received content that does not match the requested schema"),
    });
  });

  it("a client error answer fails the call, naming the resolver", async () => {
    const client = await session();
    client.answer = () => ({ error: { code: -32600, message: "Elicitation not supported" } });
    expect(await client.call("provision", { name: "x" })).toMatchObject({
      result: errorText("Resolver 'ask_region' could not ask the client: Elicitation not supported"),
    });
  });

  it("no answer within legacy.requestTimeoutMs: the call fails and the client is told to stop", async () => {
    const client = await session(ELICIT, { legacy: { requestTimeoutMs: 30 } });
    client.answer = () => new Promise(() => {});
    expect(await client.call("provision", { name: "x" })).toMatchObject({
      result: errorText(
        "Resolver 'ask_region' could not ask the client: no answer to elicitation/create within 30 ms",
      ),
    });
    expect(client.written.at(-1)).toEqual({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 1, reason: "timeout" },
    });
  });

  it("a legacy.requestTimeoutMs longer than a timer can wait (a month) still waits for the answer", async () => {
    const client = await session(ELICIT, { legacy: { requestTimeoutMs: 30 * 24 * 3_600_000 } });
    client.answer = async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { result: { action: "accept", content: { region: "eu-west-1" } } };
    };
    expect(await client.call("provision", { name: "x" })).toMatchObject({
      result: text("Provisioned x in eu-west-1."),
    });
  });

  it("a cancelled request cancels its question and sends no response", async () => {
    const client = await session();
    client.answer = () => new Promise(() => {});
    const pending = client.call("provision", { name: "x" });
    await new Promise((resolve) => setTimeout(resolve, 10));
    client.connection.notification({ method: "notifications/cancelled", params: { requestId: 2 } });
    expect(await pending).toBeUndefined();
    expect(client.written.map((m) => m.method)).toEqual(["elicitation/create", "notifications/cancelled"]);
  });
});

describe("several questions on a 2025 session", () => {
  function twoQuestions() {
    const mcp = new MCPServer("two", { logger: silentLogger });
    const region = resolver("region", () => elicit("Region?", z.object({ region: z.string() })));
    const size = resolver("size", () => elicit("Size?", z.object({ gb: z.number() })));
    mcp.tool("t", { resolve: { region, size } }, (_a, { region, size }) => `${region.region} ${size.gb}`);
    return mcp;
  }

  it("go out one at a time, each after the answer before it", async () => {
    const seen: number[] = [];
    let open = 0;
    const client = new RawLegacyClient(twoQuestions(), async (request) => {
      const params = request.params as { message: string };
      seen.push(++open);
      await new Promise((resolve) => setTimeout(resolve, 10));
      open--;
      return {
        result: { action: "accept", content: params.message === "Region?" ? { region: "eu" } : { gb: 5 } },
      };
    });
    await client.initialize(ELICIT);
    expect(await client.call("t")).toMatchObject({ result: text("eu 5") });
    expect(client.serverRequests.map((r) => (r.params as { message: string }).message)).toEqual([
      "Region?",
      "Size?",
    ]);
    // When each question arrives, it is the only one unanswered.
    expect(seen).toEqual([1, 1]);
  });

  it("a decline read plainly ends the call: the next question is never asked", async () => {
    const client = new RawLegacyClient(twoQuestions(), () => ({ result: { action: "decline" } }));
    await client.initialize(ELICIT);
    expect(await client.call("t")).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: errorText("Resolver 'region' could not resolve: elicitation was declined"),
    });
    expect(client.serverRequests).toHaveLength(1);
  });
});

describe("capability gating against what initialize declared", () => {
  it.each([
    ["provision", {}, "form elicitation", { elicitation: { form: {} } }, "ask_region"],
    ["connect", { elicitation: { form: {} } }, "url elicitation", { elicitation: { url: {} } }, "sign_in"],
    ["summarize", {}, "sampling", { sampling: {} }, "summary"],
    ["workspace", {}, "roots", { roots: {} }, "roots"],
  ])(
    "%s without the capability: -32021 naming the resolver",
    async (tool, declared, label, required, key) => {
      const client = await session(declared);
      const response = await client.call(tool, { name: "x", topic: "t" });
      expect(response).toEqual({
        jsonrpc: "2.0",
        id: 2,
        error: {
          code: -32021,
          message: `Client did not declare the ${label} capability required by resolver '${key}'`,
          data: { requiredCapabilities: required },
        },
      });
      expect(client.serverRequests).toEqual([]);
      // The session stays usable.
      expect(await client.request("ping")).toMatchObject({ result: {} });
    },
  );

  it("a bare elicitation: {} counts as form", async () => {
    const client = await session({ elicitation: {} });
    client.answer = () => acceptRegion("us-east-1");
    expect(await client.call("provision", { name: "x" })).toMatchObject({
      result: text("Provisioned x in us-east-1."),
    });
  });
});
