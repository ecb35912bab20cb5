// Spec §2.5 rule 7: a server must not send a sampling request whose `includeContext` is other than
// "none" unless the client declared `sampling.context` (src/server/capability-gate.ts). Checked on
// the raw wire, in memory and over a real HTTP socket (where -32021 travels with 400), for a
// low-level handler, an MCPServer tool returning an InputRequiredResult, and a `sample(...)` resolver.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/server/logger.js";
import { inputRequired, MCPServer, resolver, sample, samplingRequest } from "../../src/server/mcp/index.js";
import { Server } from "../../src/server/server.js";
import type { Dispatcher } from "../../src/shared/dispatch.js";
import { type HttpServerHandle, serveHttp } from "../../src/transports/http/node.js";
import { MemoryTransport } from "../../src/transports/memory.js";
import type { ClientCapabilities, JSONRPCMessage } from "../../src/types/index.js";
import { meta, V } from "../helpers.js";

type IncludeContext = "none" | "thisServer" | "allServers";

const LOW_LEVEL_INFO = { "io.modelcontextprotocol/serverInfo": { name: "gate", version: "1.0.0" } };
const MCP_INFO = { "io.modelcontextprotocol/serverInfo": { name: "gate-mcp", version: "1.0.0" } };

/** The embedded sampling request the low-level handler returns for tool `ctx-<includeContext>`. */
function samplingWith(includeContext: IncludeContext | undefined) {
  const params: Record<string, unknown> = {
    messages: [{ role: "user", content: { type: "text", text: "Summarize the open files" } }],
    maxTokens: 64,
  };
  if (includeContext !== undefined) params.includeContext = includeContext;
  return { method: "sampling/createMessage", params };
}

function includeContextOf(tool: string): IncludeContext | undefined {
  const value = tool.replace(/^ctx-/, "");
  return value === "omitted" ? undefined : (value as IncludeContext);
}

function lowLevelServer(): Server {
  return new Server("gate", {
    version: "1.0.0",
    logger: silentLogger,
    onCallTool: (_ctx, params) => ({
      resultType: "input_required",
      inputRequests: { q: samplingWith(includeContextOf(params.name)) as never },
    }),
  });
}

/** The same request kinds from an MCPServer: a tool returning the result itself, and a resolver. */
function mcpServer(): MCPServer {
  const mcp = new MCPServer("gate-mcp", { version: "1.0.0", logger: silentLogger });
  for (const value of ["none", "thisServer", "allServers", "omitted"] as const) {
    const includeContext = value === "omitted" ? undefined : value;
    mcp.tool(`ctx-${value}`, {}, () =>
      inputRequired({
        inputRequests: {
          q: samplingRequest({
            prompt: "Summarize the open files",
            maxTokens: 64,
            ...(includeContext ? { includeContext } : {}),
          }),
        },
      }),
    );
    const summary = resolver(`summary-${value}`, () =>
      sample({
        prompt: "Summarize the open files",
        maxTokens: 64,
        ...(includeContext ? { includeContext } : {}),
      }),
    );
    mcp.tool(`resolve-${value}`, { resolve: { summary } }, () => "never reached in this test");
  }
  return mcp;
}

let nextId = 100;

function callBody(tool: string, capabilities: ClientCapabilities) {
  return {
    jsonrpc: "2.0" as const,
    id: nextId++,
    method: "tools/call",
    params: { name: tool, _meta: meta(capabilities) },
  };
}

interface Exchange {
  /** The HTTP status (undefined in memory). */
  status: number | undefined;
  /** Every message the server put on the wire for this request, as parsed JSON. */
  messages: unknown[];
}

/** Sends one raw JSON-RPC request through an in-memory wire that serializes every message. */
async function overMemory(target: Dispatcher, body: ReturnType<typeof callBody>): Promise<Exchange> {
  const messages: unknown[] = [];
  const transport = new MemoryTransport(target, {
    onWire: (direction, message) => {
      if (direction === "server→client") messages.push(message);
    },
  });
  const answered = new Promise<void>((resolve) => {
    transport.onmessage = (message: JSONRPCMessage) => {
      if ((message as { id?: unknown }).id === body.id) resolve();
    };
  });
  await transport.send(body);
  await answered;
  await transport.close();
  return { status: undefined, messages };
}

/** POSTs one raw JSON-RPC request with every header a conforming 2026-07-28 client sends. */
async function overHttp(url: URL, body: ReturnType<typeof callBody>): Promise<Exchange> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": V,
      "mcp-method": body.method,
      "mcp-name": body.params.name,
    },
    body: JSON.stringify(body),
  });
  expect(res.headers.get("content-type")).toBe("application/json");
  return { status: res.status, messages: [JSON.parse(await res.text())] };
}

const refusal = (id: number, message: string, requiredCapabilities: ClientCapabilities) => ({
  jsonrpc: "2.0",
  id,
  error: { code: -32021, message, data: { requiredCapabilities } },
});

const CONTEXT_REFUSAL =
  "Client did not declare the sampling.context capability required by input request 'q'";

let lowLevelHttp: HttpServerHandle;
let mcpHttp: HttpServerHandle;
const lowLevel = lowLevelServer();
const mcp = mcpServer();
beforeAll(async () => {
  lowLevelHttp = await serveHttp(lowLevel, { host: "127.0.0.1", port: 0 });
  mcpHttp = await serveHttp(mcp, { host: "127.0.0.1", port: 0 });
});
afterAll(async () => {
  await lowLevelHttp.close();
  await mcpHttp.close();
});

