import { afterEach, describe, expect, it } from "vitest";
import { ClientSession } from "../../../src/client/session.js";
import { silentLogger } from "../../../src/server/logger.js";
import { Server } from "../../../src/server/server.js";
import { StreamableHttpClientTransport } from "../../../src/transports/http/client.js";
import { type HttpServerHandle, serveHttp } from "../../../src/transports/http/node.js";
import type { Tool } from "../../../src/types/index.js";

let http: HttpServerHandle | undefined;
afterEach(async () => {
  await http?.close();
  http = undefined;
});

function refused(): Error {
  return Object.assign(new TypeError("fetch failed"), {
    cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
  });
}

function reset(): Error {
  return Object.assign(new TypeError("fetch failed"), {
    cause: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }),
  });
}

const LISTED: Tool[] = [
  { name: "lookup", inputSchema: { type: "object" as const }, annotations: { readOnlyHint: true } },
  { name: "upsert", inputSchema: { type: "object" as const }, annotations: { idempotentHint: true } },
  { name: "charge", inputSchema: { type: "object" as const }, annotations: { destructiveHint: true } },
  { name: "t", inputSchema: { type: "object" as const } },
];

async function setup(failure: () => Error) {
  let calls = 0;
  const server = new Server("retry", {
    logger: silentLogger,
    onListTools: () => ({ tools: LISTED }),
    onCallTool: () => {
      calls++;
      return { content: [{ type: "text", text: "ran" }] };
    },
  });
  http = await serveHttp(server, { port: 0 });
  const posted: string[] = [];
  let failNext = true;
  const transport = new StreamableHttpClientTransport(http.url, {
    fetch: async (url, init) => {
      const body = JSON.parse(String(init.body)) as { id?: unknown; method: string };
      posted.push(`${body.method}#${String(body.id)}`);
      if (body.method === "tools/call" && failNext) {
        failNext = false;
        throw failure();
      }
      return fetch(url, init);
    },
  });
  const session = await ClientSession.connect(transport);
  return { session, posted, calls: () => calls };
}

describe("StreamableHttpClientTransport retries", () => {
  it("re-sends even a tools/call, once, under a new id, when the connection was refused (it reached no server)", async () => {
    const { session, posted, calls } = await setup(refused);
    const result = await session.callTool("t");
    expect(result.content).toEqual([{ type: "text", text: "ran" }]);
    expect(posted).toHaveLength(2);
    expect(posted[0]).toBe("tools/call#1");
    expect(posted[1]).toMatch(/^tools\/call#rt-retry-\d+$/);
    expect(calls()).toBe(1);
    await session.close();
  });

  it("never re-sends a tools/call whose connection broke after it may have been sent", async () => {
    const { session, posted, calls } = await setup(reset);
    await expect(session.callTool("t")).rejects.toThrow(/the POST failed/);
    expect(posted).toEqual(["tools/call#1"]);
    expect(calls()).toBe(0);
    await session.close();
  });

  it.each(["lookup", "upsert"])(
    "re-issues a tools/call of %s, listed read-only or idempotent, under a new id when its stream broke",
    async (name) => {
      const { session, posted, calls } = await setup(reset);
      await session.listTools();
      const result = await session.callTool(name);
      expect(result.content).toEqual([{ type: "text", text: "ran" }]);
      const legs = posted.filter((entry) => entry.startsWith("tools/call"));
      expect(legs).toHaveLength(2);
      expect(legs[1]).toMatch(/^tools\/call#rt-retry-\d+$/);
      expect(calls()).toBe(1);
      await session.close();
    },
  );

  it.each(["charge", "t"])("never re-issues %s, listed without either hint", async (name) => {
    const { session, posted, calls } = await setup(reset);
    await session.listTools();
    await expect(session.callTool(name)).rejects.toThrow(/the POST failed/);
    expect(posted.filter((entry) => entry.startsWith("tools/call"))).toHaveLength(1);
    expect(calls()).toBe(0);
    await session.close();
  });
});
