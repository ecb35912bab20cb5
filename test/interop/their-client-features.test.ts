// Interop beyond MRTR: the official TypeScript SDK 2.4.0 client (versionNegotiation 'auto') against
// our MCPServer served by `serveHttp` on 127.0.0.1 — the list endpoints and their cache hints,
// completion, logs and progress on a request's SSE stream, cancellation by aborting the fetch,
// the error surfaces, structured output, and listen streams.
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import { serveHttp } from "../../src/transports/http/node.js";
import { buildOurFeatureServer, type FeatureServer } from "../fixtures/interop/our-feature-server.js";
import { type Exchange, posts, recordingFetch } from "./helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

interface Setup extends FeatureServer {
  client: Client;
  exchanges: Exchange[];
}

/**
 * Their client on our server. `record: false` for listen streams: the recorder reads each answer to
 * its end, which an open SSE stream never reaches.
 */
async function theirClient(options: { record?: boolean; maxSubscriptions?: number } = {}): Promise<Setup> {
  const server = buildOurFeatureServer({ maxSubscriptions: options.maxSubscriptions });
  const handle = await serveHttp(server.mcp, { port: 0 });
  cleanups.push(() => handle.close());
  const { fetch, exchanges } =
    options.record === false ? { fetch: undefined, exchanges: [] } : recordingFetch();
  const client = new Client(
    { name: "official-client", version: "2.4.0" },
    { capabilities: {}, versionNegotiation: { mode: "auto" } },
  );
  await client.connect(new StreamableHTTPClientTransport(handle.url, { fetch }));
  cleanups.push(() => client.close());
  expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
  return { ...server, client, exchanges };
}

describe("their client → our MCPServer: lists, completion", () => {
  it("lists tools, prompts, resources and templates with our cache hints", async () => {
    const { client, exchanges } = await theirClient();
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
    expect(tools[1]?.outputSchema).toMatchObject({ type: "array" });
    const { prompts } = await client.listPrompts();
    expect(prompts).toEqual([
      expect.objectContaining({
        name: "greet",
        arguments: [
          { name: "language", required: true },
          { name: "name", required: true },
        ],
      }),
    ]);
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(["config://app", "users://1/profile"]);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(["users://{id}/profile"]);
    for (const method of ["tools/list", "prompts/list", "resources/list", "resources/templates/list"]) {
      const [leg] = posts(exchanges, method);
      expect(leg?.status).toBe(200);
      expect(leg?.response?.result).toMatchObject({ resultType: "complete", cacheScope: expect.any(String) });
      expect(leg?.response?.result?.ttlMs).toEqual(expect.any(Number));
    }
  });

  it("completes a prompt argument, with the earlier arguments as context", async () => {
    const { client } = await theirClient();
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
  });

  it("completes a resource-template variable", async () => {
    const { client, exchanges } = await theirClient();
    const ids = await client.complete({
      ref: { type: "ref/resource", uri: "users://{id}/profile" },
      argument: { name: "id", value: "1" },
    });
    expect(ids.completion.values).toEqual(["1", "12", "123"]);
    expect(posts(exchanges, "completion/complete")[0]?.response?.result?.resultType).toBe("complete");
  });

  it("reads a static resource and a template instance", async () => {
    const { client } = await theirClient();
    expect((await client.readResource({ uri: "config://app" })).contents).toEqual([
      { uri: "config://app", mimeType: "application/json", text: '{"debug":false}' },
    ]);
    expect((await client.readResource({ uri: "users://7/profile" })).contents).toEqual([
      { uri: "users://7/profile", mimeType: "text/plain", text: "Profile of 7" },
    ]);
  });
});

