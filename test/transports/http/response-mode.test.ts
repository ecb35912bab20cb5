import { afterEach, describe, expect, it } from "vitest";
import { mcp as provisioner } from "../../../examples/provisioner-mcpserver.js";
import { Client } from "../../../src/client/client.js";
import { silentLogger } from "../../../src/server/logger.js";
import { Server } from "../../../src/server/server.js";
import type { ResponseMode } from "../../../src/transports/http/exchange.js";
import { createHttpHandler } from "../../../src/transports/http/handler.js";
import { serveHttp } from "../../../src/transports/http/node.js";
import { McpError } from "../../../src/types/index.js";
import { meta } from "../../helpers.js";
import { headersFor, makeServer, post, rpc, SERVER_INFO, startServer } from "./helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
});

async function serve(responseMode: ResponseMode | undefined, keepAliveMs?: number) {
  const endpoint = await startServer({ responseMode, keepAliveMs });
  closers.push(endpoint.close);
  return endpoint;
}

/** A server that supports listen and whose `fail` tool throws a plain JSON-RPC error (HTTP 200). */
async function serveLive(responseMode: ResponseMode) {
  const live = new Server("live", {
    version: "1.0.0",
    logger: silentLogger,
    listChanged: true,
    onListTools: () => ({ tools: [] }),
    onCallTool: () => {
      throw new McpError(-32000, "quota exceeded");
    },
  });
  const handle = await serveHttp(live, { responseMode });
  closers.push(handle.close);
  return { url: handle.url, live };
}

/** The SSE events of a body: data lines parsed, comments kept as `":"`-prefixed strings. */
function events(text: string): unknown[] {
  return text
    .split("\n\n")
    .filter((block) => block !== "")
    .map((block) => (block.startsWith(":") ? block : JSON.parse(block.replace(/^data: /, ""))));
}

const progressCall = (delayMs = 0) => rpc("tools/call", { name: "progress", arguments: { delayMs } }, 5);
const progressed = { jsonrpc: "2.0", id: 5, result: { content: [{ type: "text", text: "progressed" }] } };
const withProgressToken = (body: ReturnType<typeof rpc>) => ({
  ...body,
  params: { ...body.params, _meta: { ...meta(), progressToken: "p" } },
});

describe("responseMode", () => {
  it('"auto" (default): JSON without notifications, SSE once one is sent', async () => {
    const { url } = await serve(undefined);
    const plain = await post(url, rpc("tools/call", { name: "echo", arguments: { a: 1 } }, 2));
    expect([plain.status, plain.headers.get("content-type")]).toEqual([200, "application/json"]);
    const streamed = await post(url, withProgressToken(progressCall()));
    expect(streamed.headers.get("content-type")).toBe("text/event-stream");
    const all = events(await streamed.text());
    expect(all).toHaveLength(4);
    expect(all.at(-1)).toMatchObject(progressed);
  });

  it('"json": the result alone, as JSON; progress sent before it is dropped', async () => {
    const { url } = await serve("json");
    const response = await post(url, withProgressToken(progressCall()));
    expect([response.status, response.headers.get("content-type")]).toEqual([200, "application/json"]);
    expect(await response.json()).toMatchObject(progressed);
  });

  it('"json" still streams subscriptions/listen, which is nothing but notifications', async () => {
    const { url, live } = await serveLive("json");
    const controller = new AbortController();
    const body = rpc("subscriptions/listen", { notifications: { toolsListChanged: true } }, 9);
    const response = await post(url, body, {}, { signal: controller.signal });
    expect([response.status, response.headers.get("content-type")]).toEqual([200, "text/event-stream"]);
    const reader = response.body?.getReader();
    const first = new TextDecoder().decode((await reader?.read())?.value);
    expect(first).toContain("notifications/subscriptions/acknowledged");
    live.notifyToolsListChanged();
    expect(new TextDecoder().decode((await reader?.read())?.value)).toContain(
      "notifications/tools/list_changed",
    );
    controller.abort();
  });

  it('"sse": even an immediate result is one SSE event, with the exact frame', async () => {
    const { url } = await serve("sse");
    const response = await post(url, rpc("tools/call", { name: "echo", arguments: { a: 1 } }, 2));
    expect([response.status, response.headers.get("content-type")]).toEqual([200, "text/event-stream"]);
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(await response.text()).toBe(
      `data: ${JSON.stringify({ jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: 'echo:{"a":1}' }], resultType: "complete", _meta: SERVER_INFO } })}\n\n`,
    );
  });

  it('"sse": a call still running has its stream open, with keep-alives while it is quiet', async () => {
    const endpoint = await serve("sse", 20);
    const controller = new AbortController();
    // `slow` sends nothing and never finishes on its own: only the mode can open the stream.
    const response = await post(
      endpoint.url,
      rpc("tools/call", { name: "slow", arguments: {} }, 6),
      {},
      {
        signal: controller.signal,
      },
    );
    expect([response.status, response.headers.get("content-type")]).toEqual([200, "text/event-stream"]);
    const chunk = await response.body?.getReader().read();
    expect(new TextDecoder().decode(chunk?.value)).toBe(": keep-alive\n\n");
    controller.abort();
    await endpoint.probe.aborted;
  });

  it('"sse": a result that comes later ends the stream it opened', async () => {
    const { url } = await serve("sse", 0);
    const response = await post(url, progressCall(30));
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const all = events(await response.text());
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject(progressed);
  });

  it('"sse": an error with its own HTTP status stays JSON with that status (-32021 → 400)', async () => {
    const { url } = await serve("sse");
    const response = await post(url, rpc("tools/call", { name: "needs-sampling", arguments: {} }, 3));
    expect([response.status, response.headers.get("content-type")]).toEqual([400, "application/json"]);
    expect(await response.json()).toMatchObject({ id: 3, error: { code: -32021 } });
  });

  it('"sse": an ordinary JSON-RPC error is streamed like any answer', async () => {
    const { url } = await serveLive("sse");
    const response = await post(url, rpc("tools/call", { name: "fail", arguments: {} }, 4));
    expect([response.status, response.headers.get("content-type")]).toEqual([200, "text/event-stream"]);
    expect(events(await response.text())).toEqual([
      { jsonrpc: "2.0", id: 4, error: { code: -32000, message: "quota exceeded" } },
    ]);
  });

  it("refuses an unknown mode when the handler is built", () => {
    const { server } = makeServer();
    expect(() => createHttpHandler(server, { responseMode: "stream" as ResponseMode })).toThrow(
      'responseMode must be "auto", "json" or "sse", got "stream"',
    );
  });

  it('the web handler honours it too: "json" over fetch(Request)', async () => {
    const { server } = makeServer();
    const handler = createHttpHandler(server, { responseMode: "json" });
    const body = withProgressToken(progressCall());
    const response = await handler(
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        headers: headersFor(body),
        body: JSON.stringify(body),
      }),
    );
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toMatchObject(progressed);
  });
});

describe("our client in every mode", () => {
  it.each(["auto", "json", "sse"] as const)("%s: a sealed two-round flow completes", async (responseMode) => {
    const handle = await serveHttp(provisioner, { responseMode });
    closers.push(handle.close);
    await using client = await Client.connect(handle.url, {
      elicitation: () => ({ action: "accept", content: { region: "eu-west-1" } }),
    });
    const result = await client.callTool("provision", { name: "orders" });
    expect(result.content).toEqual([{ type: "text", text: "Provisioned 'orders' in eu-west-1." }]);
  });
});
