import { describe, expect, it } from "vitest";
import { silentLogger } from "../../src/server/logger.js";
import { MCPServer } from "../../src/server/mcp/mcp-server.js";
import { Server } from "../../src/server/server.js";
import { serveHttp } from "../../src/transports/http/node.js";
import type { JSONRPCNotification } from "../../src/types/index.js";
import { TASKS_EXTENSION } from "../../src/types/tasks.js";
import { errorOf, recordingLogger, request, resultOf } from "../helpers.js";

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

function listening() {
  return new Server("live", {
    logger: silentLogger,
    listChanged: true,
    onListTools: () => ({ tools: [] }),
    onListPrompts: () => ({ prompts: [] }),
    onReadResource: () => ({ contents: [] }),
  });
}

function open(server: Server, filter: Record<string, unknown>, id = 7, capabilities = {}, subject?: string) {
  const seen: JSONRPCNotification[] = [];
  const controller = new AbortController();
  const authInfo = subject === undefined ? undefined : { token: "t", clientId: "app", scopes: [], subject };
  const response = server.dispatch(
    request("subscriptions/listen", { notifications: filter }, capabilities, id),
    {
      notify: (n) => void seen.push(n),
      signal: controller.signal,
      authInfo,
    },
  );
  return { seen, controller, response };
}

