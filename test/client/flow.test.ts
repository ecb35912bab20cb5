import { afterEach, describe, expect, it, vi } from "vitest";
import { ConnectionClosedError, RequestAbortedError, RequestTimeoutError } from "../../src/shared/errors.js";
import type { InputRequest } from "../../src/types/index.js";
import { bare, connectTapped, sentFor, stubServer, unansweredElicitation } from "./stubs.js";

const ELICIT: InputRequest = {
  method: "elicitation/create",
  params: { message: "?", requestedSchema: { type: "object", properties: {} } },
};

afterEach(() => {
  vi.useRealTimers();
});

describe("Client flow bounds", () => {
  it("maxTotalTimeoutMs bounds a flow whose callback never answers, and aborts the callback", async () => {
    const server = stubServer((method) =>
      method === "tools/call" ? { resultType: "input_required", inputRequests: { q: ELICIT } } : undefined,
    );
    const pending = unansweredElicitation();
    const { client } = await connectTapped(server, {
      maxTotalTimeoutMs: 30,
      elicitation: pending.elicitation,
    });
    const error = await client.callTool("t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect((error as Error).message).toBe("tools/call did not complete within maxTotalTimeoutMs (30 ms)");
    expect(pending.signal()?.aborted).toBe(true);
  });

  it("a maxTotalTimeoutMs longer than a timer can wait (a month) does not end the flow early", async () => {
    const server = stubServer((method, params) => {
      if (method !== "tools/call") return undefined;
      if (params.inputResponses) return { content: [{ type: "text", text: "answered" }] };
      return { resultType: "input_required", inputRequests: { q: ELICIT } };
    });
    const { client } = await connectTapped(server, {
      maxTotalTimeoutMs: 30 * 24 * 3_600_000,
      elicitation: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return { action: "accept", content: {} };
      },
    });
    expect(await client.callTool("t")).toMatchObject({ content: [{ type: "text", text: "answered" }] });
  });

  it("maxTotalTimeoutMs per call overrides the client's, and bounds a leg the server never answers", async () => {
    const server = stubServer((method, params) => {
      if (method !== "tools/call") return undefined;
      if (params.requestState) return new Promise(() => {});
      return { resultType: "input_required", requestState: "s" };
    });
    const { client, tap } = await connectTapped(server, { maxTotalTimeoutMs: 60_000 });
    const error = await client.callTool("t", {}, { maxTotalTimeoutMs: 100 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    // The hung leg is cancelled on the wire.
    const cancelled = tap.sent().filter((m) => m.method === "notifications/cancelled");
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]?.params).toMatchObject({ requestId: sentFor(tap, "tools/call")[1]?.id });
  });

  it("the caller's AbortSignal ends the whole flow (during a callback)", async () => {
    const server = stubServer((method) =>
      method === "tools/call" ? { resultType: "input_required", inputRequests: { q: ELICIT } } : undefined,
    );
    const controller = new AbortController();
    const { client } = await connectTapped(server, {
      elicitation: () => {
        controller.abort("the user closed the dialog");
        return new Promise(() => {});
      },
    });
    const error = await client.callTool("t", {}, { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect((error as Error).message).toBe("tools/call was aborted");
    expect((error as Error).cause).toBe("the user closed the dialog");
    expect(server.seen.filter((s) => s.method === "tools/call")).toHaveLength(1);
  });

  it("closing the client ends a flow waiting on a callback, and aborts the callback", async () => {
    const server = stubServer((method) =>
      method === "tools/call" ? { resultType: "input_required", inputRequests: { q: ELICIT } } : undefined,
    );
    const pending = unansweredElicitation();
    const { client } = await connectTapped(server, { elicitation: pending.elicitation });
    const call = client.callTool("t").catch((e: unknown) => e);
    await pending.reached;
    await client.close();
    const error = await call;
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect((error as Error).message).toBe("Connection closed");
    expect(pending.signal()?.aborted).toBe(true);
    expect(server.seen.filter((s) => s.method === "tools/call")).toHaveLength(1);
  });

  it("an already aborted signal sends nothing", async () => {
    const server = stubServer();
    const { client } = await connectTapped(server);
    const reason = new Error("not needed any more");
    const error = await client
      .callTool("t", {}, { signal: AbortSignal.abort(reason) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect((error as Error).cause).toBe(reason);
    expect(server.seen.map((s) => s.method)).toEqual(["server/discover"]);
  });

  it("state-only rounds pause 50 then 100 ms and retry with only the state (fake timers)", async () => {
    const server = stubServer((method, params) => {
      if (method !== "tools/call") return undefined;
      const state = params.requestState as string | undefined;
      if (state === undefined) return { resultType: "input_required", requestState: "busy-1" };
      if (state === "busy-1") return { resultType: "input_required", requestState: "busy-2" };
      return { resultType: "complete", content: [{ type: "text", text: "ready" }] };
    });
    const { client, tap } = await connectTapped(server);
    vi.useFakeTimers();
    const pending = client.callTool("slow", { x: 1 });
    await vi.advanceTimersByTimeAsync(49);
    expect(sentFor(tap, "tools/call")).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(sentFor(tap, "tools/call")).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(99);
    expect(sentFor(tap, "tools/call")).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect((await pending).content).toEqual([{ type: "text", text: "ready" }]);
    expect(sentFor(tap, "tools/call").map((l) => bare(l.params))).toEqual([
      { name: "slow", arguments: { x: 1 } },
      { name: "slow", arguments: { x: 1 }, requestState: "busy-1" },
      { name: "slow", arguments: { x: 1 }, requestState: "busy-2" },
    ]);
  });

  it("every leg reports progress to onProgress under a fresh token, with a per-leg timeout", async () => {
    const server = {
      seen: [] as string[],
      dispatch: async (message: unknown, ctx?: { notify?: (n: never) => unknown }) => {
        const { id, method, params } = message as {
          id: number;
          method: string;
          params: Record<string, unknown>;
        };
        if (method === "server/discover") return stubServer().dispatch(message);
        const token = (params._meta as Record<string, unknown>).progressToken as string;
        server.seen.push(token);
        await ctx?.notify?.({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: token, progress: server.seen.length },
        } as never);
        const result = params.requestState
          ? { resultType: "complete", content: [] }
          : { resultType: "input_required", requestState: "s" };
        return { jsonrpc: "2.0" as const, id, result };
      },
    };
    const { client } = await connectTapped(server);
    const progress: number[] = [];
    await client.callTool("t", {}, { onProgress: (p) => progress.push(p.progress), timeoutMs: 5_000 });
    expect(progress).toEqual([1, 2]);
    expect(new Set(server.seen).size).toBe(2);
  });
});
