// Spec §1.6/§7 (server, HTTP): 2026-07-28 has no stream resumability (no event ids, no
// Last-Event-ID), and a modern server ignores a `Last-Event-ID` header that legacy clients may
// still send. A real endpoint (serveHttp on 127.0.0.1) must answer a POST carrying it exactly as it
// answers the same POST without it: JSON answers, errors, SSE responses and listen streams alike.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/server/logger.js";
import { Server } from "../../../src/server/server.js";
import { type HttpServerHandle, serveHttp } from "../../../src/transports/http/node.js";
import { meta } from "../../helpers.js";
import { post, rpc, SERVER_INFO, startServer } from "./helpers.js";

const LAST_EVENT_IDS = ["42", "0", "stream-1/7"];

let endpoint: Awaited<ReturnType<typeof startServer>>;
let live: Server;
let liveHttp: HttpServerHandle;
beforeAll(async () => {
  // No keep-alive comments, so two answers to the same request are byte-for-byte comparable.
  endpoint = await startServer({ keepAliveMs: 0 });
  live = new Server("live", {
    version: "1.0.0",
    logger: silentLogger,
    listChanged: true,
    onListTools: () => ({ tools: [] }),
  });
  liveHttp = await serveHttp(live, { host: "127.0.0.1", port: 0, keepAliveMs: 0 });
});
afterAll(async () => {
  await endpoint.close();
  await liveHttp.close();
});

interface Answer {
  status: number;
  contentType: string | null;
  sessionId: string | null;
  text: string;
}

async function answer(body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await post(endpoint.url, body, headers);
  return {
    status: res.status,
    contentType: res.headers.get("content-type"),
    sessionId: res.headers.get("mcp-session-id"),
    text: await res.text(),
  };
}

function withCapabilities(body: ReturnType<typeof rpc>, capabilities: Record<string, unknown>) {
  body.params._meta = meta(capabilities);
  return body;
}

function withProgressToken(body: ReturnType<typeof rpc>, token: string) {
  body.params._meta = { ...body.params._meta, progressToken: token } as never;
  return body;
}

describe("a POST carrying Last-Event-ID is answered as if it had none", () => {
  const cases: [string, () => ReturnType<typeof rpc>, number, unknown][] = [
    [
      "a tools/call answered with JSON",
      () => rpc("tools/call", { name: "echo", arguments: { a: 1 } }, 1),
      200,
      {
        jsonrpc: "2.0",
        id: 1,
        result: {
          content: [{ type: "text", text: 'echo:{"a":1}' }],
          resultType: "complete",
          _meta: SERVER_INFO,
        },
      },
    ],
    [
      "a -32021 refusal (HTTP 400)",
      () => withCapabilities(rpc("tools/call", { name: "needs-sampling" }, 2), {}),
      400,
      {
        jsonrpc: "2.0",
        id: 2,
        error: {
          code: -32021,
          message: "Client did not declare the sampling capability required by input request 'q'",
          data: { requiredCapabilities: { sampling: {} } },
        },
      },
    ],
    [
      "an unknown method (HTTP 404)",
      () => rpc("widgets/spin", {}, 3),
      404,
      { jsonrpc: "2.0", id: 3, error: { code: -32601, message: "Method not found: widgets/spin" } },
    ],
  ];

  it.each(cases)("%s", async (_label, body, status, json) => {
    const without = await answer(body());
    expect(without.status).toBe(status);
    expect(without.contentType).toBe("application/json");
    expect(JSON.parse(without.text)).toEqual(json);
    for (const lastEventId of LAST_EVENT_IDS) {
      expect(await answer(body(), { "last-event-id": lastEventId })).toEqual(without);
    }
  });

  it("an SSE response (progress, then the result): same bytes, and no event ids on it", async () => {
    const body = () => withProgressToken(rpc("tools/call", { name: "progress" }, 4), "p4");
    const without = await answer(body());
    const progress = (step: number) => ({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "p4", progress: step, total: 3, message: `step ${step}` },
    });
    const final = {
      jsonrpc: "2.0",
      id: 4,
      result: { content: [{ type: "text", text: "progressed" }], resultType: "complete", _meta: SERVER_INFO },
    };
    expect(without).toEqual({
      status: 200,
      contentType: "text/event-stream",
      sessionId: null,
      text: [progress(1), progress(2), progress(3), final]
        .map((m) => `data: ${JSON.stringify(m)}\n\n`)
        .join(""),
    });
    for (const lastEventId of LAST_EVENT_IDS) {
      const resumed = await answer(body(), { "last-event-id": lastEventId });
      expect(resumed).toEqual(without);
      expect(resumed.text).not.toMatch(/^id:/m);
    }
  });

  it("a notification: 202 with no body either way", async () => {
    const notification = {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 99, reason: "bored" },
    };
    const without = await answer(notification);
    expect(without).toEqual({ status: 202, contentType: null, sessionId: null, text: "" });
    for (const lastEventId of LAST_EVENT_IDS) {
      expect(await answer(notification, { "last-event-id": lastEventId })).toEqual(without);
    }
  });
});

describe("a subscriptions/listen stream opened with Last-Event-ID", () => {
  /** Opens a listen stream, publishes one change once it is acknowledged, then closes it gracefully. */
  async function listenOnce(headers: Record<string, string>): Promise<Answer> {
    const body = rpc("subscriptions/listen", { notifications: { toolsListChanged: true } }, 9);
    const res = await post(liveHttp.url, body, headers);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    const readUntil = async (done: (text: string) => boolean) => {
      while (!done(text)) {
        const chunk = await reader.read();
        if (chunk.done) return;
        text += decoder.decode(chunk.value, { stream: true });
      }
    };
    await readUntil((t) => t.includes("notifications/subscriptions/acknowledged"));
    live.notifyToolsListChanged();
    await readUntil((t) => t.includes("notifications/tools/list_changed"));
    live.closeSubscriptions();
    await readUntil(() => false);
    return {
      status: res.status,
      contentType: res.headers.get("content-type"),
      sessionId: res.headers.get("mcp-session-id"),
      text,
    };
  }

  it("starts with a fresh acknowledgement (nothing replayed) and streams exactly as without it", async () => {
    const without = await listenOnce({});
    const tag = { "io.modelcontextprotocol/subscriptionId": 9 };
    expect(without.status).toBe(200);
    expect(without.contentType).toBe("text/event-stream");
    expect(without.sessionId).toBeNull();
    expect(without.text).not.toMatch(/^id:/m);
    expect(
      without.text
        .split("\n\n")
        .filter(Boolean)
        .map((event) => JSON.parse(event.replace(/^data: /, ""))),
    ).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { _meta: tag, notifications: { toolsListChanged: true } },
      },
      { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: tag } },
      {
        jsonrpc: "2.0",
        id: 9,
        result: {
          resultType: "complete",
          _meta: { ...tag, "io.modelcontextprotocol/serverInfo": { name: "live", version: "1.0.0" } },
        },
      },
    ]);
    for (const lastEventId of LAST_EVENT_IDS) {
      expect(await listenOnce({ "last-event-id": lastEventId })).toEqual(without);
    }
  });
});
