import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClientSession } from "../../../src/client/session.js";
import { ConnectionClosedError, RequestAbortedError } from "../../../src/shared/errors.js";
import { StreamableHttpClientTransport } from "../../../src/transports/http/client.js";
import { HttpStatusError, HttpTransportError } from "../../../src/transports/http/errors.js";
import { createHttpHandler } from "../../../src/transports/http/handler.js";
import { paramHeadersFromTools } from "../../../src/transports/http/x-mcp-header.js";
import { McpError, type ProgressNotificationParams } from "../../../src/types/index.js";
import { makeServer, REGION_TOOL, startServer } from "./helpers.js";

interface Sent {
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** A fetch that records what goes out, then forwards to the real one. */
function recordingFetch(sent: Sent[], inner: typeof fetch = fetch) {
  return async (url: URL, init: RequestInit) => {
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, key) => {
      headers[key] = value;
    });
    sent.push({
      headers,
      body: JSON.parse(String(init.body)) as Record<string, unknown>,
    });
    return inner(url, init);
  };
}

let endpoint: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  endpoint = await startServer({
    toolInputSchema: (name) => (name === "route" ? REGION_TOOL.inputSchema : undefined),
  });
});
afterAll(() => endpoint.close());

describe("StreamableHttpClientTransport with ClientSession", () => {
  it("sends the MCP headers with every request", async () => {
    const sent: Sent[] = [];
    const transport = new StreamableHttpClientTransport(endpoint.url, {
      fetch: recordingFetch(sent),
      headers: { "x-tenant": "acme", accept: "text/html" },
      authProvider: async () => "tok-1",
    });
    const session = await ClientSession.connect(transport);
    const discovered = await session.discover();
    expect(discovered.supportedVersions).toEqual(["2026-07-28"]);
    await session.callTool("café ☕", { a: 1 });
    await session.readResource("file:///plain.txt");
    await session.getPrompt("=?base64?looks-encoded?=");
    expect(sent.map((s) => s.headers)).toEqual([
      {
        accept: "application/json, text/event-stream",
        authorization: "Bearer tok-1",
        "content-type": "application/json",
        "mcp-method": "server/discover",
        "mcp-protocol-version": "2026-07-28",
        "x-tenant": "acme",
      },
      expect.objectContaining({ "mcp-method": "tools/call", "mcp-name": "=?base64?Y2Fmw6kg4piV?=" }),
      expect.objectContaining({ "mcp-method": "resources/read", "mcp-name": "file:///plain.txt" }),
      expect.objectContaining({
        "mcp-method": "prompts/get",
        "mcp-name": `=?base64?${Buffer.from("=?base64?looks-encoded?=").toString("base64")}?=`,
      }),
    ]);
    await session.close();
  });

  it("fails a request whose authProvider throws or rejects, before anything is sent, without its error text, on both eras", async () => {
    const providers = [
      () => {
        throw new Error("vault says s3cret-1 is revoked");
      },
      async () => {
        throw new Error("vault says s3cret-2 is revoked");
      },
    ];
    for (const authProvider of providers) {
      const sent: Sent[] = [];
      const transport = new StreamableHttpClientTransport(endpoint.url, {
        fetch: recordingFetch(sent),
        authProvider,
      });
      const failure = await transport.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(HttpTransportError);
      expect((failure as Error).message).toBe("The authProvider failed to supply a token");
      expect(sent).toEqual([]);
      // The same on the 2025 path (an `initialize` without the envelope switches the transport to it).
      const legacyFailure = await transport
        .send({
          jsonrpc: "2.0",
          id: 2,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "t", version: "1" },
          },
        })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(legacyFailure).toBeInstanceOf(HttpTransportError);
      expect((legacyFailure as Error).message).toBe("The authProvider failed to supply a token");
      expect(sent).toEqual([]);
      await transport.close();
    }
  });

  it("routes progress from the SSE stream to the call", async () => {
    const session = await ClientSession.connect(new StreamableHttpClientTransport(endpoint.url));
    const seen: ProgressNotificationParams[] = [];
    const result = await session.callTool("progress", {}, { onProgress: (p) => seen.push(p) });
    expect(result.content).toEqual([{ type: "text", text: "progressed" }]);
    expect(seen.map((p) => [p.progress, p.total, p.message])).toEqual([
      [1, 3, "step 1"],
      [2, 3, "step 2"],
      [3, 3, "step 3"],
    ]);
    await session.close();
  });

  it("cancels by closing the stream: the handler's signal fires and nothing else is POSTed", async () => {
    const fresh = await startServer();
    const sent: Sent[] = [];
    const session = await ClientSession.connect(
      new StreamableHttpClientTransport(fresh.url, { fetch: recordingFetch(sent) }),
    );
    try {
      const controller = new AbortController();
      const call = session.callTool("slow", {}, { signal: controller.signal, onProgress: () => {} });
      await fresh.probe.started;
      controller.abort();
      await expect(call).rejects.toBeInstanceOf(RequestAbortedError);
      await fresh.probe.aborted;
      expect(sent.map((s) => s.body.method)).toEqual(["tools/call"]);
    } finally {
      await session.close();
      await fresh.close();
    }
  });

  it("close() aborts what is in flight", async () => {
    const fresh = await startServer();
    const session = await ClientSession.connect(new StreamableHttpClientTransport(fresh.url));
    try {
      const call = session.callTool("slow", {});
      await fresh.probe.started;
      await session.close();
      await expect(call).rejects.toBeInstanceOf(ConnectionClosedError);
      await fresh.probe.aborted;
    } finally {
      await fresh.close();
    }
  });

  it("delivers JSON-RPC errors whatever their HTTP status", async () => {
    const session = await ClientSession.connect(new StreamableHttpClientTransport(endpoint.url));
    const unknown = await session.request("tools/frobnicate").catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(McpError);
    expect(unknown).toMatchObject({ code: -32601, message: "Method not found: tools/frobnicate" });
    session.protocolVersion = "v999.0.0";
    await expect(session.discover()).rejects.toMatchObject({ code: -32022, data: { requested: "v999.0.0" } });
    await session.close();
  });

  it("sends no Mcp-Param-* for a string with a lone surrogate, and the server takes the call", async () => {
    const transport = new StreamableHttpClientTransport(endpoint.url);
    const session = await ClientSession.connect(transport);
    const { tools } = await session.listTools();
    transport.paramHeaders = paramHeadersFromTools(tools);
    const args = { region: "eu\ud800west", shards: 3, dryRun: true, target: { zone: "b" } };
    const result = await session.callTool("route", args);
    expect(result.content[0]).toMatchObject({ text: `route:${JSON.stringify(args)}` });
    await session.close();
  });

  it("mirrors x-mcp-header arguments once told the tools", async () => {
    const transport = new StreamableHttpClientTransport(endpoint.url);
    const session = await ClientSession.connect(transport);
    const args = { region: "eu-wést", shards: 3, dryRun: true, target: { zone: "b" } };
    await expect(session.callTool("route", args)).rejects.toMatchObject({
      code: -32020,
      message: "Missing required header Mcp-Param-Region",
    });
    const { tools } = await session.listTools();
    const warnings: string[] = [];
    const bad = {
      name: "bad",
      inputSchema: { type: "object" as const, properties: { n: { type: "number", "x-mcp-header": "N" } } },
    };
    expect(transport.filterListedTools([...tools, bad], (w) => warnings.push(w)).map((t) => t.name)).toEqual([
      "echo",
      "route",
    ]);
    expect(warnings).toEqual([
      'Dropping tool "bad": x-mcp-header on property n needs type string, integer or boolean',
    ]);
    const result = await session.callTool("route", args);
    expect(result.content[0]).toMatchObject({ text: `route:${JSON.stringify(args)}` });
    transport.paramHeaders = paramHeadersFromTools([]);
    await expect(session.callTool("route", args)).rejects.toMatchObject({ code: -32020 });
    transport.paramHeaders = paramHeadersFromTools(tools);
    await expect(session.callTool("route", { ...args, region: "us" })).resolves.toMatchObject({
      resultType: "complete",
    });
    await session.close();
  });

  it("reads a JSON answer that arrives in many small chunks, split inside multi-byte characters", async () => {
    const handler = createHttpHandler(makeServer().server);
    const rechunked = async (url: URL | string, init?: RequestInit) => {
      const response = await handler(new Request(url, init));
      const bytes = new Uint8Array(await response.arrayBuffer());
      let offset = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (offset >= bytes.length) return controller.close();
          controller.enqueue(bytes.slice(offset, offset + 3));
          offset += 3;
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const transport = new StreamableHttpClientTransport("http://in-process/mcp", { fetch: rechunked });
    const session = await ClientSession.connect(transport);
    const tools = await session.listTools();
    expect(tools.tools.map((tool) => tool.name)).toContain("echo");
    const text = "é€😀".repeat(50);
    const result = await session.callTool("echo", { text });
    expect(result.content[0]).toMatchObject({ type: "text", text: `echo:${JSON.stringify({ text })}` });
    await session.close();
  });

  it("works in-process through a custom fetch", async () => {
    const handler = createHttpHandler(makeServer().server);
    const transport = new StreamableHttpClientTransport("http://in-process/mcp", {
      fetch: (url, init) => handler(new Request(url, init)),
    });
    const session = await ClientSession.connect(transport);
    const seen: number[] = [];
    await session.callTool("progress", {}, { onProgress: (p) => seen.push(p.progress) });
    expect(seen).toEqual([1, 2, 3]);
    await session.connection.notify("notifications/cancelled", { requestId: 1 });
    await session.close();
  });
});