const transports: [
  string,
  (server: "low" | "mcp", body: ReturnType<typeof callBody>) => Promise<Exchange>,
][] = [
  ["in memory", (server, body) => overMemory(server === "low" ? lowLevel : mcp, body)],
  ["over HTTP", (server, body) => overHttp(server === "low" ? lowLevelHttp.url : mcpHttp.url, body)],
];

describe.each(transports)("includeContext gating %s", (label, exchange) => {
  const refusedStatus = label === "over HTTP" ? 400 : undefined;
  const passedStatus = label === "over HTTP" ? 200 : undefined;

  /** The one message of a request whose sampling question goes out. */
  const asked = (id: unknown, includeContext: IncludeContext | undefined, serverInfo: unknown) => ({
    jsonrpc: "2.0",
    id,
    result: {
      resultType: "input_required",
      inputRequests: { q: samplingWith(includeContext) },
      _meta: serverInfo,
    },
  });

  describe.each([
    ["a low-level handler", "low" as const, LOW_LEVEL_INFO],
    ["an MCPServer tool returning InputRequiredResult", "mcp" as const, MCP_INFO],
  ])("from %s", (_source, server, serverInfo) => {
    it.each(["thisServer", "allServers"] as const)(
      'refuses includeContext "%s" to a client declaring only sampling: {} with -32021 and sends nothing',
      async (includeContext) => {
        const body = callBody(`ctx-${includeContext}`, { sampling: {} });
        const { status, messages } = await exchange(server, body);
        expect(status).toBe(refusedStatus);
        // The whole wire: the error is the only message; no input request leaves.
        expect(messages).toEqual([refusal(body.id, CONTEXT_REFUSAL, { sampling: { context: {} } })]);
      },
    );

    it.each([
      ["thisServer", { sampling: { context: {} } }],
      ["allServers", { sampling: { context: {} } }],
      ["thisServer", { sampling: { context: {}, tools: {} } }],
    ] as const)(
      'sends the includeContext "%s" request once the client declares %j',
      async (includeContext, capabilities) => {
        const body = callBody(`ctx-${includeContext}`, capabilities);
        const { status, messages } = await exchange(server, body);
        expect(status).toBe(passedStatus);
        expect(messages).toEqual([asked(body.id, includeContext, serverInfo)]);
      },
    );

    it.each([
      ["none", "none" as const],
      ["omitted", undefined],
    ])('needs only sampling: {} when includeContext is "%s"', async (tool, includeContext) => {
      const body = callBody(`ctx-${tool}`, { sampling: {} });
      const { status, messages } = await exchange(server, body);
      expect(status).toBe(passedStatus);
      expect(messages).toEqual([asked(body.id, includeContext, serverInfo)]);
    });

    it('still refuses includeContext "none" to a client without sampling, asking for sampling only', async () => {
      const body = callBody("ctx-none", { elicitation: {} });
      const { status, messages } = await exchange(server, body);
      expect(status).toBe(refusedStatus);
      expect(messages).toEqual([
        refusal(body.id, "Client did not declare the sampling capability required by input request 'q'", {
          sampling: {},
        }),
      ]);
    });

    it('asks a client without sampling for sampling with context at once when includeContext is "thisServer"', async () => {
      const body = callBody("ctx-thisServer", { elicitation: {} });
      const { status, messages } = await exchange(server, body);
      expect(status).toBe(refusedStatus);
      expect(messages).toEqual([
        refusal(body.id, "Client did not declare the sampling capability required by input request 'q'", {
          sampling: { context: {} },
        }),
      ]);
    });
  });

  describe("through a sample(...) resolver", () => {
    it.each(["thisServer", "allServers"] as const)(
      'refuses includeContext "%s" without sampling.context, naming the resolver',
      async (includeContext) => {
        const body = callBody(`resolve-${includeContext}`, { sampling: {} });
        const { status, messages } = await exchange("mcp", body);
        expect(status).toBe(refusedStatus);
        expect(messages).toEqual([
          refusal(
            body.id,
            `Client did not declare the sampling.context capability required by resolver 'summary-${includeContext}'`,
            { sampling: { context: {} } },
          ),
        ]);
      },
    );

    it.each([
      ["thisServer", { sampling: { context: {} } }],
      ["allServers", { sampling: { context: {} } }],
      ["none", { sampling: {} }],
      ["omitted", { sampling: {} }],
    ] as const)('asks for includeContext "%s" when the client declared %j', async (value, capabilities) => {
      const body = callBody(`resolve-${value}`, capabilities);
      const { status, messages } = await exchange("mcp", body);
      expect(status).toBe(passedStatus);
      expect(messages).toHaveLength(1);
      const response = messages[0] as { id: unknown; result: Record<string, unknown> };
      expect(response.id).toBe(body.id);
      // requestState is sealed (opaque, fresh every time): only its presence is checked.
      expect(typeof response.result.requestState).toBe("string");
      expect({ ...response.result, requestState: "<sealed>" }).toEqual({
        resultType: "input_required",
        inputRequests: { [`summary-${value}`]: samplingWith(includeContextOf(`ctx-${value}`)) },
        requestState: "<sealed>",
        _meta: MCP_INFO,
      });
    });
  });
});