describe("subscriptions/listen", () => {
  it("is not served (-32601) and nothing advertises listChanged unless enabled", async () => {
    const server = new Server("quiet", { logger: silentLogger, onListTools: () => ({ tools: [] }) });
    expect(errorOf(await server.dispatch(request("subscriptions/listen", { notifications: {} }))).code).toBe(
      -32601,
    );
    expect(server.capabilities).toEqual({ tools: {} });
  });

  it("advertises listChanged and resources.subscribe when enabled", () => {
    expect(listening().capabilities).toEqual({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
    });
  });

  it("acknowledges first with the honoured subset, then delivers only what the filter asked for, tagged", async () => {
    const server = listening();
    const { seen, response } = open(server, {
      promptsListChanged: true,
      resourceSubscriptions: ["file:///docs"],
      bogus: true,
    });
    await tick();
    server.notifyToolsListChanged();
    server.notifyPromptsListChanged();
    server.notifyResourceUpdated("file:///docs/readme.md");
    server.notifyResourceUpdated("file:///other");
    await tick();
    const tag = { "io.modelcontextprotocol/subscriptionId": 7 };
    expect(seen).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: {
          _meta: tag,
          notifications: { promptsListChanged: true, resourceSubscriptions: ["file:///docs"] },
        },
      },
      { jsonrpc: "2.0", method: "notifications/prompts/list_changed", params: { _meta: tag } },
      {
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: { _meta: tag, uri: "file:///docs/readme.md" },
      },
    ]);
    server.closeSubscriptions();
    expect(resultOf(await response)).toEqual({
      resultType: "complete",
      _meta: { ...tag, "io.modelcontextprotocol/serverInfo": { name: "live", version: "" } },
    });
  });

  it("closes at once after the ack when nothing in the filter can be honoured", async () => {
    const server = new Server("tools-only", {
      logger: silentLogger,
      listChanged: true,
      onListTools: () => ({ tools: [] }),
    });
    const { seen, response } = open(server, { promptsListChanged: true });
    expect(resultOf(await response).resultType).toBe("complete");
    expect(seen.map((n) => n.params?.notifications)).toEqual([{}]);
  });

  it("ends silently when the client goes away, and frees the slot", async () => {
    const server = new Server("limited", {
      logger: silentLogger,
      listChanged: true,
      maxSubscriptions: 1,
      onListTools: () => ({ tools: [] }),
    });
    const first = open(server, { toolsListChanged: true }, 1);
    await tick();
    const second = await server.dispatch(
      request("subscriptions/listen", { notifications: { toolsListChanged: true } }, {}, 2),
    );
    expect(errorOf(second)).toEqual({ code: -32603, message: "Subscription limit reached" });
    first.controller.abort();
    expect(await first.response).toBeUndefined();
    const third = open(server, { toolsListChanged: true }, 3);
    await tick();
    expect(third.seen).toHaveLength(1);
    server.closeSubscriptions();
    await third.response;
  });

  it("holds each authenticated caller to maxSubscriptionsPerPrincipal, freeing a slot as a stream ends", async () => {
    const server = new Server("shared", {
      logger: silentLogger,
      listChanged: true,
      maxSubscriptions: 5,
      maxSubscriptionsPerPrincipal: 2,
      onListTools: () => ({ tools: [] }),
    });
    const filter = { toolsListChanged: true };
    const alice = [open(server, filter, 1, {}, "alice"), open(server, filter, 2, {}, "alice")];
    await tick();
    expect(errorOf(await open(server, filter, 3, {}, "alice").response)).toEqual({
      code: -32603,
      message: "Subscription limit reached for this caller",
    });
    // Another user, and anonymous callers, still get streams of their own.
    const bob = open(server, filter, 4, {}, "bob");
    const anonymous = [open(server, filter, 5), open(server, filter, 6)];
    await tick();
    expect([bob, ...anonymous].map((listen) => listen.seen.length)).toEqual([1, 1, 1]);
    // A stream ended by the client, then the server's own close, each give alice's slot back once.
    alice[0]?.controller.abort();
    await alice[0]?.response;
    server.closeSubscriptions();
    await Promise.all([alice[1]?.response, bob.response, ...anonymous.map((listen) => listen.response)]);
    const again = [open(server, filter, 7, {}, "alice"), open(server, filter, 8, {}, "alice")];
    await tick();
    expect(again.map((listen) => listen.seen.length)).toEqual([1, 1]);
    expect(errorOf(await open(server, filter, 9, {}, "alice").response).code).toBe(-32603);
    server.closeSubscriptions();
    await Promise.all(again.map((listen) => listen.response));
  });

  it("counts anonymous callers only against maxSubscriptions", async () => {
    const server = new Server("anonymous", {
      logger: silentLogger,
      listChanged: true,
      maxSubscriptionsPerPrincipal: 1,
      onListTools: () => ({ tools: [] }),
    });
    const streams = [1, 2, 3].map((id) => open(server, { toolsListChanged: true }, id));
    await tick();
    expect(streams.map((listen) => listen.seen.length)).toEqual([1, 1, 1]);
    server.closeSubscriptions();
    await Promise.all(streams.map((listen) => listen.response));
  });

  it.each([0, -1, 1.5, Number.NaN])(
    "refuses maxSubscriptionsPerPrincipal %s when the server is made",
    (maxSubscriptionsPerPrincipal) => {
      expect(
        () => new Server("bad", { logger: silentLogger, listChanged: true, maxSubscriptionsPerPrincipal }),
      ).toThrow(
        new RangeError(
          `maxSubscriptionsPerPrincipal must be a positive integer, got ${maxSubscriptionsPerPrincipal}`,
        ),
      );
    },
  );

  it.each([0, -1, 1.5, Number.NaN])(
    "refuses maxSubscriptions %s when the server is made",
    (maxSubscriptions) => {
      expect(() => new Server("bad", { logger: silentLogger, listChanged: true, maxSubscriptions })).toThrow(
        new RangeError(`maxSubscriptions must be a positive integer, got ${maxSubscriptions}`),
      );
    },
  );

  it("rejects a malformed filter with -32602", async () => {
    const server = listening();
    expect(
      errorOf(
        await server.dispatch(
          request("subscriptions/listen", { notifications: { toolsListChanged: "yes" } }),
        ),
      ).code,
    ).toBe(-32602);
    expect(errorOf(await server.dispatch(request("subscriptions/listen", {}))).code).toBe(-32602);
  });

  it("streams over HTTP as SSE: ack first, a change announced when a tool is registered, graceful close", async () => {
    const mcp = new MCPServer("live", { logger: silentLogger, listChanged: true });
    mcp.tool("first", {}, () => "one");
    const http = await serveHttp(mcp, { port: 0 });
    try {
      const response = await fetch(http.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "subscriptions/listen",
        },
        body: JSON.stringify(
          request("subscriptions/listen", { notifications: { toolsListChanged: true } }, {}, "sub-1"),
        ),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
      const reader = response.body?.getReader();
      if (!reader) throw new Error("no body");
      let text = "";
      const readUntil = async (needle: string) => {
        while (!text.includes(needle)) {
          const chunk = await reader.read();
          if (chunk.done) break;
          text += new TextDecoder().decode(chunk.value);
        }
      };
      await readUntil("acknowledged");
      mcp.tool("second", {}, () => "two");
      await readUntil("tools/list_changed");
      mcp.server.closeSubscriptions();
      await readUntil('"resultType":"complete"');
      const events = text
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
      expect(events.map((e) => e.method ?? "result")).toEqual([
        "notifications/subscriptions/acknowledged",
        "notifications/tools/list_changed",
        "result",
      ]);
      expect(
        events.every((e) => JSON.stringify(e).includes('"io.modelcontextprotocol/subscriptionId":"sub-1"')),
      ).toBe(true);
    } finally {
      await http.close();
    }
  });
});

