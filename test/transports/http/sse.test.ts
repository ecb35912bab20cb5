import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { silentLogger } from "../../../src/server/logger.js";
import { sendProgress } from "../../../src/server/notify.js";
import { Server } from "../../../src/server/server.js";
import { createHttpHandler } from "../../../src/transports/http/handler.js";
import { SseParser, SseStream } from "../../../src/transports/http/sse.js";
import { meta } from "../../helpers.js";
import { makeServer, post, rpc, SERVER_INFO, startServer } from "./helpers.js";

let endpoint: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  endpoint = await startServer();
});
afterAll(() => endpoint.close());

function withToken(body: ReturnType<typeof rpc>, token: string | number) {
  body.params._meta = { ...body.params._meta, progressToken: token } as never;
  return body;
}

const progress = (token: string, step: number) => ({
  jsonrpc: "2.0",
  method: "notifications/progress",
  params: { progressToken: token, progress: step, total: 3, message: `step ${step}` },
});

describe("SSE responses", () => {
  it("open at the first notification and carry the response as the last event", async () => {
    const res = await post(endpoint.url, withToken(rpc("tools/call", { name: "progress" }, 1), "p1"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(res.headers.get("x-accel-buffering")).toBe("no");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    const final = {
      jsonrpc: "2.0",
      id: 1,
      result: { content: [{ type: "text", text: "progressed" }], resultType: "complete", _meta: SERVER_INFO },
    };
    const text = await res.text();
    expect(text).toBe(
      [progress("p1", 1), progress("p1", 2), progress("p1", 3), final]
        .map((m) => `data: ${JSON.stringify(m)}\n\n`)
        .join(""),
    );
  });

  it("are not used when nothing is notified", async () => {
    const res = await post(endpoint.url, rpc("tools/call", { name: "progress" }));
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("x-accel-buffering")).toBeNull();
    await res.text();
  });

  it("send keep-alive comments while open", async () => {
    const chatty = await startServer({ keepAliveMs: 20 });
    try {
      const body = withToken(rpc("tools/call", { name: "progress", arguments: { delayMs: 70 } }, 2), "k");
      const text = await (await post(chatty.url, body)).text();
      expect(text).toMatch(/^data: .*\n\n(: keep-alive\n\n)+data: /);
      const events: unknown[] = [];
      const parser = new SseParser((event) => events.push(JSON.parse(event.data)));
      parser.push(text);
      expect(events).toHaveLength(4);
      expect(events[3]).toMatchObject({ id: 2, result: { resultType: "complete" } });
    } finally {
      await chatty.close();
    }
  });

  it("keep status 200 when the final answer is an error", async () => {
    const server = new Server("fails-late", {
      logger: silentLogger,
      onCallTool: async (ctx) => {
        await sendProgress(ctx, 1);
        return { resultType: "input_required", inputRequests: { q: { method: "roots/list", params: {} } } };
      },
    });
    const handler = createHttpHandler(server);
    const body = withToken(rpc("tools/call", { name: "x" }, 3), 7);
    const res = await handler(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "x",
        },
        body: JSON.stringify(body),
      }),
    );
    expect(res.status).toBe(200);
    const text = await res.text();
    const lines = text.split("\n\n").filter(Boolean);
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[1]?.slice("data: ".length) ?? "")).toMatchObject({
      id: 3,
      error: { code: -32021 },
    });
  });
});

describe("a client that goes away", () => {
  it("aborts the handler's signal while the SSE stream is open", async () => {
    const fresh = await startServer();
    try {
      const controller = new AbortController();
      const res = await post(
        fresh.url,
        withToken(rpc("tools/call", { name: "slow" }), "s"),
        {},
        { signal: controller.signal },
      );
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      await fresh.probe.started;
      const reader = res.body?.getReader();
      await reader?.read();
      controller.abort();
      await fresh.probe.aborted;
    } finally {
      await fresh.close();
    }
  });

  it("aborts the handler's signal before any byte was sent (JSON mode)", async () => {
    const fresh = await startServer();
    try {
      const controller = new AbortController();
      const pending = post(
        fresh.url,
        rpc("tools/call", { name: "slow" }),
        {},
        { signal: controller.signal },
      ).catch((error: unknown) => error);
      await fresh.probe.started;
      controller.abort();
      await fresh.probe.aborted;
      expect(await pending).toBeInstanceOf(Error);
    } finally {
      await fresh.close();
    }
  });

  it("cancelling the web stream aborts the dispatch (fetch handler used directly)", async () => {
    const { server, probe } = makeServer();
    const handler = createHttpHandler(server);
    const body = rpc("tools/call", { name: "slow" });
    body.params._meta = { ...meta(), progressToken: 1 } as never;
    const res = await handler(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "slow",
        },
        body: JSON.stringify(body),
      }),
    );
    await probe.started;
    await res.body?.cancel();
    await probe.aborted;
  });

  it("aborting the Request's signal aborts the dispatch", async () => {
    const { server, probe } = makeServer();
    const handler = createHttpHandler(server);
    const controller = new AbortController();
    const pending = handler(
      new Request("http://localhost/mcp", {
        method: "POST",
        signal: controller.signal,
        headers: {
          "content-type": "application/json",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "slow",
        },
        body: JSON.stringify(rpc("tools/call", { name: "slow" })),
      }),
    );
    await probe.started;
    controller.abort();
    await probe.aborted;
    // No response may follow a cancelled request: the stream a POSTed request gets ends empty.
    const response = await pending;
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(await response.text()).toBe("");
  });
});

