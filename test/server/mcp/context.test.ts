import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AuthInfo } from "../../../src/server/context.js";
import {
  type Context,
  elicitationRequest,
  inputRequired,
  type MCPServer,
} from "../../../src/server/mcp/index.js";
import { RequestAbortedError } from "../../../src/shared/errors.js";
import type {
  InputRequiredResult,
  LoggingMessageNotificationParams,
  ProgressNotificationParams,
  ReadResourceResult,
} from "../../../src/types/index.js";
import { resultOf } from "../../helpers.js";
import { connect, deferred, notificationSink, quietServer, requestWithMeta, send, stamp } from "./helpers.js";

const ELICIT = { elicitation: { form: {} } };
const Region = z.object({ region: z.string() });
const ANSWER = { region: { action: "accept", content: { region: "eu-west-1" } } };

interface Seen {
  inputResponses: unknown;
  requestState: string | undefined;
}

const see = (ctx: Context): Seen => ({ inputResponses: ctx.inputResponses, requestState: ctx.requestState });

/** Round one asks with state `plain`; the retry completes. Records what the handler saw each round. */
function asking(plain: string, seen: Seen[]) {
  return (ctx: Context) => {
    seen.push(see(ctx));
    if (ctx.inputResponses === undefined) {
      return inputRequired({
        inputRequests: { region: elicitationRequest("Which region?", Region) },
        requestState: plain,
      });
    }
    return undefined;
  };
}

describe("inputResponses and requestState (python §9.8)", () => {
  it("a tool sees neither on round one and the plaintext it minted on the retry", async () => {
    const mcp = quietServer("ctx");
    const seen: Seen[] = [];
    const ask = asking("r1", seen);
    mcp.tool("provision", { input: z.object({ name: z.string() }) }, (_args, ctx) => ask(ctx) ?? "done");
    const first = resultOf(
      await send(mcp, "tools/call", { name: "provision", arguments: { name: "orders" } }, ELICIT),
    );
    expect(first.requestState).toMatch(/^v1\./);
    const second = resultOf(
      await send(
        mcp,
        "tools/call",
        {
          name: "provision",
          arguments: { name: "orders" },
          inputResponses: ANSWER,
          requestState: first.requestState,
        },
        ELICIT,
      ),
    );
    expect(second.content).toEqual([{ type: "text", text: "done" }]);
    expect(seen).toEqual([
      { inputResponses: undefined, requestState: undefined },
      { inputResponses: ANSWER, requestState: "r1" },
    ]);
  });

  it("a prompt sees neither on round one and the plaintext on the retry", async () => {
    const mcp = quietServer("ctx");
    const seen: Seen[] = [];
    const ask = asking("p1", seen);
    mcp.prompt("briefing", {}, (_args, ctx) => ask(ctx) ?? "Write a briefing");
    const first = resultOf(await send(mcp, "prompts/get", { name: "briefing" }, ELICIT));
    expect(first).toMatchObject({
      resultType: "input_required",
      requestState: expect.stringMatching(/^v1\./),
    });
    const second = resultOf(
      await send(
        mcp,
        "prompts/get",
        { name: "briefing", inputResponses: ANSWER, requestState: first.requestState },
        ELICIT,
      ),
    );
    expect(second.messages).toEqual([{ role: "user", content: { type: "text", text: "Write a briefing" } }]);
    expect(seen).toEqual([
      { inputResponses: undefined, requestState: undefined },
      { inputResponses: ANSWER, requestState: "p1" },
    ]);
  });

  it("a resource template sees neither on round one and the plaintext on the retry", async () => {
    const mcp = quietServer("ctx");
    const seen: Seen[] = [];
    const ask = asking("t1", seen);
    mcp.resource("reports://{q}", {}, (_v, ctx) => ask(ctx) ?? "report");
    const first = resultOf(await send(mcp, "resources/read", { uri: "reports://Q1" }, ELICIT));
    const second = resultOf(
      await send(
        mcp,
        "resources/read",
        { uri: "reports://Q1", inputResponses: ANSWER, requestState: first.requestState },
        ELICIT,
      ),
    );
    expect(second.contents).toEqual([{ uri: "reports://Q1", text: "report" }]);
    expect(seen).toEqual([
      { inputResponses: undefined, requestState: undefined },
      { inputResponses: ANSWER, requestState: "t1" },
    ]);
  });

  it("a retry carrying only inputResponses leaves requestState undefined", async () => {
    const mcp = quietServer("ctx");
    const seen: Seen[] = [];
    mcp.tool("t", {}, (_a, ctx) => {
      seen.push(see(ctx));
      return "ok";
    });
    await send(mcp, "tools/call", { name: "t", inputResponses: ANSWER });
    expect(seen).toEqual([{ inputResponses: ANSWER, requestState: undefined }]);
  });
});