describe("a list change's audience (visibleTo)", () => {
  it("a rule that throws keeps that stream from hearing it, logged; the other streams and changes go on", async () => {
    const logger = recordingLogger();
    const server = new Server("live", {
      logger,
      listChanged: true,
      onListTools: () => ({ tools: [] }),
      onListPrompts: () => ({ prompts: [] }),
    });
    const alice = open(server, { toolsListChanged: true, promptsListChanged: true }, 1, {}, "alice");
    const bob = open(server, { toolsListChanged: true, promptsListChanged: true }, 2, {}, "bob");
    await tick();
    // A rule of the caller's own that fails for one of them (a claim missing from alice's token).
    server.notifyToolsListChanged((ctx) => {
      if (ctx.authInfo?.subject === "alice") throw new Error("no tenant claim");
      return true;
    });
    server.notifyPromptsListChanged();
    await tick();
    const methods = (seen: JSONRPCNotification[]) => seen.map((n) => n.method).slice(1);
    expect(methods(alice.seen)).toEqual(["notifications/prompts/list_changed"]);
    expect(methods(bob.seen)).toEqual([
      "notifications/tools/list_changed",
      "notifications/prompts/list_changed",
    ]);
    expect(logger.lines).toEqual([
      "warn: notifications/tools/list_changed: visibleTo failed (not sent to this stream): no tenant claim",
    ]);
    server.closeSubscriptions();
  });
});

describe("notifications/tasks on a listen stream", () => {
  it("carries the task's own _meta, with the subscription tag winning over a key of the same name", async () => {
    const server = listening();
    server.serveTaskNotifications(() => true);
    const sub = open(server, { taskIds: ["t1"] }, 9, { extensions: { [TASKS_EXTENSION]: {} } });
    await tick();
    const task = {
      taskId: "t1",
      status: "working" as const,
      createdAt: "2026-01-01T00:00:00Z",
      lastUpdatedAt: "2026-01-01T00:00:00Z",
      ttlMs: null,
    };
    server.notifyTaskChanged("t1", () => ({
      ...task,
      _meta: { "example.com/trace": "x", "io.modelcontextprotocol/subscriptionId": "forged" },
    }));
    await tick();
    expect(sub.seen.filter((n) => n.method === "notifications/tasks")).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/tasks",
        params: { ...task, _meta: { "example.com/trace": "x", "io.modelcontextprotocol/subscriptionId": 9 } },
      },
    ]);
    server.closeSubscriptions();
  });
});