/** A fetch that answers from a script instead of a server. */
function scripted(
  answers: ((body: Record<string, unknown>) => Response)[],
  sent: Record<string, unknown>[] = [],
) {
  return async (_url: URL, init: RequestInit) => {
    const body = JSON.parse(String(init.body)) as Record<string, unknown>;
    sent.push(body);
    const next = answers.shift();
    if (!next) throw new TypeError("no more scripted answers");
    return next(body);
  };
}

const sse = (...events: string[]) =>
  new Response(events.join(""), { status: 200, headers: { "content-type": "text/event-stream" } });
const listResult = (id: unknown) =>
  `data: ${JSON.stringify({ jsonrpc: "2.0", id, result: { tools: [], resultType: "complete", ttlMs: 0, cacheScope: "private" } })}\n\n`;
const progressEvent = `data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "x", progress: 1 } })}\n\n`;

describe("failures", () => {
  it("re-issues a read-only request once, with a new id, when its stream drops", async () => {
    const sent: Record<string, unknown>[] = [];
    const transport = new StreamableHttpClientTransport("http://x/mcp", {
      fetch: scripted([() => sse(progressEvent), (body) => sse(listResult(body.id))], sent),
    });
    const session = await ClientSession.connect(transport);
    expect(await session.listTools()).toMatchObject({ tools: [] });
    expect(sent).toHaveLength(2);
    expect(sent[1]?.id).not.toBe(sent[0]?.id);
    expect(sent[1]?.id).toMatch(/^rt-retry-\d+$/);
  });

  it("never re-issues tools/call: a dropped stream is a local error", async () => {
    const sent: Record<string, unknown>[] = [];
    const transport = new StreamableHttpClientTransport("http://x/mcp", {
      fetch: scripted([() => sse(progressEvent)], sent),
    });
    const session = await ClientSession.connect(transport);
    const error = await session.callTool("deploy", {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpTransportError);
    expect(error).not.toBeInstanceOf(McpError);
    expect((error as Error).message).toBe("tools/call: the event stream ended before the response");
    expect(sent).toHaveLength(1);
  });

  it("gives up after one retry", async () => {
    const transport = new StreamableHttpClientTransport("http://x/mcp", {
      fetch: scripted([() => sse(), () => sse(": keep-alive\n\n")]),
    });
    const session = await ClientSession.connect(transport);
    await expect(session.listTools()).rejects.toThrow(
      "tools/list: the event stream ended before the response",
    );
  });

  it("reports 401 with its challenge, and non-MCP error bodies as HttpStatusError", async () => {
    const transport = new StreamableHttpClientTransport("http://x/mcp", {
      fetch: scripted([
        () =>
          new Response(
            JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Unauthorized" } }),
            {
              status: 401,
              headers: {
                "content-type": "application/json",
                "www-authenticate": 'Bearer error="invalid_token"',
              },
            },
          ),
        () => new Response("<h1>Bad gateway</h1>", { status: 502, headers: { "content-type": "text/html" } }),
        () =>
          new Response('{"error":"nope"}', { status: 500, headers: { "content-type": "application/json" } }),
      ]),
    });
    const session = await ClientSession.connect(transport);
    const unauthorized = await session.listTools().catch((e: unknown) => e);
    expect(unauthorized).toBeInstanceOf(HttpStatusError);
    expect(unauthorized).toMatchObject({
      status: 401,
      wwwAuthenticate: 'Bearer error="invalid_token"',
      message: "HTTP 401 for tools/list: Unauthorized",
    });
    await expect(session.listTools()).rejects.toMatchObject({ name: "HttpStatusError", status: 502 });
    await expect(session.listTools()).rejects.toMatchObject({ name: "HttpStatusError", status: 500 });
  });

  it("delivers a JSON-RPC error that carries id null as the POST's answer", async () => {
    const transport = new StreamableHttpClientTransport("http://x/mcp", {
      fetch: scripted([
        () =>
          new Response(
            JSON.stringify({
              jsonrpc: "2.0",
              id: null,
              error: { code: -32600, message: "Payload Too Large" },
            }),
            {
              status: 413,
              headers: { "content-type": "application/json" },
            },
          ),
      ]),
    });
    const session = await ClientSession.connect(transport);
    await expect(session.listTools()).rejects.toMatchObject({ name: "McpError", code: -32600 });
  });

  it("ignores stray SSE events and reports them through onerror", async () => {
    const errors: Error[] = [];
    const transport = new StreamableHttpClientTransport("http://x/mcp", {
      fetch: scripted([
        (body) =>
          sse(
            "data: not json\n\n",
            `data: ${JSON.stringify({ jsonrpc: "2.0", id: 99, method: "elicitation/create", params: {} })}\n\n`,
            listResult(body.id),
          ),
      ]),
    });
    transport.onerror = (error) => errors.push(error);
    const session = await ClientSession.connect(transport);
    transport.onerror = (error) => errors.push(error);
    await session.listTools();
    expect(errors.map((e) => e.message)).toEqual([
      "Ignored an SSE event that is not JSON",
      "Ignored an SSE event that is neither a notification nor our response",
    ]);
  });

  it("refuses to send after close", async () => {
    const transport = new StreamableHttpClientTransport("http://x/mcp");
    await transport.close();
    await expect(transport.send({ jsonrpc: "2.0", id: 1, method: "tools/list" })).rejects.toThrow(
      "The HTTP transport is closed",
    );
  });
});
