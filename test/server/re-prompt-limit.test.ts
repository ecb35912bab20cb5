import { afterEach, describe, expect, it, vi } from "vitest";
import * as z from "zod";
import { Client } from "../../src/client/client.js";
import { silentLogger } from "../../src/server/logger.js";
import { elicitationRequest, inputRequired, inputResponse, MCPServer } from "../../src/server/mcp/index.js";
import { limitRePrompts, type RePromptLimitOptions } from "../../src/server/re-prompt-limit.js";
import { Server } from "../../src/server/server.js";
import type { AuthInfo } from "../../src/shared/dispatch.js";
import { serveHttp } from "../../src/transports/http/node.js";
import {
  type CallToolResult,
  type InputRequest,
  type InputRequiredResult,
  McpError,
} from "../../src/types/index.js";
import { errorOf, meta, request, resultOf } from "../helpers.js";
import { post, rpc } from "../transports/http/helpers.js";

const ASK: InputRequest = {
  method: "elicitation/create",
  params: { message: "Again?", requestedSchema: { type: "object", properties: {} } },
};
const ELICITATION = { elicitation: { form: {} } };

/** A tool that asks on every leg, plus `done`, which completes once it has any answer. */
function askingForever(limit: Partial<RePromptLimitOptions> = {}) {
  let clock = 1_000_000;
  const server = new Server("asker", {
    logger: silentLogger,
    onCallTool: (_ctx, params): CallToolResult | InputRequiredResult =>
      params.name === "done" && params.inputResponses
        ? { content: [{ type: "text", text: "done" }] }
        : { resultType: "input_required", inputRequests: { q: ASK } },
  });
  server.middleware.push(limitRePrompts({ max: 2, windowMs: 60_000, now: () => clock, ...limit }));
  const call = (name: string, answered: boolean, authInfo?: AuthInfo) => {
    const params = {
      name,
      arguments: {},
      ...(answered ? { inputResponses: { q: { action: "decline" } } } : {}),
    };
    return server.dispatch(request("tools/call", params, ELICITATION), { authInfo });
  };
  return {
    server,
    call,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

const user = (subject: string): AuthInfo => ({ token: `t-${subject}`, clientId: "app", scopes: [], subject });

describe("limitRePrompts", () => {
  it("answers the re-prompt past max with -32600 and data.retryAfterMs, then lets it through once the window slides", async () => {
    const { call, advance } = askingForever();
    expect(resultOf(await call("ask", true)).resultType).toBe("input_required");
    advance(10_000);
    expect(resultOf(await call("ask", true)).resultType).toBe("input_required");
    advance(5_000);
    expect(errorOf(await call("ask", true))).toEqual({
      code: -32600,
      message: "Too many re-prompts: retry in 45 s",
      data: { retryAfterMs: 45_000 },
    });
    advance(45_000); // the first re-prompt has left the window
    expect(resultOf(await call("ask", true)).resultType).toBe("input_required");
    expect(errorOf(await call("ask", true)).data).toEqual({ retryAfterMs: 10_000 });
  });

  it("never limits first questions, nor a retry that completes", async () => {
    const { call } = askingForever({ max: 0 });
    for (let i = 0; i < 5; i++) expect(resultOf(await call("ask", false)).resultType).toBe("input_required");
    expect(resultOf(await call("done", true)).content).toEqual([{ type: "text", text: "done" }]);
    expect(errorOf(await call("ask", true)).code).toBe(-32600);
  });

  it("counts per verified user, with one shared bucket for unauthenticated requests", async () => {
    const { call } = askingForever({ max: 1 });
    expect(resultOf(await call("ask", true, user("alice"))).resultType).toBe("input_required");
    expect(errorOf(await call("ask", true, user("alice"))).code).toBe(-32600);
    expect(resultOf(await call("ask", true, user("bob"))).resultType).toBe("input_required");
    expect(resultOf(await call("ask", true)).resultType).toBe("input_required");
    expect(errorOf(await call("ask", true)).code).toBe(-32600);
  });

  it("leaves a request unlimited when the key function gives undefined", async () => {
    const { call } = askingForever({ max: 0, key: () => undefined });
    for (let i = 0; i < 3; i++) expect(resultOf(await call("ask", true)).resultType).toBe("input_required");
  });

  it("forgets the least recently seen client past maxClients, so memory stays bounded", async () => {
    const { call } = askingForever({ max: 1, maxClients: 1 });
    await call("ask", true, user("alice"));
    expect(errorOf(await call("ask", true, user("alice"))).code).toBe(-32600);
    await call("ask", true, user("bob")); // alice is forgotten
    expect(resultOf(await call("ask", true, user("alice"))).resultType).toBe("input_required");
  });

  it("keeps at most maxClients clients with max 0 too, where every re-prompt is refused", async () => {
    // The clients tracked are only seen through the Map that holds them: catch it as it is filled.
    let tracked: Map<unknown, unknown> | undefined;
    const set = Map.prototype.set;
    const spy = vi.spyOn(Map.prototype, "set").mockImplementation(function (
      this: Map<unknown, unknown>,
      k,
      v,
    ) {
      if (typeof k === "string" && k.startsWith("client-")) tracked = this;
      return set.call(this, k, v);
    });
    let n = 0;
    const { call } = askingForever({ max: 0, maxClients: 2, key: () => `client-${n++}` });
    try {
      for (let i = 0; i < 5; i++) expect(errorOf(await call("ask", true)).code).toBe(-32600);
    } finally {
      spy.mockRestore();
    }
    expect(tracked?.size).toBe(2);
  });

  it("forgets by recency of use: a client seen again outlives one seen once before it", async () => {
    const { call } = askingForever({ max: 1, maxClients: 2 });
    await call("ask", true, user("alice"));
    await call("ask", true, user("bob"));
    expect(errorOf(await call("ask", true, user("alice"))).code).toBe(-32600); // alice seen again
    await call("ask", true, user("carol")); // bob, the least recently seen, is forgotten
    expect(errorOf(await call("ask", true, user("alice"))).code).toBe(-32600);
    expect(resultOf(await call("ask", true, user("bob"))).resultType).toBe("input_required");
  });

  it.each([
    [{ max: -1, windowMs: 1 }, "max must be a non-negative integer, got -1"],
    [{ max: 1.5, windowMs: 1 }, "max must be a non-negative integer, got 1.5"],
    [{ max: 1, windowMs: 0 }, "windowMs must be a positive number of milliseconds, got 0"],
    [{ max: 1, windowMs: Number.NaN }, "windowMs must be a positive number of milliseconds, got NaN"],
    [{ max: 1, windowMs: 1, maxClients: 0 }, "maxClients must be a positive integer, got 0"],
  ])("refuses %j at construction", (options, message) => {
    expect(() => limitRePrompts(options)).toThrow(new RangeError(message));
  });
});

describe("limitRePrompts end to end, with a tool that asks again until the user accepts", () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (closers.length > 0) await closers.pop()?.();
  });

  function provisioner() {
    const mcp = new MCPServer("Provisioner", { logger: silentLogger });
    const Region = z.object({ region: z.string() });
    const askRegion = elicitationRequest("Which region?", Region);
    mcp.tool("provision", { input: z.object({ name: z.string() }) }, ({ name }, ctx) => {
      const answer = inputResponse(ctx, "region");
      if (answer.kind !== "accept") return inputRequired({ inputRequests: { region: askRegion } });
      return `Provisioned '${name}' in ${String(answer.content?.region)}.`;
    });
    mcp.server.middleware.push(limitRePrompts({ max: 3, windowMs: 60_000 }));
    return mcp;
  }

  it("our client, declining every time, is stopped by the server after 3 re-prompts", async () => {
    let asked = 0;
    const client = await Client.connect(provisioner(), {
      elicitation: () => {
        asked++;
        return { action: "decline" };
      },
    });
    const error = await client.callTool("provision", { name: "orders" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32600, data: { retryAfterMs: expect.any(Number) } });
    // The first question, 3 re-prompts, then the fourth decline is refused.
    expect(asked).toBe(4);
    await client.close();
  });

  it("over HTTP the refusal is 400 with the JSON-RPC error", async () => {
    const handle = await serveHttp(provisioner());
    closers.push(handle.close);
    const bad = { inputResponses: { region: { action: "decline" } } };
    const retry = (id: number) => {
      const body = rpc("tools/call", { name: "provision", arguments: { name: "x" }, ...bad }, id);
      return post(handle.url, { ...body, params: { ...body.params, _meta: meta(ELICITATION) } });
    };
    for (let id = 1; id <= 3; id++) expect((await retry(id)).status).toBe(200);
    const refused = await retry(4);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      jsonrpc: "2.0",
      id: 4,
      error: {
        code: -32600,
        message: "Too many re-prompts: retry in 60 s",
        data: { retryAfterMs: expect.any(Number) },
      },
    });
  });
});
