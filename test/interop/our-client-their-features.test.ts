// Interop beyond MRTR: our Client against the official TypeScript SDK 2.4.0 server — their
// `createMcpHandler(factory)` behind node:http on 127.0.0.1 (every exchange recorded server-side):
// paginated lists, completion, logs and progress on a request's stream, cancellation, the error
// surfaces, structured output checked against their outputSchema, and their listen streams.
import {
  createMcpHandler,
  InMemoryServerEventBus,
  type McpServerFactory,
} from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { type ClientOptions, isResourceNotFound, listAll } from "../../src/client/index.js";
import { McpError } from "../../src/types/index.js";
import {
  buildTheirFeatureServer,
  buildTheirPagedServer,
  type TheirProbe,
} from "../fixtures/interop/their-feature-server.js";
import { type Exchange, listen, posts, recordingHandler, until } from "./helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

interface Setup {
  client: Client;
  exchanges: Exchange[];
  handler: ReturnType<typeof createMcpHandler>;
}

/**
 * Their handler on node:http and our client on it. `record: false` for listen streams: the
 * recorder reads each answer to its end, which an open SSE stream never reaches.
 */
async function ourClientOnTheirs(
  factory: McpServerFactory,
  options: { record?: boolean; clientOptions?: ClientOptions } = {},
): Promise<Setup> {
  const handler = createMcpHandler(factory, { bus: new InMemoryServerEventBus() });
  const recorded = recordingHandler((request) => handler.fetch(request));
  const server = await listen(
    options.record === false ? (request) => handler.fetch(request) : recorded.handler,
  );
  cleanups.push(async () => {
    await server.close();
    await handler.close();
  });
  const client = await Client.connect(server.url, options.clientOptions);
  cleanups.push(() => client.close());
  expect(client.protocolVersion).toBe("2026-07-28");
  return { client, exchanges: recorded.exchanges, handler };
}

describe("our client → their server: lists and completion", () => {
  it("follows their cursors to the end of every list (listAll), one page per request", async () => {
    const { client, exchanges } = await ourClientOnTheirs(() => buildTheirPagedServer(7, 3));
    const tools = await listAll(client, "tools");
    expect(tools.map((tool) => tool.name)).toEqual([0, 1, 2, 3, 4, 5, 6].map((index) => `tool-${index}`));
    const legs = posts(exchanges, "tools/list");
    expect(legs.map((leg) => leg.body.params?.cursor)).toEqual([undefined, "Mw", "Ng"]);
    expect(legs.at(-1)?.response?.result).not.toHaveProperty("nextCursor");
    expect((await listAll(client, "prompts")).length).toBe(7);
    expect((await listAll(client, "resources")).map((resource) => resource.uri).at(-1)).toBe("file:///r6");
  });

  it("reads one page at a time with listTools(cursor)", async () => {
    const { client } = await ourClientOnTheirs(() => buildTheirPagedServer(4, 3));
    const first = await client.listTools();
    expect(first.tools.map((tool) => tool.name)).toEqual(["tool-0", "tool-1", "tool-2"]);
    expect(first.nextCursor).toBe("Mw");
    const second = await client.listTools(first.nextCursor);
    expect(second.tools.map((tool) => tool.name)).toEqual(["tool-3"]);
    expect(second.nextCursor).toBeUndefined();
  });

  it("completes their completable prompt arguments and template variables", async () => {
    const { client } = await ourClientOnTheirs(() => buildTheirFeatureServer());
    const languages = await client.complete({
      ref: { type: "ref/prompt", name: "greet" },
      argument: { name: "language", value: "f" },
    });
    expect(languages.completion.values).toEqual(["french", "finnish"]);
    const names = await client.complete({
      ref: { type: "ref/prompt", name: "greet" },
      argument: { name: "name", value: "A" },
      context: { arguments: { language: "french" } },
    });
    expect(names.completion.values).toEqual(["Amélie", "Anne"]);
    const ids = await client.complete({
      ref: { type: "ref/resource", uri: "users://{id}/profile" },
      argument: { name: "id", value: "1" },
    });
    expect(ids.completion.values).toEqual(["1", "12", "123"]);
  });
});

