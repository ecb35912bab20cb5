import { describe, expect, it } from "vitest";
import type { ClientRequestContext } from "../../src/client/callbacks.js";
import { silentLogger } from "../../src/server/logger.js";
import { Server } from "../../src/server/server.js";
import { type CallToolResult, type InputRequiredResult, McpError } from "../../src/types/index.js";
import {
  askingServer,
  bare,
  connectTapped,
  ELICIT,
  ROOTS,
  SAMPLE,
  sentFor,
  stubServer,
  text,
  textOf,
} from "./stubs.js";

describe("Client auto loop (python tests/client/test_client.py)", () => {
  it("dispatches an elicitation, then returns the final result; requestId is the input key", async () => {
    const contexts: ClientRequestContext[] = [];
    const { client, tap } = await connectTapped(askingServer("user_name", ELICIT), {
      elicitation: (ctx, params) => {
        contexts.push(ctx);
        expect(params.message).toBe("What is your name?");
        return { action: "accept", content: { name: "Ada" } };
      },
    });
    const result = await client.callTool("greet", { a: 1 });
    expect(textOf(result)).toBe('st-1:{"action":"accept","content":{"name":"Ada"}}');
    expect(contexts[0]?.requestId).toBe("user_name");
    expect(contexts[0]?.meta).toEqual({ "example.com/trace": "t-1" });
    expect(contexts[0]?.serverInfo).toEqual({ name: "asker", version: "2" });
    expect(contexts[0]?.signal).toBeInstanceOf(AbortSignal);
    // The wire: the probe, the first leg, then the retry with a new id, same name/arguments.
    expect(tap.sent().map((m) => [m.id, m.method])).toEqual([
      [1, "server/discover"],
      [2, "tools/call"],
      [3, "tools/call"],
    ]);
    const [first, retry] = sentFor(tap, "tools/call");
    expect(bare(first?.params)).toEqual({ name: "greet", arguments: { a: 1 } });
    expect(bare(retry?.params)).toEqual({
      name: "greet",
      arguments: { a: 1 },
      inputResponses: { user_name: { action: "accept", content: { name: "Ada" } } },
      requestState: "st-1",
    });
    // The exact frames of the two legs, both ways.
    const envelope = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {}, url: {} } },
      "io.modelcontextprotocol/clientInfo": { name: "roundtrip-client", version: "0.1.0" },
    };
    const stamp = { "io.modelcontextprotocol/serverInfo": { name: "asker", version: "2" } };
    expect(tap.messages.slice(2)).toEqual([
      {
        direction: "client→server",
        message: {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "greet", arguments: { a: 1 }, _meta: envelope },
        },
      },
      {
        direction: "server→client",
        message: {
          jsonrpc: "2.0",
          id: 2,
          result: {
            resultType: "input_required",
            inputRequests: { user_name: ELICIT },
            requestState: "st-1",
            _meta: stamp,
          },
        },
      },
      {
        direction: "client→server",
        message: {
          jsonrpc: "2.0",
          id: 3,
          method: "tools/call",
          params: {
            name: "greet",
            arguments: { a: 1 },
            inputResponses: { user_name: { action: "accept", content: { name: "Ada" } } },
            requestState: "st-1",
            _meta: envelope,
          },
        },
      },
      {
        direction: "server→client",
        message: {
          jsonrpc: "2.0",
          id: 3,
          result: {
            ...text('st-1:{"action":"accept","content":{"name":"Ada"}}'),
            resultType: "complete",
            _meta: stamp,
          },
        },
      },
    ]);
  });

  it("dispatches sampling, then returns the final result", async () => {
    const answer = {
      role: "assistant" as const,
      content: { type: "text" as const, text: "Paris" },
      model: "m-1",
    };
    let seenId: string | number | undefined;
    const { client, tap } = await connectTapped(askingServer("capital", SAMPLE), {
      sampling: (ctx, params) => {
        seenId = ctx.requestId;
        expect(params.maxTokens).toBe(50);
        return answer;
      },
      samplingCapabilities: { tools: {} },
    });
    const result = await client.callTool("ask");
    expect(seenId).toBe("capital");
    expect(textOf(result)).toBe(`st-1:${JSON.stringify(answer)}`);
    const retry = sentFor(tap, "tools/call")[1];
    expect(retry?.params.inputResponses).toEqual({ capital: answer });
    const meta = retry?.params._meta as Record<string, unknown> | undefined;
    expect(meta?.["io.modelcontextprotocol/clientCapabilities"]).toEqual({ sampling: { tools: {} } });
  });

  it("dispatches roots/list, then returns the final result; requestId is 'roots'", async () => {
    let seenId: string | number | undefined;
    const { client } = await connectTapped(askingServer("roots", ROOTS), {
      listRoots: (ctx) => {
        seenId = ctx.requestId;
        return { roots: [{ uri: "file:///work", name: "work" }] };
      },
    });
    const result = await client.callTool("where");
    expect(seenId).toBe("roots");
    expect(textOf(result)).toBe('st-1:{"roots":[{"uri":"file:///work","name":"work"}]}');
  });

  it("round-trips an evolving requestState across three rounds, each retry with a new id", async () => {
    const server = new Server("evolving", {
      logger: silentLogger,
      onCallTool: (_ctx, params): CallToolResult | InputRequiredResult => {
        const step = params.requestState === undefined ? 0 : Number(params.requestState.slice(-1));
        if (step < 3) {
          return {
            resultType: "input_required",
            inputRequests: { [`q${step + 1}`]: ELICIT },
            requestState: `round-${step + 1}`,
          };
        }
        return text(`done after ${params.requestState}`);
      },
    });
    let n = 0;
    const { client, tap } = await connectTapped(server, {
      elicitation: () => ({ action: "accept", content: { name: `n${++n}` } }),
    });
    expect(textOf(await client.callTool("t", { k: "v" }))).toBe("done after round-3");
    const legs = sentFor(tap, "tools/call");
    expect(legs.map((l) => bare(l.params))).toEqual([
      { name: "t", arguments: { k: "v" } },
      {
        name: "t",
        arguments: { k: "v" },
        inputResponses: { q1: { action: "accept", content: { name: "n1" } } },
        requestState: "round-1",
      },
      {
        name: "t",
        arguments: { k: "v" },
        inputResponses: { q2: { action: "accept", content: { name: "n2" } } },
        requestState: "round-2",
      },
      {
        name: "t",
        arguments: { k: "v" },
        inputResponses: { q3: { action: "accept", content: { name: "n3" } } },
        requestState: "round-3",
      },
    ]);
    expect(new Set(legs.map((l) => l.id)).size).toBe(4);
  });

  it.each([
    ["elicitation", ELICIT, "Elicitation not supported"],
    ["sampling", SAMPLE, "Sampling not supported"],
    ["roots", ROOTS, "List roots not supported"],
  ])(
    "without a %s callback the loop fails with -32600 and does not retry",
    async (_kind, request, message) => {
      // A stub that asks regardless of declared capabilities (our Server would refuse with -32021).
      const server = stubServer((method) =>
        method === "tools/call"
          ? { resultType: "input_required", inputRequests: { k: request }, requestState: "s" }
          : undefined,
      );
      const { client } = await connectTapped(server);
      const error = await client.callTool("t").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect(error).toMatchObject({ code: -32600, message });
      expect(server.seen.filter((s) => s.method === "tools/call")).toHaveLength(1);
    },
  );

  it("against our Server, an undeclared kind is refused by the server (-32021) before anything is asked", async () => {
    const { client } = await connectTapped(askingServer("user_name", ELICIT));
    await expect(client.callTool("t")).rejects.toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    });
  });

  it("get_prompt drives the same loop (pinned mode, low-level handler)", async () => {
    const server = new Server("prompts", {
      logger: silentLogger,
      onGetPrompt: (_ctx, params) => {
        const answer = params.inputResponses?.audience as { content?: { name?: string } } | undefined;
        if (!answer?.content) return { resultType: "input_required", inputRequests: { audience: ELICIT } };
        return {
          messages: [{ role: "user", content: { type: "text", text: `Brief ${answer.content.name}` } }],
        };
      },
    });
    const { client, tap } = await connectTapped(server, {
      mode: "2026-07-28",
      elicitation: () => ({ action: "accept", content: { name: "the board" } }),
    });
    const prompt = await client.getPrompt("briefing", { tone: "dry" });
    expect(prompt.messages[0]?.content).toEqual({ type: "text", text: "Brief the board" });
    expect(tap.sent().map((m) => m.method)).toEqual(["prompts/get", "prompts/get"]);
    expect(bare(sentFor(tap, "prompts/get")[1]?.params)).toEqual({
      name: "briefing",
      arguments: { tone: "dry" },
      inputResponses: { audience: { action: "accept", content: { name: "the board" } } },
    });
  });

  it("read_resource drives the same loop", async () => {
    const server = new Server("resources", {
      logger: silentLogger,
      onReadResource: (_ctx, params) => {
        if (!params.inputResponses?.ok) {
          return { resultType: "input_required", inputRequests: { ok: ELICIT }, requestState: "r" };
        }
        return { contents: [{ uri: params.uri, text: "secret report" }] };
      },
    });
    const { client, tap } = await connectTapped(server, {
      elicitation: () => ({ action: "accept", content: {} }),
    });
    const read = await client.readResource("x://reports/1");
    expect(read.contents).toEqual([{ uri: "x://reports/1", text: "secret report" }]);
    expect(sentFor(tap, "resources/read").map((l) => bare(l.params))).toEqual([
      { uri: "x://reports/1" },
      { uri: "x://reports/1", inputResponses: { ok: { action: "accept", content: {} } }, requestState: "r" },
    ]);
  });
});
