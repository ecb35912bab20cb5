import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DispatchContext, Dispatcher } from "../../src/shared/dispatch.js";
import { MemoryTransport } from "../../src/transports/memory.js";
import type { JSONRPCMessage } from "../../src/types/index.js";

const unhandled: unknown[] = [];
const recordUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on("unhandledRejection", recordUnhandled);
});
afterEach(() => {
  process.off("unhandledRejection", recordUnhandled);
});

const INTERNAL_ERROR = { jsonrpc: "2.0", id: 1, error: { code: -32603, message: "Internal error" } };

/** Fails each request the way its method names, and keeps every context it was given. */
function failingDispatcher(): Dispatcher & { contexts: DispatchContext[] } {
  const contexts: DispatchContext[] = [];
  return {
    contexts,
    dispatch(message, context = {}) {
      contexts.push(context);
      const { id, method } = message as { id: number; method: string };
      if (method === "throw") throw new Error("secret detail (sync)");
      if (method === "reject") return Promise.reject(new Error("secret detail (async)"));
      if (method === "reject-when-cancelled") {
        return new Promise((_resolve, reject) => {
          context.signal?.addEventListener("abort", () => reject(new Error("aborted")));
        });
      }
      return Promise.resolve({ jsonrpc: "2.0", id, result: { count: 1n } } as never);
    },
  };
}

async function exchange(method: string, serialize: boolean) {
  const dispatcher = failingDispatcher();
  const transport = new MemoryTransport(dispatcher, { serialize });
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (message) => received.push(message);
  await transport.start();
  await transport.send({ jsonrpc: "2.0", id: 1, method, params: {} });
  await new Promise((resolve) => setTimeout(resolve, 20));
  return { dispatcher, transport, received };
}

describe("MemoryTransport when the server cannot answer", () => {
  it.each([
    ["a dispatcher that throws", "throw", false],
    ["a dispatcher that rejects", "reject", false],
    ["a response that cannot be serialized (a BigInt)", "bigint", true],
  ])("answers %s with -32603 Internal error and forgets the request", async (_label, method, serialize) => {
    const { dispatcher, transport, received } = await exchange(method, serialize);
    expect(received).toEqual([INTERNAL_ERROR]);
    // Still in flight, it would be cancelled by close().
    await transport.close();
    expect(dispatcher.contexts.map((context) => context.signal?.aborted)).toEqual([false]);
    expect(unhandled).toEqual([]);
  });

  it("sends nothing for a request that failed after the client cancelled it", async () => {
    const { transport, received } = await exchange("reject-when-cancelled", false);
    await transport.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(received).toEqual([]);
    await transport.close();
    expect(unhandled).toEqual([]);
  });
});