describe("our client → their server: errors and structured output", () => {
  it("surfaces their -32602 for an unknown tool, and their isError result as a result", async () => {
    const { client } = await ourClientOnTheirs(() => buildTheirFeatureServer());
    const error = await client.callTool("nope", {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    const failed = await client.callTool("fail", {});
    expect(failed).toMatchObject({ isError: true, content: [{ type: "text", text: "the disk is full" }] });
    const invalid = await client.callTool("add", { a: "one", b: 2 });
    expect(invalid.isError).toBe(true);
  });

  it("takes their unknown resource as not found (isResourceNotFound)", async () => {
    const { client, exchanges } = await ourClientOnTheirs(() => buildTheirFeatureServer());
    const error = await client.readResource("nothing://here").catch((caught: unknown) => caught);
    expect(isResourceNotFound(error)).toBe(true);
    expect(posts(exchanges, "resources/read")[0]?.response?.error?.code).toBe(-32602);
  });

  it("checks their object and array structured output against the outputSchema they listed", async () => {
    const { client } = await ourClientOnTheirs(() => buildTheirFeatureServer());
    await client.listTools();
    expect((await client.callTool("add", { a: 2, b: 3 })).structuredContent).toEqual({ sum: 5 });
    const range = await client.callTool("range", { n: 3 });
    expect(range.structuredContent).toEqual([0, 1, 2]);
  });
});

describe("our client → their server: a request's stream", () => {
  it("receives their progress and only the logs at or above the level it asked for", async () => {
    const { client, exchanges } = await ourClientOnTheirs(() => buildTheirFeatureServer(), {
      clientOptions: { logLevel: "info" },
    });
    const progress: unknown[] = [];
    const logs: unknown[] = [];
    const result = await client.callTool(
      "chatty",
      {},
      { onProgress: (params) => progress.push(params), onLog: (params) => logs.push(params) },
    );
    expect(result.content).toEqual([{ type: "text", text: "chatted" }]);
    expect(progress).toEqual([
      expect.objectContaining({ progress: 1, total: 2, message: "half way" }),
      expect.objectContaining({ progress: 2, total: 2, message: "done" }),
    ]);
    expect(logs).toEqual([{ level: "warning", data: { disk: "92%" }, logger: "storage" }]);
    const [leg] = posts(exchanges, "tools/call");
    expect(leg?.body.params?._meta?.["io.modelcontextprotocol/logLevel"]).toBe("info");
  });

  it("an aborted call closes the stream, which aborts their handler's signal", async () => {
    let started: () => void = () => {};
    let aborted: (reason: unknown) => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const stopped = new Promise<unknown>((resolve) => {
      aborted = resolve;
    });
    const probe: TheirProbe = { started, aborted };
    const { client } = await ourClientOnTheirs(() => buildTheirFeatureServer(probe), { record: false });
    const controller = new AbortController();
    const call = client.callTool("wait", {}, { signal: controller.signal });
    await running;
    controller.abort(new Error("user gave up"));
    await expect(call).rejects.toThrow();
    await expect(stopped).resolves.toBeDefined();
  });
});

describe("our client → their server: listen", () => {
  it("hears their list change and resource update, and closes the stream", async () => {
    const { client, handler } = await ourClientOnTheirs(() => buildTheirFeatureServer(), { record: false });
    const heard: string[] = [];
    const subscription = client.listen(
      { toolsListChanged: true, resourceSubscriptions: ["users://1/profile"] },
      (notification) => {
        const uri = (notification.params as { uri?: string } | undefined)?.uri;
        heard.push(uri === undefined ? notification.method : `${notification.method} ${uri}`);
      },
    );
    expect(await subscription.acknowledged).toEqual({
      toolsListChanged: true,
      resourceSubscriptions: ["users://1/profile"],
    });
    handler.notify.toolsChanged();
    handler.notify.resourceUpdated("users://2/profile");
    handler.notify.resourceUpdated("users://1/profile");
    await until(() => heard.length >= 2, "two notifications");
    expect(heard).toEqual([
      "notifications/tools/list_changed",
      "notifications/resources/updated users://1/profile",
    ]);
    subscription.close();
    await subscription.closed;
  });
});
