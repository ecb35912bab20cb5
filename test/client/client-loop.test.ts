import { describe, expect, it } from "vitest";
import { InputRequiredRoundsExceededError, InvalidInputResponseError } from "../../src/client/errors.js";
import { ProtocolError, RoundtripError } from "../../src/shared/errors.js";
import { McpError } from "../../src/types/index.js";
import {
  askingServer,
  bare,
  connectTapped,
  ELICIT,
  SAMPLE,
  SERVER_INFO,
  sentFor,
  stubServer,
  textOf,
} from "./stubs.js";

describe("Client auto loop: rounds, bounds and isolation", () => {
  it("dispatches the entries of one round concurrently (barrier)", async () => {
    const server = stubServer((method, params) => {
      if (method !== "tools/call") return undefined;
      if (params.inputResponses) return { resultType: "complete", content: [] };
      return { resultType: "input_required", inputRequests: { a: ELICIT, b: ELICIT }, requestState: "s" };
    });
    let arrived = 0;
    let release!: () => void;
    const barrier = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { client } = await connectTapped(server, {
      elicitation: async (ctx) => {
        if (++arrived === 2) release();
        await barrier;
        return { action: "accept", content: { name: String(ctx.requestId) } };
      },
    });
    await client.callTool("t");
    expect(server.seen.at(-1)?.params.inputResponses).toEqual({
      a: { action: "accept", content: { name: "a" } },
      b: { action: "accept", content: { name: "b" } },
    });
  });

  it("an invalid callback answer is a clear local error, and nothing is retried", async () => {
    const server = stubServer((method) =>
      method === "tools/call" ? { resultType: "input_required", inputRequests: { q: ELICIT } } : undefined,
    );
    const { client } = await connectTapped(server, {
      elicitation: () => ({ action: "maybe" }) as never,
    });
    const error = await client.callTool("t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputResponseError);
    expect((error as Error).message).toMatch(
      /elicitation\/create callback returned an invalid answer for input request 'q'/,
    );
    expect((error as Error).message).toContain("ElicitResult");
    expect(server.seen.filter((s) => s.method === "tools/call")).toHaveLength(1);
  });

  it("a question under the key __proto__ is refused: no callback runs and nothing is retried", async () => {
    const server = stubServer((method) =>
      method === "tools/call"
        ? JSON.parse(
            `{"resultType":"input_required","inputRequests":{"__proto__":${JSON.stringify(ELICIT)}},"requestState":"s"}`,
          )
        : undefined,
    );
    const asked: unknown[] = [];
    const { client, tap } = await connectTapped(server, {
      elicitation: async (ctx) => {
        asked.push(ctx.requestId);
        return { action: "accept", content: { name: "Ada" } };
      },
    });
    await expect(client.callTool("t", {})).rejects.toThrow(ProtocolError);
    expect(asked).toEqual([]);
    expect(sentFor(tap, "tools/call")).toHaveLength(1);
  });

  it("a sampling question that breaks the tool-loop rules never reaches the sampling callback", async () => {
    const broken = {
      method: "sampling/createMessage",
      params: {
        maxTokens: 50,
        messages: [
          { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "w", input: {} }] },
          { role: "user", content: [{ type: "tool_result", toolUseId: "t2", content: [] }] },
        ],
      },
    };
    const server = stubServer((method) =>
      method === "tools/call"
        ? { resultType: "input_required", inputRequests: { llm: broken }, requestState: "s" }
        : undefined,
    );
    const sampled: unknown[] = [];
    const { client, tap } = await connectTapped(server, {
      sampling: async (_ctx, params) => {
        sampled.push(params);
        return { role: "assistant", content: { type: "text", text: "x" }, model: "m" };
      },
    });
    await expect(client.callTool("t", {})).rejects.toThrow(
      new ProtocolError(
        'The server sent a malformed InputRequiredResult for tools/call (inputRequests["llm"]: messages[1]: tool_result "t2" answers no tool_use of the message before it)',
      ),
    );
    expect(sampled).toEqual([]);
    expect(sentFor(tap, "tools/call")).toHaveLength(1);
  });

  it("endless rounds raise InputRequiredRoundsExceededError with lastResult after 1 + max legs", async () => {
    let n = 0;
    const server = stubServer((method) =>
      method === "tools/call"
        ? { resultType: "input_required", inputRequests: { q: ELICIT }, requestState: `s${n++}` }
        : undefined,
    );
    const { client } = await connectTapped(server, {
      inputRequiredMaxRounds: 2,
      elicitation: () => ({ action: "decline" }),
    });
    const error = (await client.callTool("t").catch((e: unknown) => e)) as InputRequiredRoundsExceededError;
    expect(error).toBeInstanceOf(InputRequiredRoundsExceededError);
    expect(error.maxRounds).toBe(2);
    expect(error.lastResult).toMatchObject({ resultType: "input_required", requestState: "s2" });
    expect(server.seen.filter((s) => s.method === "tools/call")).toHaveLength(3);
    // Per-call override.
    await expect(client.callTool("t", {}, { inputRequiredMaxRounds: 0 })).rejects.toMatchObject({
      maxRounds: 0,
    });
  });

  it("the default cap allows at most 11 legs", async () => {
    const server = stubServer((method) =>
      method === "tools/call"
        ? { resultType: "input_required", inputRequests: { q: ELICIT }, requestState: "s" }
        : undefined,
    );
    const { client } = await connectTapped(server, { elicitation: () => ({ action: "cancel" }) });
    await expect(client.callTool("t")).rejects.toBeInstanceOf(InputRequiredRoundsExceededError);
    expect(server.seen.filter((s) => s.method === "tools/call")).toHaveLength(11);
  });

  it("a retry answering an unknown resultType is an error; a missing resultType is complete", async () => {
    let answer: Record<string, unknown> = { resultType: "mystery", content: [] };
    const server = stubServer((method, params) => {
      if (method !== "tools/call") return undefined;
      return params.requestState ? answer : { resultType: "input_required", requestState: "s" };
    });
    const { client } = await connectTapped(server);
    await expect(client.callTool("t")).rejects.toBeInstanceOf(ProtocolError);
    answer = { content: [{ type: "text", text: "legacy-shaped" }] };
    expect(await client.callTool("t")).toEqual(answer);
  });

  it("a seeded call sends the persisted responses and state on its first leg", async () => {
    const { client, tap } = await connectTapped(askingServer("region", ELICIT));
    const seeded = await client.callTool(
      "t",
      { a: 1 },
      {
        inputResponses: { region: { action: "accept", content: { region: "eu" } } },
        requestState: "persisted-state",
      },
    );
    expect(textOf(seeded)).toBe('persisted-state:{"action":"accept","content":{"region":"eu"}}');
    expect(sentFor(tap, "tools/call").map((l) => bare(l.params))).toEqual([
      {
        name: "t",
        arguments: { a: 1 },
        inputResponses: { region: { action: "accept", content: { region: "eu" } } },
        requestState: "persisted-state",
      },
    ]);
  });

  it("keeps parallel flows isolated: each retry carries its own state and answers", async () => {
    const server = stubServer((method, params) => {
      if (method !== "tools/call") return undefined;
      const who = (params.arguments as { who: string }).who;
      if (params.requestState === undefined) {
        return {
          resultType: "input_required",
          inputRequests: { [`k-${who}`]: ELICIT },
          requestState: `state-${who}`,
        };
      }
      return {
        resultType: "complete",
        content: [
          {
            type: "text",
            text: `${who}|${params.requestState}|${Object.keys(params.inputResponses as object).join()}`,
          },
        ],
      };
    });
    const { client } = await connectTapped(server, {
      elicitation: async (ctx) => ({ action: "accept", content: { name: String(ctx.requestId) } }),
    });
    const [a, b] = await Promise.all([
      client.callTool("t", { who: "a" }),
      client.callTool("t", { who: "b" }),
    ]);
    expect(textOf(a)).toBe("a|state-a|k-a");
    expect(textOf(b)).toBe("b|state-b|k-b");
  });

  it("lets onRound refuse a round before anything of it is answered (a cost guard for sampling)", async () => {
    const requests = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`s${i}`, SAMPLE]));
    const server = stubServer((method) =>
      method === "tools/call" ? { resultType: "input_required", inputRequests: requests } : undefined,
    );
    let sampled = 0;
    const tooMany = new Error("the server asked for 50 completions in one round");
    const { client, tap } = await connectTapped(server, {
      sampling: () => {
        sampled++;
        return { role: "assistant", content: { type: "text", text: "Paris" }, model: "m" };
      },
      onRound: ({ result }) => {
        if (Object.keys(result.inputRequests ?? {}).length > 8) throw tooMany;
      },
    });
    await expect(client.callTool("t")).rejects.toBe(tooMany);
    expect(sampled).toBe(0);
    expect(sentFor(tap, "tools/call")).toHaveLength(1);
  });

  it("reports each round to onRound with its method", async () => {
    const rounds: unknown[] = [];
    const { client } = await connectTapped(askingServer("q", ELICIT), {
      elicitation: () => ({ action: "accept", content: {} }),
      onRound: ({ method, round, maxRounds, stateOnly }) =>
        rounds.push({ method, round, maxRounds, stateOnly }),
    });
    await client.callTool("t");
    expect(rounds).toEqual([{ method: "tools/call", round: 1, maxRounds: 10, stateOnly: false }]);
  });

  it("a 2025 session has no input_required: the answer is refused, no callback runs, nothing is retried", async () => {
    const server = stubServer((method) => {
      if (method === "server/discover") throw new McpError(-32601, "Method not found");
      if (method === "initialize") {
        return { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: SERVER_INFO };
      }
      if (method === "tools/call") {
        return { resultType: "input_required", inputRequests: { q: ELICIT }, requestState: "s" };
      }
      return undefined;
    });
    const asked: unknown[] = [];
    const { client, tap } = await connectTapped(server, {
      elicitation: (ctx) => {
        asked.push(ctx.requestId);
        return { action: "decline" };
      },
    });
    expect(client.protocolVersion).toBe("2025-11-25");
    const expected =
      "The server answered input_required to tools/call on a 2025-era session, which has no such result";
    await expect(client.callTool("t")).rejects.toThrow(new ProtocolError(expected));
    await expect(client.session.callTool("t", {}, { allowInputRequired: true })).rejects.toThrow(
      new ProtocolError(expected),
    );
    expect(asked).toEqual([]);
    expect(sentFor(tap, "tools/call").map((l) => bare(l.params))).toEqual([
      { name: "t" },
      { name: "t", arguments: {} },
    ]);
  });
  it("a 2025 session has no inputResponses or requestState: a seeded call fails locally and sends nothing", async () => {
    const server = stubServer((method) => {
      if (method === "server/discover") throw new McpError(-32601, "Method not found");
      if (method === "initialize") {
        return {
          protocolVersion: "2025-11-25",
          capabilities: { tools: {}, prompts: {}, resources: {} },
          serverInfo: SERVER_INFO,
        };
      }
      return { content: [], messages: [], contents: [] };
    });
    const { client, tap } = await connectTapped(server);
    const seeds = [{ inputResponses: { q: { action: "decline" as const } } }, { requestState: "s-1" }];
    const attempts = seeds.flatMap(
      (seed) =>
        [
          ["tools/call", client.callTool("t", {}, seed)],
          ["prompts/get", client.getPrompt("p", {}, seed)],
          ["resources/read", client.readResource("file:///a", seed)],
          ["tools/call", client.session.callTool("t", {}, { ...seed, allowInputRequired: true })],
        ] as const,
    );
    for (const [method, attempt] of attempts) {
      const error = await attempt.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RoundtripError);
      expect((error as Error).message).toBe(
        `${method} cannot carry inputResponses or requestState: they belong to the multi-round-trip ` +
          "requests of protocol 2026-07-28, and this session speaks 2025-11-25",
      );
    }
    const sent = tap.sent().map((m) => m.method);
    for (const method of ["tools/call", "prompts/get", "resources/read"]) expect(sent).not.toContain(method);
  });
});