describe("reading resources from a handler", () => {
  /** A server with a template that always asks, one that answers, and a recorder of what the nested read saw. */
  function nestedServer() {
    const mcp = quietServer("ctx");
    const nestedSaw: Seen[] = [];
    mcp.resource("ask://{id}", {}, (_v, ctx) => {
      nestedSaw.push(see(ctx));
      return inputRequired({
        inputRequests: { confirm: elicitationRequest("Confirm?", z.object({ ok: z.boolean() })) },
        requestState: "nested-state",
      });
    });
    mcp.resource("plain://{id}", {}, ({ id }, ctx) => {
      nestedSaw.push(see(ctx));
      return `plain ${id}`;
    });
    return { mcp, nestedSaw };
  }

  it("ctx.readResource returns the contents of a resource that answers", async () => {
    const { mcp } = nestedServer();
    let read: ReadResourceResult | undefined;
    mcp.tool("reader", {}, async (_a, ctx) => {
      read = await ctx.readResource("plain://7");
      return "ok";
    });
    await send(mcp, "tools/call", { name: "reader" });
    expect(read).toEqual({ contents: [{ uri: "plain://7", text: "plain 7" }] });
  });

  it("ctx.readResource throws, pointing to mcp.readResource(uri, ctx), when the template answers input_required", async () => {
    const { mcp } = nestedServer();
    let caught: unknown;
    mcp.tool("reader", {}, async (_a, ctx) => {
      try {
        await ctx.readResource("ask://1");
      } catch (error) {
        caught = error;
      }
      return "ok";
    });
    await send(mcp, "tools/call", { name: "reader" }, ELICIT);
    expect(caught).toBeInstanceOf(Error);
    expect((caught as Error).message).toBe(
      "Resource ask://1 answered input_required; ctx.readResource only reads content. " +
        "Use mcp.readResource(uri, ctx) to get the InputRequiredResult and forward it.",
    );
  });

  it("mcp.readResource(uri, ctx) returns the InputRequiredResult for forwarding, and it reaches the client sealed", async () => {
    const { mcp } = nestedServer();
    let nested: InputRequiredResult | ReadResourceResult | undefined;
    mcp.tool("forward", {}, async (_a, ctx) => {
      nested = await mcp.readResource("ask://1", ctx);
      return nested;
    });
    const result = resultOf(await send(mcp, "tools/call", { name: "forward" }, ELICIT));
    expect(nested).toEqual({
      resultType: "input_required",
      inputRequests: { confirm: expect.objectContaining({ method: "elicitation/create" }) },
      requestState: "nested-state",
    });
    expect(result).toEqual({
      resultType: "input_required",
      inputRequests: { confirm: expect.objectContaining({ method: "elicitation/create" }) },
      requestState: expect.stringMatching(/^v1\./),
      _meta: stamp("ctx"),
    });
  });

  it("mcp.readResource works without a context (a detached first-round read)", async () => {
    const { mcp, nestedSaw } = nestedServer();
    expect(await mcp.readResource("plain://3")).toEqual({
      contents: [{ uri: "plain://3", text: "plain 3" }],
    });
    expect(await mcp.readResource("ask://3")).toMatchObject({ resultType: "input_required" });
    expect(nestedSaw).toEqual([
      { inputResponses: undefined, requestState: undefined },
      { inputResponses: undefined, requestState: undefined },
    ]);
  });

  it("the nested template never sees the outer request's inputResponses or requestState", async () => {
    const { mcp, nestedSaw } = nestedServer();
    const outerSaw: Seen[] = [];
    mcp.tool("outer", {}, async (_a, ctx) => {
      outerSaw.push(see(ctx));
      if (ctx.inputResponses === undefined) {
        return inputRequired({
          inputRequests: { region: elicitationRequest("Which region?", Region) },
          requestState: "outer-state",
        });
      }
      await ctx.readResource("plain://1");
      const forwarded = await mcp.readResource("ask://1", ctx);
      return forwarded.resultType === "input_required" ? "nested asked again" : "nested answered";
    });
    const first = resultOf(await send(mcp, "tools/call", { name: "outer" }, ELICIT));
    const second = resultOf(
      await send(
        mcp,
        "tools/call",
        {
          name: "outer",
          inputResponses: { ...ANSWER, confirm: { action: "accept", content: { ok: true } } },
          requestState: first.requestState,
        },
        ELICIT,
      ),
    );
    expect(second.content).toEqual([{ type: "text", text: "nested asked again" }]);
    expect(outerSaw[1]?.requestState).toBe("outer-state");
    expect(nestedSaw).toEqual([
      { inputResponses: undefined, requestState: undefined },
      { inputResponses: undefined, requestState: undefined },
    ]);
  });
});