describe("their client → our MCPServer: errors, structured output", () => {
  it("gets -32602 for an unknown tool, as a ProtocolError", async () => {
    const { client, exchanges } = await theirClient();
    const error = await client.callTool({ name: "nope", arguments: {} }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe(-32602);
    const [leg] = posts(exchanges, "tools/call");
    expect(leg?.response?.error?.code).toBe(-32602);
  });

  it("gets an isError result for invalid arguments and for a tool error", async () => {
    const { client } = await theirClient();
    const invalid = await client.callTool({ name: "add", arguments: { a: "one", b: 2 } });
    expect(invalid.isError).toBe(true);
    expect(invalid.content[0]).toMatchObject({ type: "text" });
    const failed = await client.callTool({ name: "fail", arguments: {} });
    expect(failed).toMatchObject({ isError: true, content: [{ type: "text", text: "the disk is full" }] });
  });

  it("gets -32602 with data.uri for an unknown resource", async () => {
    const { client } = await theirClient();
    const error = await client.readResource({ uri: "nothing://here" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe(-32602);
    expect((error as ProtocolError).data).toEqual({ uri: "nothing://here" });
  });

  it("validates our object and array structured output against the listed outputSchema", async () => {
    const { client } = await theirClient();
    await client.listTools();
    const added = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
    expect(added.structuredContent).toEqual({ sum: 5 });
    expect(added.content).toEqual([{ type: "text", text: '{"sum":5}' }]);
    const range = await client.callTool({ name: "range", arguments: { n: 3 } });
    expect(range.structuredContent).toEqual([0, 1, 2]);
    expect(range.content).toEqual([{ type: "text", text: "[0,1,2]" }]);
  });
});

describe("their client → our MCPServer: a request's stream", () => {
  it("delivers progress to onprogress and the logs it asked for (io.modelcontextprotocol/logLevel)", async () => {
    const { client, exchanges } = await theirClient();
    const logs: unknown[] = [];
    client.setNotificationHandler("notifications/message", (notification) => {
      logs.push(notification.params);
    });
    const progress: unknown[] = [];
    const result = await client.callTool(
      { name: "chatty", arguments: {}, _meta: { "io.modelcontextprotocol/logLevel": "info" } },
      { onprogress: (params) => progress.push(params) },
    );
    expect(result.content).toEqual([{ type: "text", text: "chatted" }]);
    expect(progress).toEqual([
      { progress: 1, total: 2, message: "half way" },
      { progress: 2, total: 2, message: "done" },
    ]);
    // "debug" is below the asked level: only the warning went out.
    expect(logs).toEqual([{ level: "warning", data: { disk: "92%" }, logger: "storage" }]);
    expect(posts(exchanges, "tools/call")[0]?.contentType).toMatch(/^text\/event-stream/);
  });

  it("sends no log when the request did not ask for any", async () => {
    const { client } = await theirClient();
    const logs: unknown[] = [];
    client.setNotificationHandler("notifications/message", (notification) => {
      logs.push(notification.params);
    });
    await client.callTool({ name: "chatty", arguments: {} });
    expect(logs).toEqual([]);
  });

  it("a call aborted by their client reaches our handler's signal", async () => {
    const { client, started, cancelled } = await theirClient();
    const controller = new AbortController();
    const call = client.callTool({ name: "wait", arguments: {} }, { signal: controller.signal });
    await started;
    controller.abort("user gave up");
    await expect(call).rejects.toThrow();
    await expect(cancelled).resolves.toBeDefined();
  });
});

/** Polls until `check` holds, bounded. */
async function eventually(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 3_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("their client → our MCPServer: listen", () => {
  it("hears a tools list change and the updates of a subscribed resource (and its sub-resources) only", async () => {
    const { client, mcp } = await theirClient({ record: false });
    const heard: string[] = [];
    client.setNotificationHandler("notifications/tools/list_changed", (notification) => {
      heard.push(`tools ${String(notification.params?._meta?.["io.modelcontextprotocol/subscriptionId"])}`);
    });
    client.setNotificationHandler("notifications/resources/updated", (notification) => {
      heard.push(`updated ${notification.params.uri}`);
    });
    const subscription = await client.listen({
      toolsListChanged: true,
      resourceSubscriptions: ["config://app"],
    });
    mcp.tool("late", { description: "Registered after the stream opened" }, () => "late");
    mcp.server.notifyResourceUpdated("other://x");
    mcp.server.notifyResourceUpdated("config://app");
    mcp.server.notifyResourceUpdated("config://app/sub");
    await eventually(() => heard.length >= 3, "three notifications");
    expect(heard).toEqual(["tools listen:0", "updated config://app", "updated config://app/sub"]);
    await subscription.close();
  });

  it("a closed stream gives its slot back: with maxSubscriptions 1, listen, close, listen again", async () => {
    const { client } = await theirClient({ record: false, maxSubscriptions: 1 });
    for (let round = 0; round < 3; round++) {
      const subscription = await client.listen({ toolsListChanged: true });
      await subscription.close();
    }
    const held = await client.listen({ toolsListChanged: true });
    // The one slot is taken: one more is refused (-32603) before any acknowledgement.
    const refused = await client.listen({ promptsListChanged: true }).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(ProtocolError);
    expect((refused as ProtocolError).code).toBe(-32603);
    await held.close();
  });
});
