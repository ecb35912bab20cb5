import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/server/logger.js";
import { MCPServer } from "../../../src/server/mcp/mcp-server.js";
import { Server } from "../../../src/server/server.js";
import { type HttpServerHandle, serveHttp } from "../../../src/transports/http/node.js";
import { buildDualEraServer } from "../../fixtures/legacy/dual-era.js";
import { unhandledRejections } from "../../helpers.js";
import { openSession } from "../../legacy/http-helpers.js";
import { makeServer, post, rpc, startServer } from "./helpers.js";

const handles: HttpServerHandle[] = [];
afterEach(async () => {
  for (const handle of handles.splice(0)) await handle.close().catch(() => {});
});

/** The SSE events of a body, data lines parsed. */
const events = (text: string) =>
  text
    .split("\n\n")
    .filter((block) => block.startsWith("data: "))
    .map((block) => JSON.parse(block.slice(6)) as Record<string, unknown>);

describe("serveHttp's close() is graceful", () => {
  // A month is longer than a timer can wait: clamped, it must not become 1 ms and cut the request.
  it.each([
    ["the default drainTimeoutMs", undefined],
    ["a drainTimeoutMs of a month", 30 * 24 * 3_600_000],
  ])(
    "lets a request in flight finish, answer included, before it resolves (%s)",
    async (_label, drainTimeoutMs) => {
      const endpoint = await startServer({ keepAliveMs: 0, drainTimeoutMs });
      const body = rpc("tools/call", { name: "progress", arguments: { delayMs: 40 } }, 7);
      body.params._meta = { ...body.params._meta, progressToken: "p" } as never;
      const response = await post(endpoint.url, body);
      const closing = endpoint.close();
      const answer = events(await response.text());
      await closing;
      expect(answer.at(-1)).toMatchObject({
        id: 7,
        result: { content: [{ type: "text", text: "progressed" }] },
      });
    },
  );

  const rejections = unhandledRejections();

  // SIGINT then SIGTERM, or a signal handler and a `finally`: a second call used to run a second
  // `server.close()`, whose ERR_SERVER_NOT_RUNNING went unhandled while the first one drained.
  it("is one shutdown however often it is called, while draining and after", async () => {
    const endpoint = await startServer({ keepAliveMs: 0 });
    const body = rpc("tools/call", { name: "progress", arguments: { delayMs: 40 } }, 8);
    body.params._meta = { ...body.params._meta, progressToken: "p" } as never;
    const response = await post(endpoint.url, body);
    const first = endpoint.close();
    const second = endpoint.close();
    const answer = events(await response.text());
    await Promise.all([first, second]);
    await expect(endpoint.close()).resolves.toBeUndefined();
    await new Promise((resolve) => setImmediate(resolve));
    expect(rejections).toEqual([]);
    expect(answer.at(-1)).toMatchObject({ id: 8, result: { content: [{ text: "progressed" }] } });
    expect(second).toBe(first);
  });

  it("still drains and resolves when the node:http server was closed by hand first", async () => {
    const endpoint = await startServer({ keepAliveMs: 0 });
    const body = rpc("tools/call", { name: "progress", arguments: { delayMs: 40 } }, 9);
    body.params._meta = { ...body.params._meta, progressToken: "p" } as never;
    const response = await post(endpoint.url, body);
    endpoint.node.close();
    const closing = endpoint.close();
    const answer = events(await response.text());
    await expect(closing).resolves.toBeUndefined();
    await new Promise((resolve) => setImmediate(resolve));
    expect(rejections).toEqual([]);
    expect(answer.at(-1)).toMatchObject({ id: 9, result: { content: [{ text: "progressed" }] } });
  });

  it("refuses new connections while it drains", async () => {
    const endpoint = await startServer({ drainTimeoutMs: 2_000 });
    const slow = await post(endpoint.url, {
      ...rpc("tools/call", { name: "progress", arguments: { delayMs: 60 } }),
    });
    const closing = endpoint.close();
    await expect(fetch(endpoint.url, { method: "POST" })).rejects.toThrow();
    await slow.text();
    await closing;
  });

  it.each([
    [
      "a Server",
      () =>
        new Server("live", { logger: silentLogger, listChanged: true, onListTools: () => ({ tools: [] }) }),
    ],
    [
      "an MCPServer",
      () => {
        const mcp = new MCPServer("live", { logger: silentLogger, listChanged: true });
        mcp.tool("t", {}, () => "t");
        return mcp;
      },
    ],
  ])("ends listen streams of %s with their result rather than cutting them", async (_label, build) => {
    const handle = await serveHttp(build(), { keepAliveMs: 0 });
    const response = await post(
      handle.url,
      rpc("subscriptions/listen", { notifications: { toolsListChanged: true } }, 9),
    );
    const reader = response.body?.getReader();
    expect(new TextDecoder().decode((await reader?.read())?.value)).toContain("acknowledged");
    const closing = handle.close();
    let rest = "";
    for (let chunk = await reader?.read(); chunk && !chunk.done; chunk = await reader?.read()) {
      rest += new TextDecoder().decode(chunk.value);
    }
    await closing;
    expect(events(rest).at(-1)).toMatchObject({ jsonrpc: "2.0", id: 9, result: {} });
  });

  it("does not wait for 2025 GET streams, which only end when dropped", async () => {
    const handle = await serveHttp(buildDualEraServer(), { drainTimeoutMs: 10_000 });
    const { headers } = await openSession(handle.url.href);
    const stream = await fetch(handle.url, { headers: { ...headers, accept: "text/event-stream" } });
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    const started = performance.now();
    await handle.close();
    expect(performance.now() - started).toBeLessThan(5_000);
    await stream.body?.cancel().catch(() => {});
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])("refuses drainTimeoutMs %s", async (drainTimeoutMs) => {
    await expect(serveHttp(makeServer().server, { drainTimeoutMs })).rejects.toThrow(
      new RangeError(`drainTimeoutMs must be a non-negative number of milliseconds, got ${drainTimeoutMs}`),
    );
  });
});