describe("progress and log notifications", () => {
  function chatty() {
    const mcp = quietServer("ctx");
    mcp.tool("work", {}, async (_a, ctx) => {
      await ctx.progress(1, 2, "half way");
      await ctx.progress(2);
      await ctx.debug("debug detail");
      await ctx.info({ step: "copy" });
      await ctx.warning("disk at 80%");
      await ctx.error({ code: 7 });
      await ctx.log("error", "bad thing", "worker");
      return "done";
    });
    return mcp;
  }

  it("sends nothing when the request asked for neither progress nor logs", async () => {
    const sink = notificationSink();
    await chatty().dispatch(requestWithMeta("tools/call", { name: "work" }, {}), sink);
    expect(sink.seen).toEqual([]);
  });

  it("sends progress only when the request carried a progressToken", async () => {
    const sink = notificationSink();
    await chatty().dispatch(
      requestWithMeta("tools/call", { name: "work" }, { progressToken: "tok-1" }),
      sink,
    );
    expect(sink.seen).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "tok-1", progress: 1, total: 2, message: "half way" },
      },
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "tok-1", progress: 2 } },
    ]);
  });

  it("sends log messages at or above the requested logLevel only", async () => {
    const sink = notificationSink();
    await chatty().dispatch(
      requestWithMeta("tools/call", { name: "work" }, { "io.modelcontextprotocol/logLevel": "info" }),
      sink,
    );
    expect(sink.seen).toEqual([
      { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: { step: "copy" } } },
      { jsonrpc: "2.0", method: "notifications/message", params: { level: "warning", data: "disk at 80%" } },
      { jsonrpc: "2.0", method: "notifications/message", params: { level: "error", data: { code: 7 } } },
      {
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "error", data: "bad thing", logger: "worker" },
      },
    ]);
  });

  it("delivers progress and logs to the calling ClientSession", async () => {
    const session = await connect(chatty(), { logLevel: "debug" });
    const progress: ProgressNotificationParams[] = [];
    const logs: LoggingMessageNotificationParams[] = [];
    const result = await session.callTool("work", undefined, {
      onProgress: (p) => progress.push(p),
      onLog: (l) => logs.push(l),
    });
    expect(result.content).toEqual([{ type: "text", text: "done" }]);
    expect(progress.map((p) => [p.progress, p.total, p.message])).toEqual([
      [1, 2, "half way"],
      [2, undefined, undefined],
    ]);
    expect(logs.map((l) => l.level)).toEqual(["debug", "info", "warning", "error", "error"]);
    await session.close();
  });
});

describe("cancellation", () => {
  it("ctx.signal fires when the client aborts the call", async () => {
    const mcp = quietServer("ctx");
    const started = deferred();
    const aborted = deferred<boolean>();
    mcp.tool("slow", {}, (_a, ctx) => {
      expect(ctx.signal.aborted).toBe(false);
      ctx.signal.addEventListener("abort", () => aborted.resolve(true), { once: true });
      started.resolve();
      return new Promise<string>(() => {}); // never settles on its own
    });
    const session = await connect(mcp);
    const controller = new AbortController();
    const call = session.callTool("slow", undefined, { signal: controller.signal });
    await started.promise;
    controller.abort();
    await expect(call).rejects.toBeInstanceOf(RequestAbortedError);
    expect(await aborted.promise).toBe(true);
    await session.close();
  });

  it("a request cancelled before the handler settles gets no response", async () => {
    const mcp = quietServer("ctx");
    const controller = new AbortController();
    mcp.tool("slow", {}, async () => {
      controller.abort();
      return "late";
    });
    expect(
      await send(mcp, "tools/call", { name: "slow" }, {}, { signal: controller.signal }),
    ).toBeUndefined();
  });
});

