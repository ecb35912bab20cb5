import { describe, expect, it } from "vitest";
import { ClientSession } from "../../src/client/session.js";
import { silentLogger } from "../../src/server/logger.js";
import { sendLog, sendProgress } from "../../src/server/notify.js";
import { Server } from "../../src/server/server.js";
import { RequestAbortedError } from "../../src/shared/errors.js";
import { MemoryTransport } from "../../src/transports/memory.js";
import type {
  JSONRPCNotification,
  LoggingMessageNotificationParams,
  ProgressNotificationParams,
} from "../../src/types/index.js";
import { request, resultOf, wireTap } from "../helpers.js";

function chattyServer() {
  return new Server("chatty", {
    logger: silentLogger,
    onCallTool: async (ctx) => {
      await sendProgress(ctx, 1, 2, "half");
      await sendLog(ctx, "debug", "fine detail");
      await sendLog(ctx, "warning", { disk: "low" }, "storage");
      await sendProgress(ctx, 2, 2);
      return { content: [{ type: "text", text: "done" }] };
    },
  });
}

describe("request-scoped notifications", () => {
  it("sends progress only with a progressToken and logs only at or above the requested level", async () => {
    const server = chattyServer();
    const seen: JSONRPCNotification[] = [];
    const req = request("tools/call", { name: "t" });
    req.params._meta = {
      ...req.params._meta,
      progressToken: "p1",
      "io.modelcontextprotocol/logLevel": "info",
    } as never;
    const response = await server.dispatch(req, { notify: (n) => void seen.push(n) });
    expect(resultOf(response).content).toEqual([{ type: "text", text: "done" }]);
    expect(seen).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "p1", progress: 1, total: 2, message: "half" },
      },
      {
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "warning", data: { disk: "low" }, logger: "storage" },
      },
      {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "p1", progress: 2, total: 2 },
      },
    ]);
  });

  it("sends nothing when the request asked for neither progress nor logs", async () => {
    const seen: JSONRPCNotification[] = [];
    await chattyServer().dispatch(request("tools/call", { name: "t" }), { notify: (n) => void seen.push(n) });
    expect(seen).toEqual([]);
  });

  it("holds a handler's own ctx.notify to the same rules: no request, no log the request did not ask for", async () => {
    const server = new Server("raw", {
      logger: silentLogger,
      onCallTool: async (ctx) => {
        const log = (level: unknown) =>
          ctx.notify({ jsonrpc: "2.0", method: "notifications/message", params: { level, data: level } });
        await log("debug");
        await log("error");
        await log("loud");
        await ctx.notify({
          jsonrpc: "2.0",
          id: 99,
          method: "elicitation/create",
          params: { message: "?", requestedSchema: { type: "object", properties: {} } },
        } as never);
        await ctx.notify({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: 1, progress: 1 },
        });
        return { content: [] };
      },
    });
    const run = async (logLevel?: string) => {
      const seen: JSONRPCNotification[] = [];
      const req = request("tools/call", { name: "t" });
      if (logLevel)
        req.params._meta = { ...req.params._meta, "io.modelcontextprotocol/logLevel": logLevel } as never;
      await server.dispatch(req, { notify: (n) => void seen.push(n) });
      return seen.map((n) => `${n.method} ${JSON.stringify(n.params?.level ?? null)}`);
    };
    expect(await run()).toEqual(["notifications/progress null"]);
    expect(await run("warning")).toEqual(['notifications/message "error"', "notifications/progress null"]);
    expect(await run("debug")).toEqual([
      'notifications/message "debug"',
      'notifications/message "error"',
      "notifications/progress null",
    ]);
  });

  it("routes a request's notifications to that request on the client", async () => {
    const tap = wireTap();
    const session = await ClientSession.connect(new MemoryTransport(chattyServer(), { onWire: tap.onWire }), {
      logLevel: "debug",
    });
    const progress: ProgressNotificationParams[] = [];
    const logs: LoggingMessageNotificationParams[] = [];
    await session.callTool("t", {}, { onProgress: (p) => progress.push(p), onLog: (l) => logs.push(l) });
    expect(progress.map((p) => p.progress)).toEqual([1, 2]);
    expect(logs.map((l) => l.level)).toEqual(["debug", "warning"]);
    const kinds = tap.received().map((m) => m.method ?? "response");
    expect(kinds).toEqual([
      "notifications/progress",
      "notifications/message",
      "notifications/message",
      "notifications/progress",
      "response",
    ]);
  });
});

describe("cancellation", () => {
  it("sends notifications/cancelled, fires the handler's signal, and sends nothing more", async () => {
    let aborted!: () => void;
    const handlerSawAbort = new Promise<void>((resolve) => {
      aborted = resolve;
    });
    const server = new Server("slow", {
      logger: silentLogger,
      onCallTool: async (ctx) => {
        await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve()));
        aborted();
        await sendProgress(ctx, 1);
        return { content: [] };
      },
    });
    const tap = wireTap();
    const session = await ClientSession.connect(new MemoryTransport(server, { onWire: tap.onWire }));
    const controller = new AbortController();
    const call = session.callTool("t", {}, { signal: controller.signal, onProgress: () => {} });
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await expect(call).rejects.toBeInstanceOf(RequestAbortedError);
    await handlerSawAbort;
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(tap.sent().map((m) => m.method)).toEqual(["tools/call", "notifications/cancelled"]);
    expect(tap.sent()[1]?.params).toEqual({ requestId: 1, reason: "aborted by the client" });
    expect(tap.received()).toEqual([]);
  });

  it("ignores a malformed notifications/cancelled: the request it seems to name runs to its end", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let signalled = false;
    const server = new Server("steady", {
      logger: silentLogger,
      onCallTool: async (ctx) => {
        ctx.signal.addEventListener("abort", () => {
          signalled = true;
        });
        await gate;
        return { content: [{ type: "text", text: "finished" }] };
      },
    });
    const session = await ClientSession.connect(new MemoryTransport(server));
    const call = session.callTool("t", {});
    await new Promise((resolve) => setTimeout(resolve, 5));
    for (const params of [{ requestId: { nested: 1 } }, { reason: "no id" }, { requestId: [1] }]) {
      await session.connection.notify("notifications/cancelled", params as never);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
    release();
    expect((await call).content).toEqual([{ type: "text", text: "finished" }]);
    expect(signalled).toBe(false);
  });

  it("times out locally with an error that has no JSON-RPC code", async () => {
    const server = new Server("never", { logger: silentLogger, onCallTool: () => new Promise(() => {}) });
    const session = await ClientSession.connect(new MemoryTransport(server));
    const error = await session.callTool("t", {}, { timeoutMs: 20 }).catch((e: unknown) => e);
    expect((error as Error).name).toBe("RequestTimeoutError");
    expect("code" in (error as object)).toBe(false);
  });

  it("fails pending calls when the connection closes", async () => {
    const server = new Server("never", { logger: silentLogger, onCallTool: () => new Promise(() => {}) });
    const session = await ClientSession.connect(new MemoryTransport(server));
    const call = session.callTool("t");
    await session.close();
    await expect(call).rejects.toMatchObject({ name: "ConnectionClosedError" });
  });
});
