// Interop, 2025 era: the official TypeScript SDK 2.4.0 client in its default mode ('legacy':
// initialize, 2025-11-25, one session) against our MCPServer on `serveHttp` — most real clients
// still connect this way. Structured output of a 2026 tool, logging/setLevel, progress, completion,
// resources/subscribe and cancellation, each as their client surfaces it.
import {
  Client,
  ProtocolError,
  ResourceNotFoundError,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import { serveHttp } from "../../src/transports/http/node.js";
import { buildOurFeatureServer, type FeatureServer } from "../fixtures/interop/our-feature-server.js";
import { type Exchange, type FetchLike, posts, recordingFetch, until } from "./helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

interface Setup extends FeatureServer {
  client: Client;
  /** The POSTs and their answers (the session's GET stream is not recorded: it never ends). */
  exchanges: Exchange[];
}

async function theirLegacyClient(): Promise<Setup> {
  const server = buildOurFeatureServer();
  const handle = await serveHttp(server.mcp, { port: 0 });
  cleanups.push(() => handle.close());
  const recorder = recordingFetch();
  const fetchPostsRecorded: FetchLike = (url, init) =>
    init?.method === "POST" ? recorder.fetch(url, init) : fetch(url, init);
  const client = new Client({ name: "official-client", version: "2.4.0" }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(handle.url, { fetch: fetchPostsRecorded }));
  cleanups.push(() => client.close());
  expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
  return { ...server, client, exchanges: recorder.exchanges };
}

describe("their legacy client → our MCPServer: structured output on the 2025 wire", () => {
  it("lists every tool: one whose output is not an object is listed without its outputSchema", async () => {
    // 2025-11-25 types `Tool.outputSchema` as `{ type: "object", … }`: a single array schema made
    // the whole tools/list invalid for their client (SdkError "Invalid result for tools/list").
    const { client, exchanges } = await theirLegacyClient();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      "add",
      "range",
      "count",
      "fail",
      "chatty",
      "wait",
      "touch",
    ]);
    const wire = posts(exchanges, "tools/list")[0]?.response?.result?.tools as Record<string, unknown>[];
    expect(wire.find((tool) => tool.name === "range")).not.toHaveProperty("outputSchema");
    expect(wire.find((tool) => tool.name === "add")?.outputSchema).toMatchObject({ type: "object" });
  });

  it("gets an array result as its JSON text, without the structuredContent 2025 cannot carry", async () => {
    const { client, exchanges } = await theirLegacyClient();
    await client.listTools();
    const range = await client.callTool({ name: "range", arguments: { n: 3 } });
    expect(range).toEqual({ content: [{ type: "text", text: "[0,1,2]" }] });
    expect(posts(exchanges, "tools/call")[0]?.response?.result).toEqual({
      content: [{ type: "text", text: "[0,1,2]" }],
    });
    // An object result keeps its structuredContent, checked by their client against the schema.
    const added = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
    expect(added.structuredContent).toEqual({ sum: 5 });
  });

  it("gets a hand-built scalar structuredContent as text when the handler gave no text block", async () => {
    const { client, exchanges } = await theirLegacyClient();
    const count = await client.callTool({ name: "count", arguments: {} });
    expect(count).toEqual({ content: [{ type: "text", text: "3" }] });
    expect(posts(exchanges, "tools/call")[0]?.response?.result).toEqual({
      content: [{ type: "text", text: "3" }],
    });
  });
});

describe("their legacy client → our MCPServer: the session's utilities", () => {
  it("logging/setLevel filters the log messages of later calls; progress reaches onprogress", async () => {
    const { client, exchanges } = await theirLegacyClient();
    const logs: unknown[] = [];
    client.setNotificationHandler("notifications/message", (notification) => {
      logs.push(notification.params);
    });
    await client.setLoggingLevel("info");
    expect(posts(exchanges, "logging/setLevel")[0]?.response?.result).toEqual({});
    const progress: unknown[] = [];
    const result = await client.callTool(
      { name: "chatty", arguments: {} },
      { onprogress: (params) => progress.push(params) },
    );
    expect(result).toEqual({ content: [{ type: "text", text: "chatted" }] });
    expect(progress).toEqual([
      { progress: 1, total: 2, message: "half way" },
      { progress: 2, total: 2, message: "done" },
    ]);
    expect(logs).toEqual([{ level: "warning", data: { disk: "92%" }, logger: "storage" }]);
  });

  it("an invalid level is refused with -32602", async () => {
    const { client } = await theirLegacyClient();
    const error = await client
      .request({ method: "logging/setLevel", params: { level: "loud" } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe(-32602);
  });

  it("completes a template variable, and reads an unknown resource as -32002 (the 2025 code)", async () => {
    const { client, exchanges } = await theirLegacyClient();
    const ids = await client.complete({
      ref: { type: "ref/resource", uri: "users://{id}/profile" },
      argument: { name: "id", value: "12" },
    });
    expect(ids.completion.values).toEqual(["12", "123"]);
    const error = await client.readResource({ uri: "nothing://here" }).catch((caught: unknown) => caught);
    expect(posts(exchanges, "resources/read")[0]?.response?.error).toEqual({
      code: -32002,
      message: "Resource not found: nothing://here",
      data: { uri: "nothing://here" },
    });
    // Their client folds the legacy code into its ResourceNotFoundError, which carries -32602.
    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect((error as ResourceNotFoundError).data).toEqual({ uri: "nothing://here" });
  });

  it("resources/subscribe delivers the update on the session's stream", async () => {
    const { client, mcp } = await theirLegacyClient();
    const updated: string[] = [];
    client.setNotificationHandler("notifications/resources/updated", (notification) => {
      updated.push(notification.params.uri);
    });
    await client.subscribeResource({ uri: "config://app" });
    mcp.server.notifyResourceUpdated("other://x");
    mcp.server.notifyResourceUpdated("config://app");
    await until(() => updated.length > 0, "the update");
    expect(updated).toEqual(["config://app"]);
  });

  it("an aborted call sends notifications/cancelled, which reaches our handler's signal", async () => {
    const { client, started, cancelled, exchanges } = await theirLegacyClient();
    const controller = new AbortController();
    const call = client.callTool({ name: "wait", arguments: {} }, { signal: controller.signal });
    await started;
    controller.abort("user gave up");
    await expect(call).rejects.toThrow();
    await expect(cancelled).resolves.toBe("user gave up");
    await until(() => posts(exchanges, "notifications/cancelled").length === 1, "the cancellation's answer");
    const [notice] = posts(exchanges, "notifications/cancelled");
    expect(notice?.status).toBe(202);
    expect(notice?.body.params).toMatchObject({ requestId: posts(exchanges, "tools/call")[0]?.body.id });
  });
});