describe("who is asking", () => {
  const AUTH: AuthInfo = {
    token: "secret-token",
    clientId: "client-123",
    scopes: ["read"],
    subject: "alice",
  };

  function identityServer(): { mcp: MCPServer; seen: Record<string, unknown>[] } {
    const mcp = quietServer("ctx");
    const seen: Record<string, unknown>[] = [];
    const record = (kind: string, ctx: Context) => {
      seen.push({
        kind,
        protocolVersion: ctx.protocolVersion,
        clientCapabilities: ctx.clientCapabilities,
        clientInfo: ctx.clientInfo,
        authInfo: ctx.authInfo,
        requestIdIsSet: ctx.requestId !== undefined,
      });
    };
    mcp.tool("who", {}, (_a, ctx) => {
      record("tool", ctx);
      return "ok";
    });
    mcp.prompt("who", {}, (_a, ctx) => {
      record("prompt", ctx);
      return "ok";
    });
    mcp.resource("who://{id}", {}, (_v, ctx) => {
      record("template", ctx);
      return "ok";
    });
    mcp.resource("who://static", {}, (_v, ctx) => {
      record("static", ctx);
      return "ok";
    });
    return { mcp, seen };
  }

  const expected = (kind: string) => ({
    kind,
    protocolVersion: "2026-07-28",
    clientCapabilities: { roots: {}, elicitation: { form: {} } },
    clientInfo: { name: "probe", version: "3.1" },
    authInfo: AUTH,
    requestIdIsSet: true,
  });

  it("tools, prompts and templates see protocolVersion, clientCapabilities, clientInfo and authInfo", async () => {
    const { mcp, seen } = identityServer();
    const session = await connect(
      mcp,
      {
        capabilities: { roots: {}, elicitation: { form: {} } },
        clientInfo: { name: "probe", version: "3.1" },
      },
      { authInfo: AUTH },
    );
    await session.callTool("who");
    await session.getPrompt("who");
    await session.readResource("who://1");
    expect(seen).toEqual([expected("tool"), expected("prompt"), expected("template")]);
    await session.close();
  });

  // Regression: a static resource's handler is given a fabricated, detached Context
  // (MCPServer#detachedRequest): clientCapabilities {}, clientInfo undefined, authInfo
  // undefined, requestId 0, a signal that never fires and notify as a no-op — whatever the real
  // request carried. The Context contract (src/server/mcp/context.ts: "What every MCPServer
  // handler receives: … who is asking, and the request-scoped channels (progress, logs,
  // cancellation)") is broken for static resources, e.g. an authInfo-based check in a static
  // resource silently sees no caller.
  it("a static resource sees the same request facts as a template", async () => {
    const { mcp, seen } = identityServer();
    const session = await connect(
      mcp,
      {
        capabilities: { roots: {}, elicitation: { form: {} } },
        clientInfo: { name: "probe", version: "3.1" },
      },
      { authInfo: AUTH },
    );
    await session.readResource("who://static");
    expect(seen).toEqual([expected("static")]);
    await session.close();
  });
});

describe("ctx.canAsk", () => {
  it("tells which embedded requests the request's declared capabilities cover", async () => {
    const { MCPServer } = await import("../../../src/server/mcp/mcp-server.js");
    const { elicitationRequest, rootsRequest, samplingRequest, urlElicitationRequest } = await import(
      "../../../src/server/mcp/input.js"
    );
    const { silentLogger } = await import("../../../src/server/logger.js");
    const { request, resultOf } = await import("../../helpers.js");
    const form = elicitationRequest("Name?", { type: "object", properties: { name: { type: "string" } } });
    const url = urlElicitationRequest("Sign in", "https://example.com/login");
    const sampling = samplingRequest({ prompt: "hi", maxTokens: 5 });
    const samplingWithTools = samplingRequest({
      prompt: "hi",
      maxTokens: 5,
      tools: [{ name: "t", inputSchema: { type: "object" } }],
    });
    const roots = rootsRequest();
    const mcp = new MCPServer("can-ask", { logger: silentLogger });
    mcp.tool("probe", {}, (_args, ctx) =>
      JSON.stringify([form, url, sampling, samplingWithTools, roots].map((r) => ctx.canAsk(r))),
    );
    const ask = async (capabilities: Record<string, unknown>) =>
      JSON.parse(
        (
          resultOf(await mcp.dispatch(request("tools/call", { name: "probe" }, capabilities))).content as {
            text: string;
          }[]
        )[0]?.text ?? "null",
      );
    expect(await ask({})).toEqual([false, false, false, false, false]);
    expect(await ask({ elicitation: {} })).toEqual([true, false, false, false, false]);
    expect(await ask({ elicitation: { url: {} } })).toEqual([false, true, false, false, false]);
    expect(await ask({ sampling: {}, roots: {} })).toEqual([false, false, true, false, true]);
    expect(await ask({ sampling: { tools: {} } })).toEqual([false, false, true, true, false]);
  });
});
