import { expect } from "vitest";
import { silentLogger } from "../../../src/server/logger.js";
import { sendProgress } from "../../../src/server/notify.js";
import { Server } from "../../../src/server/server.js";
import {
  type HttpServerHandle,
  type ServeHttpOptions,
  serveHttp,
} from "../../../src/transports/http/node.js";
import { TokenRejected } from "../../../src/transports/http/verifiers/jwt.js";
import { meta, V } from "../../helpers.js";

export const REGION_TOOL = {
  name: "route",
  inputSchema: {
    type: "object" as const,
    properties: {
      region: { type: "string", "x-mcp-header": "Region" },
      shards: { type: "integer", "x-mcp-header": "Shards" },
      dryRun: { type: "boolean", "x-mcp-header": "Dry-Run" },
      target: { type: "object", properties: { zone: { type: "string", "x-mcp-header": "Zone" } } },
    },
  },
};

/** What the slow tool saw: resolves when its `ctx.signal` fires. */
export interface SlowProbe {
  started: Promise<void>;
  aborted: Promise<void>;
}

/**
 * A small low-level server: `echo`, `progress` (three progress notifications, then a result),
 * `slow` (waits for its signal), `needs-sampling` (-32021 when sampling is undeclared), `route`
 * (x-mcp-header arguments), plus a prompt and a resource for `Mcp-Name`.
 */
export function makeServer() {
  let slowStarted!: () => void;
  let slowAborted!: () => void;
  const probe: SlowProbe = {
    started: new Promise<void>((resolve) => {
      slowStarted = resolve;
    }),
    aborted: new Promise<void>((resolve) => {
      slowAborted = resolve;
    }),
  };
  const server = new Server("http-test", {
    version: "1.0.0",
    logger: silentLogger,
    onListTools: () => ({ tools: [{ name: "echo", inputSchema: { type: "object" } }, REGION_TOOL] }),
    onCallTool: async (ctx, params) => {
      const args = params.arguments ?? {};
      switch (params.name) {
        case "progress":
          for (let step = 1; step <= 3; step++) {
            await sendProgress(ctx, step, 3, `step ${step}`);
            await new Promise((resolve) => setTimeout(resolve, Number(args.delayMs ?? 0)));
          }
          return { content: [{ type: "text", text: "progressed" }] };
        case "slow":
          slowStarted();
          await sendProgress(ctx, 0, 1);
          await new Promise<void>((resolve) => {
            if (ctx.signal.aborted) resolve();
            ctx.signal.addEventListener("abort", () => resolve(), { once: true });
          });
          slowAborted();
          return { content: [{ type: "text", text: "too late" }] };
        case "needs-sampling":
          return {
            resultType: "input_required",
            inputRequests: {
              q: { method: "sampling/createMessage", params: { messages: [], maxTokens: 5 } },
            },
          };
        default:
          return { content: [{ type: "text", text: `${params.name}:${JSON.stringify(args)}` }] };
      }
    },
    onGetPrompt: (_ctx, params) => ({
      messages: [{ role: "user", content: { type: "text", text: `prompt ${params.name}` } }],
    }),
    onReadResource: (_ctx, params) => ({ contents: [{ uri: params.uri, text: "body" }] }),
  });
  return { server, probe };
}

/** Starts `makeServer()` on 127.0.0.1:0. */
export async function startServer(options: ServeHttpOptions = {}): Promise<{
  url: URL;
  close: () => Promise<void>;
  node: HttpServerHandle["server"];
  server: Server;
  probe: SlowProbe;
}> {
  const { server, probe } = makeServer();
  const handle = await serveHttp(server, options);
  return { url: handle.url, close: handle.close, node: handle.server, server, probe };
}

/** A JSON-RPC request body with a valid envelope. */
export function rpc(method: string, params: Record<string, unknown> = {}, id: number | string = 1) {
  return { jsonrpc: "2.0", id, method, params: { ...params, _meta: meta() } };
}

/** The headers a conforming client sends for `body`. */
export function headersFor(body: {
  method: string;
  params?: Record<string, unknown>;
}): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": V,
    "mcp-method": body.method,
  };
  const params = body.params ?? {};
  if (body.method === "tools/call" || body.method === "prompts/get")
    headers["mcp-name"] = String(params.name);
  if (body.method === "resources/read") headers["mcp-name"] = String(params.uri);
  if (["tasks/get", "tasks/update", "tasks/cancel"].includes(body.method)) {
    headers["mcp-name"] = String(params.taskId);
  }
  return headers;
}

/** POSTs `body` (an object is serialized) with a conforming client's headers, overridden by `headers`. */
export async function post(
  url: URL,
  body: unknown,
  headers: Record<string, string | undefined> = {},
  init: RequestInit = {},
): Promise<Response> {
  const base =
    typeof body === "object" && body !== null && "method" in body
      ? headersFor(body as { method: string; params?: Record<string, unknown> })
      : { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const merged: Record<string, string> = {};
  for (const [key, value] of Object.entries({ ...base, ...lower(headers) })) {
    if (value !== undefined) merged[key] = value;
  }
  return fetch(url, {
    method: "POST",
    headers: merged,
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...init,
  });
}

function lower(headers: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/**
 * A `tools/call` that declares the Tasks extension (and form elicitation), sent by hand as another
 * process would: the JSON-RPC `result` (a task handle when the server made one).
 */
export async function callDeclaringTasks(
  url: URL | string,
  name: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const capabilities = { elicitation: { form: {} }, extensions: { "io.modelcontextprotocol/tasks": {} } };
  const body = rpc("tools/call", { name, arguments: args });
  body.params._meta = meta(capabilities);
  const answer = (await (await post(new URL(url), body)).json()) as { result: Record<string, unknown> };
  return answer.result;
}

/** Status, selected headers and parsed JSON body of a response. */
export async function read(response: Response) {
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    body: text === "" ? undefined : (JSON.parse(text) as unknown),
  };
}

export const SERVER_INFO = { "io.modelcontextprotocol/serverInfo": { name: "http-test", version: "1.0.0" } };

/** The message of the `TokenRejected` a token verifier's promise rejects with (fails otherwise). */
export async function tokenRefusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TokenRejected);
  return (error as TokenRejected).message;
}

/** The `initialize` a raw 2025 client transport opens its session with, under id 1. */
export const LEGACY_INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
} as const;

/** The JSON-RPC body of the endpoint's 401 for a missing or refused bearer token. */
export const UNAUTHORIZED_BODY = {
  jsonrpc: "2.0",
  id: null,
  error: { code: -32600, message: "Unauthorized: a valid bearer token is required" },
} as const;

/**
 * Reads an SSE response in the background: `events` fills with each event's JSON `data` as it
 * arrives, and `ended` settles when the body ends (or the reader is cancelled with `cancel`).
 */
export function readSseEvents(response: Response): {
  events: Record<string, unknown>[];
  ended: Promise<void>;
  cancel: () => Promise<void>;
} {
  const reader = response.body?.getReader();
  if (!reader) throw new Error("no body");
  const events: Record<string, unknown>[] = [];
  let text = "";
  const ended = (async () => {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      text += new TextDecoder().decode(chunk.value);
      const blocks = text.split("\n\n");
      text = blocks.pop() ?? "";
      for (const block of blocks) {
        const data = block.split("\n").find((line) => line.startsWith("data: "));
        if (data) events.push(JSON.parse(data.slice(6)) as Record<string, unknown>);
      }
    }
  })();
  // A stream the test never awaits may break when the server closes: no unhandled rejection.
  ended.catch(() => {});
  return { events, ended, cancel: () => reader.cancel() };
}