describe("SseParser", () => {
  it("handles CR, LF and CRLF (split across chunks), multi-line data, comments and fields", () => {
    const events: { event: string; data: string; id: string | undefined }[] = [];
    const parser = new SseParser((event) => events.push(event));
    for (const chunk of [
      ": hi\r",
      "\ndata: a\r",
      "\n",
      "data:b\n\nevent: x\rid: 9\rdata:  c\r\r",
      "data: ",
      "tail",
    ]) {
      parser.push(chunk);
    }
    parser.push(new TextEncoder().encode("\n\ndata\n\ndata:\n\n"));
    expect(events).toEqual([
      { event: "message", data: "a\nb", id: undefined },
      { event: "x", data: " c", id: "9" },
      { event: "message", data: "tail", id: "9" },
    ]);
  });
});

describe("unserializable results", () => {
  it("become -32603 for the same id, in JSON and at the end of a stream", async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const server = new Server("odd", {
      logger: silentLogger,
      onCallTool: async (ctx, params) => {
        if (params.name === "streamed") await sendProgress(ctx, 1);
        return { content: [], structuredContent: params.name === "bigint" ? 1n : cyclic };
      },
    });
    const handler = createHttpHandler(server);
    const call = (name: string, id: number, token?: number) => {
      const body = rpc("tools/call", { name }, id);
      if (token !== undefined) body.params._meta = { ...meta(), progressToken: token } as never;
      return handler(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/call",
            "mcp-name": name,
          },
          body: JSON.stringify(body),
        }),
      );
    };
    const internal = (id: number) => ({
      jsonrpc: "2.0",
      id,
      error: { code: -32603, message: "Internal error" },
    });
    expect(await (await call("bigint", 1)).json()).toEqual(internal(1));
    expect(await (await call("cyclic", 2)).json()).toEqual(internal(2));
    const streamed = await (await call("streamed", 3, 9)).text();
    expect(streamed.split("\n\n").filter(Boolean).at(-1)).toBe(`data: ${JSON.stringify(internal(3))}`);
  });
});

describe("an SSE stream whose reader is behind", () => {
  const note = (n: number) => ({ jsonrpc: "2.0", method: "notifications/progress", params: { progress: n } });

  it("holds the writer once 32 events wait unread, and lets it go as the reader catches up", async () => {
    const stream = new SseStream({ keepAliveMs: 0, onCancel: () => {} });
    let written = 0;
    const writer = (async () => {
      for (let n = 0; n < 40; n++) {
        await stream.write(note(n));
        written++;
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Bounded: the queue holds 32 events, and the handler waits instead of buffering more.
    expect(written).toBeLessThanOrEqual(32);
    const reader = stream.readable.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes('"progress":39')) text += decoder.decode((await reader.read()).value);
    await writer;
    expect(written).toBe(40);
    stream.end();
  });

  it("releases a held writer when the reader goes away, and drops what comes after", async () => {
    let cancelled = 0;
    const stream = new SseStream({ keepAliveMs: 0, onCancel: () => cancelled++ });
    const writes: Promise<void>[] = [];
    for (let n = 0; n < 40; n++) writes.push(stream.write(note(n)));
    await stream.readable.cancel();
    await Promise.all(writes); // none stays pending
    expect(stream.open).toBe(false);
    expect(cancelled).toBe(1);
    await expect(stream.write(note(99))).resolves.toBeUndefined();
  });
});

describe("SSE keep-alives", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("a keepAliveMs beyond a timer's range spaces them the longest a timer can, not 1 ms", async () => {
    vi.useFakeTimers();
    const every = vi.spyOn(globalThis, "setInterval");
    const stream = new SseStream({ keepAliveMs: 2 ** 31, onCancel: () => {} });
    await vi.advanceTimersByTimeAsync(1_000);
    stream.end();
    expect(await new Response(stream.readable).text()).toBe("");
    expect(every.mock.calls.map(([, ms]) => ms)).toEqual([2 ** 31 - 1]);
  });

  it("stop piling up while the reader is behind, so a client that stops reading holds bounded memory", async () => {
    vi.useFakeTimers();
    const stream = new SseStream({ keepAliveMs: 10, onCancel: () => {} });
    // A day of keep-alives at the default 15 s, for a client whose connection stays open unread.
    await vi.advanceTimersByTimeAsync(10 * 5_760);
    stream.end();
    const comments = (await new Response(stream.readable).text()).match(/: keep-alive\n\n/g) ?? [];
    // At most what the queue holds before it counts as behind (32 chunks).
    expect(comments.length).toBeLessThanOrEqual(32);
  });
});
