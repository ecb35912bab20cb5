// The request's `signal` is built only when read, through one getter shared by every context.
// Shared matters: a getter written in an object literal gives every request its own V8 hidden
// class, which kept each request's objects alive through young-generation GCs (see
// src/shared/lazy-signal.ts). The identity of the getter is what these tests pin.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ClientSession } from "../../src/client/session.js";
import { deriveContext, type ServerRequestContext } from "../../src/server/context.js";
import { BACK_CHANNEL } from "../../src/server/legacy/back-channel.js";
import { silentLogger } from "../../src/server/logger.js";
import { inputRequired, MCPServer } from "../../src/server/mcp/index.js";
import { Server } from "../../src/server/server.js";
import { Cancellation } from "../../src/shared/cancellation.js";
import type { DispatchContext, Dispatcher } from "../../src/shared/dispatch.js";
import { LazyDispatchContext, NEVER_ABORTED, withLazySignal } from "../../src/shared/lazy-signal.js";
import { createHttpHandler } from "../../src/transports/http/index.js";
import { MemoryTransport } from "../../src/transports/memory.js";
import { request, resultOf } from "../helpers.js";
import { makeCtx } from "./state/helpers.js";

/** The getter every lazy `signal` uses. */
const SHARED_GETTER = Object.getOwnPropertyDescriptor(withLazySignal({}, {}), "signal")?.get;

function signalGetterOf(object: object): unknown {
  return Object.getOwnPropertyDescriptor(object, "signal")?.get;
}

/** A signal source that counts how often it is read. */
function countingSource() {
  const controller = new AbortController();
  const source = {
    reads: 0,
    get signal() {
      source.reads++;
      return controller.signal;
    },
  };
  return { source, controller };
}

/** A dispatch context as the transports build it: a lazy signal, and `cancelled` to poll instead. */
function transportContext(source: ReturnType<typeof countingSource>): DispatchContext {
  return withLazySignal({ cancelled: () => source.controller.signal.aborted }, source.source);
}

describe("withLazySignal", () => {
  it("reads the source on each access and never before", () => {
    const { source, controller } = countingSource();
    const context = withLazySignal({ authInfo: undefined }, source);
    expect(source.reads).toBe(0);
    expect(context.signal).toBe(controller.signal);
    expect(source.reads).toBe(1);
  });

  it("falls back to a signal that never aborts", () => {
    expect(withLazySignal({}, {}).signal).toBe(NEVER_ABORTED);
    expect(NEVER_ABORTED.aborted).toBe(false);
  });

  it("builds a Cancellation's AbortController only when read, aborted if the cancel came first", () => {
    const cancellation = new Cancellation();
    const context = withLazySignal({}, cancellation);
    cancellation.cancel();
    expect(context.signal.aborted).toBe(true);
  });

  it("uses one getter for every object, is enumerable, and cannot be assigned", () => {
    const a = withLazySignal({ n: 1 }, {});
    const b = withLazySignal({ n: 2 }, new Cancellation());
    expect(typeof SHARED_GETTER).toBe("function");
    expect(signalGetterOf(a)).toBe(SHARED_GETTER);
    expect(signalGetterOf(b)).toBe(SHARED_GETTER);
    expect(Object.keys(a)).toEqual(["n", "signal"]);
    expect(() => {
      (a as { signal: AbortSignal }).signal = new AbortController().signal;
    }).toThrow(TypeError);
  });

  it("a spread reads it once and keeps the value", () => {
    const { source, controller } = countingSource();
    const copy = { ...withLazySignal({}, source) };
    expect(source.reads).toBe(1);
    expect(signalGetterOf(copy)).toBeUndefined();
    expect(copy.signal).toBe(controller.signal);
  });
});

describe("LazyDispatchContext", () => {
  it("carries notify, authInfo and the cancellation's state; its signal follows the cancellation", () => {
    const cancellation = new Cancellation();
    const notify = async () => {};
    const authInfo = { token: "t", clientId: "c", scopes: [] };
    const context = new LazyDispatchContext(cancellation, notify, authInfo);
    expect(context.notify).toBe(notify);
    expect(context.authInfo).toBe(authInfo);
    expect(context.cancelled()).toBe(false);
    const signal = context.signal;
    expect(signal.aborted).toBe(false);
    cancellation.cancel();
    expect(context.cancelled()).toBe(true);
    expect(signal.aborted).toBe(true);
    expect(context.signal).toBe(signal);
  });

  it("survives a spread by a dispatcher wrapper: the copy's signal still aborts on cancel", () => {
    const cancellation = new Cancellation();
    const context = new LazyDispatchContext(cancellation, undefined, undefined);
    const wrapped: DispatchContext = { ...context, authInfo: { token: "t", clientId: "c", scopes: [] } };
    expect(wrapped.signal?.aborted).toBe(false);
    cancellation.cancel();
    expect(wrapped.signal?.aborted).toBe(true);
    expect(wrapped.cancelled?.()).toBe(true);
  });

  it("a signal first read after the cancel is already aborted", () => {
    const cancellation = new Cancellation();
    const context = new LazyDispatchContext(cancellation, undefined, undefined);
    cancellation.cancel();
    expect(context.signal.aborted).toBe(true);
  });
});

