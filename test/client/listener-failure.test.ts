// A request's own listeners (onProgress, onLog, onNotification) that throw or reject are the
// caller's bug, not the request's: the request completes once, and the failure is a warning.
// Before, over HTTP it broke the response stream (a read was sent again, then failed as a dropped
// stream), and in memory it escaped as an uncaught exception.
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { ClientSession } from "../../src/client/session.js";
import { MCPServer, silentLogger } from "../../src/server/index.js";
import type { Transport } from "../../src/shared/transport.js";
import { StreamableHttpClientTransport } from "../../src/transports/http/client.js";
import { serveHttp } from "../../src/transports/http/node.js";
import { MemoryTransport } from "../../src/transports/memory.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!check()) throw new Error("condition not reached");
}

/** A prompt that reports progress and logs before it answers, counting how often it ran. */
function briefingServer() {
  const runs = { count: 0 };
  const mcp = new MCPServer("briefing", { logger: silentLogger });
  mcp.prompt("brief", {}, async (_args, ctx) => {
    runs.count++;
    await ctx.progress(1, 2);
    await ctx.info("halfway");
    return "hello";
  });
  return { mcp, runs };
}

describe.each([
  ["in memory", async (mcp: MCPServer): Promise<Transport> => new MemoryTransport(mcp)],
  [
    "over HTTP",
    async (mcp: MCPServer): Promise<Transport> => {
      const http = await serveHttp(mcp, { port: 0 });
      closers.push(() => http.close());
      return new StreamableHttpClientTransport(http.url);
    },
  ],
])("a listener that fails %s", (_label, transportFor) => {
  it("is reported as a warning, and the request completes once", async () => {
    const { mcp, runs } = briefingServer();
    const warnings: string[] = [];
    const session = await ClientSession.connect(await transportFor(mcp), {
      logLevel: "info",
      onWarning: (message) => warnings.push(message),
    });
    closers.push(() => session.close());
    const result = await session.getPrompt(
      "brief",
      {},
      {
        onProgress: () => {
          throw new Error("progress bar gone");
        },
        onLog: async () => {
          throw new Error("log sink gone");
        },
      },
    );
    expect(result.messages).toEqual([{ role: "user", content: { type: "text", text: "hello" } }]);
    expect(runs.count).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).toEqual([
      "A listener of notifications/progress failed: progress bar gone",
      "A listener of notifications/message failed: log sink gone",
    ]);
  });
});

describe("a session's onLog that fails on a log outside any request", () => {
  it("is reported as a warning too", async () => {
    const transport: Transport = { start: async () => {}, send: async () => {}, close: async () => {} };
    const warnings: string[] = [];
    const session = await ClientSession.connect(transport, {
      onLog: () => {
        throw new Error("log sink gone");
      },
      onWarning: (message) => warnings.push(message),
    });
    closers.push(() => session.close());
    transport.onmessage?.({
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "info", data: "stray" },
    });
    expect(warnings).toEqual(["A listener of notifications/message failed: log sink gone"]);
  });
});

describe.each([
  ["in memory", async (mcp: MCPServer) => mcp],
  [
    "over HTTP",
    async (mcp: MCPServer) => {
      const http = await serveHttp(mcp, { port: 0 });
      closers.push(() => http.close());
      return http.url.href;
    },
  ],
])("a listen stream's async listener that rejects %s", (_label, target) => {
  it("is reported as a warning, not an unhandled rejection, and the stream goes on", async () => {
    const mcp = new MCPServer("live", { logger: silentLogger, listChanged: true });
    mcp.tool("first", {}, () => "one");
    const warnings: string[] = [];
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    closers.push(async () => void process.off("unhandledRejection", onUnhandled));
    const client = await Client.connect(await target(mcp), { onWarning: (m) => warnings.push(m) });
    closers.push(() => client.close());
    const heard: string[] = [];
    const sub = client.listen({ toolsListChanged: true }, async (notification) => {
      heard.push(notification.method);
      throw new Error("refresh failed");
    });
    await sub.acknowledged;
    mcp.tool("second", {}, () => "two");
    await until(() => heard.length === 1);
    mcp.tool("third", {}, () => "three");
    await until(() => heard.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(unhandled).toEqual([]);
    expect(warnings).toEqual([
      "A listener of notifications/tools/list_changed failed: refresh failed",
      "A listener of notifications/tools/list_changed failed: refresh failed",
    ]);
    sub.close();
    await sub.closed;
  });
});