describe("the contexts handlers and dispatchers receive", () => {
  it("Server.dispatch: the handler's ctx reads the transport's signal only when asked, through the shared getter", async () => {
    const seen: ServerRequestContext[] = [];
    const server = new Server("s", {
      logger: silentLogger,
      onCallTool: (ctx) => {
        seen.push(ctx);
        return { content: [] };
      },
    });
    const counting = countingSource();
    const { source, controller } = counting;
    resultOf(await server.dispatch(request("tools/call", { name: "a" }), transportContext(counting)));
    resultOf(await server.dispatch(request("tools/call", { name: "b" }), transportContext(counting)));
    expect(source.reads).toBe(0);
    expect(seen.map(signalGetterOf)).toEqual([SHARED_GETTER, SHARED_GETTER]);
    controller.abort();
    expect(seen[0]?.signal.aborted).toBe(true);
    expect(source.reads).toBe(1);
  });

  it("Server.dispatch without a transport signal: a never-aborted one", async () => {
    let signal: AbortSignal | undefined;
    const server = new Server("s", {
      logger: silentLogger,
      onCallTool: (ctx) => {
        signal = ctx.signal;
        return { content: [] };
      },
    });
    resultOf(await server.dispatch(request("tools/call", { name: "a" })));
    expect(signal).toBe(NEVER_ABORTED);
  });

  it("MCPServer: a retry whose requestState is unsealed by the boundary does not build the signal", async () => {
    const mcp = new MCPServer("s", { logger: silentLogger });
    let handlerSignalGetter: unknown;
    mcp.tool("ask", { input: z.object({}) }, (_args, ctx) => {
      handlerSignalGetter = signalGetterOf(ctx.request);
      if (ctx.requestState === "asked") return "done";
      return inputRequired({ requestState: "asked" });
    });
    const counting = countingSource();
    const first = resultOf(
      await mcp.dispatch(request("tools/call", { name: "ask" }), transportContext(counting)),
    );
    const retry = request("tools/call", { name: "ask", requestState: first.requestState });
    const second = resultOf(await mcp.dispatch(retry, transportContext(counting)));
    expect(second.content).toEqual([{ type: "text", text: "done" }]);
    expect(handlerSignalGetter).toBe(SHARED_GETTER);
    expect(counting.source.reads).toBe(0);
  });

  it("the HTTP handler and the in-memory transport hand dispatchers a LazyDispatchContext", async () => {
    const contexts: DispatchContext[] = [];
    const server = new Server("s", { logger: silentLogger });
    const capturing: Dispatcher = {
      dispatch: (message, context) => {
        if (context) contexts.push(context);
        return server.dispatch(message, context);
      },
    };
    const handler = createHttpHandler(capturing);
    const body = JSON.stringify(request("server/discover"));
    const response = await handler(
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        headers: {
          host: "127.0.0.1",
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "server/discover",
        },
        body,
      }),
    );
    expect(response.status).toBe(200);
    const session = new ClientSession(new MemoryTransport(capturing));
    await session.discover();
    expect(contexts).toHaveLength(2);
    expect(contexts.every((context) => context instanceof LazyDispatchContext)).toBe(true);
    expect(contexts.map(signalGetterOf)).toEqual([SHARED_GETTER, SHARED_GETTER]);
    expect(contexts.every((context) => context.signal instanceof AbortSignal)).toBe(true);
    await session.close();
  });
});

describe("deriveContext", () => {
  /** The state tests' context, its signal made lazy, plus a symbol key (as legacy requests carry). */
  function baseContext(source: { readonly signal?: AbortSignal }): ServerRequestContext {
    const { signal: _eager, logs: _logs, ...ctx } = makeCtx({ params: { name: "t" } });
    return withLazySignal(Object.assign(ctx, { [BACK_CHANNEL]: "channel" }), source);
  }

  it("copies every key (symbols too) with the changes applied, leaving the original alone", () => {
    const ctx = baseContext({});
    const copy = deriveContext(ctx, { params: { name: "u" } });
    expect(copy).not.toBe(ctx);
    expect(copy.params).toEqual({ name: "u" });
    expect(ctx.params).toEqual({ name: "t" });
    expect(copy.requestId).toBe(1);
    expect((copy as unknown as Record<symbol, unknown>)[BACK_CHANNEL]).toBe("channel");
    expect(Object.keys(copy).sort()).toEqual(Object.keys(ctx).sort());
  });

  it("keeps the signal lazy: the copy does not read it, and reading the copy reads the original's source", () => {
    const { source, controller } = countingSource();
    const copy = deriveContext(baseContext(source), { method: "resources/read" });
    expect(source.reads).toBe(0);
    expect(signalGetterOf(copy)).toBe(SHARED_GETTER);
    expect(copy.signal).toBe(controller.signal);
    expect(source.reads).toBe(1);
  });

  it("a change may replace the signal itself", () => {
    const { source } = countingSource();
    const replacement = new AbortController().signal;
    const copy = deriveContext(baseContext(source), { signal: replacement });
    expect(copy.signal).toBe(replacement);
    expect(source.reads).toBe(0);
  });
});
