/**
 * A custom `bindPrincipal` (MCPServer's `requestStateSecurity`) decides who may read a task and who
 * may reuse a 2025 session, as it decides whose request state is whose. Both used to bind to the
 * OAuth identity only, so two callers the function tells apart shared them when they had no token,
 * or one token between them.
 */
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/server/logger.js";
import { MCPServer } from "../../../src/server/mcp/mcp-server.js";
import { RequestStateSecurity } from "../../../src/server/state/policy.js";
import type { PrincipalBinder } from "../../../src/server/state/principal.js";
import { serverTasks } from "../../../src/server/tasks/index.js";
import type { HttpHandlerOptions } from "../../../src/transports/http/handler.js";
import { httpPlusSse } from "../../../src/transports/http/legacy-sse-server.js";
import { type HttpServerHandle, serveHttp } from "../../../src/transports/http/node.js";
import { TASKS_EXTENSION } from "../../../src/types/tasks.js";
import { meta } from "../../helpers.js";
import { initializeRequest } from "../../legacy/http-helpers.js";
import { post, read } from "./helpers.js";

const TASKS = { extensions: { [TASKS_EXTENSION]: {} } };
const NOT_FOUND_TASK = {
  jsonrpc: "2.0",
  id: 2,
  error: { code: -32602, message: "Failed to retrieve task: Task not found" },
};
const NOT_FOUND_SESSION = {
  status: 404,
  contentType: "application/json",
  body: {
    jsonrpc: "2.0",
    id: null,
    error: { code: -32600, message: "Not Found: unknown or expired session" },
  },
};

function rpc(method: string, params: Record<string, unknown>, id = 1) {
  return { jsonrpc: "2.0", id, method, params: { ...params, _meta: meta(TASKS) } };
}

/** [case, the binder, handler options, the headers that make a request Alice's or Bob's] */
const SETUPS: [string, PrincipalBinder, HttpHandlerOptions, (user: string) => Record<string, string>][] = [
  ["without OAuth", (ctx) => ctx.http?.header("x-user") ?? undefined, {}, (user) => ({ "x-user": user })],
  [
    "under one OAuth identity",
    (ctx) => ctx.authInfo?.extra?.user as string | undefined,
    {
      // One client and subject for everyone: the OAuth identity cannot tell the callers apart.
      verifyToken: (request) => ({
        token: "shared",
        clientId: "app",
        subject: "svc",
        scopes: [],
        extra: { user: request.headers.get("x-user") },
      }),
    },
    (user) => ({ "x-user": user, authorization: "Bearer shared" }),
  ],
];

let handle: HttpServerHandle | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

async function start(bindPrincipal: PrincipalBinder, options: HttpHandlerOptions) {
  const mcp = new MCPServer("principals", {
    logger: silentLogger,
    tasks: serverTasks({ immediateResultMs: 0 }),
    requestStateSecurity: new RequestStateSecurity({ keys: ["k".repeat(32)] }, { bindPrincipal }),
  });
  mcp.tool("forever", { task: "optional" }, () => new Promise(() => {}));
  mcp.tool("era", {}, (_args, ctx) => ctx.protocolVersion);
  handle = await serveHttp(mcp, { ...options, drainTimeoutMs: 0, legacy: { sse: httpPlusSse } });
  return handle.url;
}

describe.each(SETUPS)("a custom bindPrincipal %s", (_name, bindPrincipal, options, as) => {
  it("keeps each caller's tasks its own: another gets -32602 Task not found", async () => {
    const url = await start(bindPrincipal, options);
    const created = await read(
      await post(url, rpc("tools/call", { name: "forever", arguments: {} }), as("alice")),
    );
    expect(created.status).toBe(200);
    const taskId = (created.body as { result: { taskId: string } }).result.taskId;
    const get = (user: string, method = "tasks/get") =>
      post(url, rpc(method, { taskId }, 2), { ...as(user), "mcp-name": taskId }).then(read);
    expect(await get("alice")).toMatchObject({
      status: 200,
      body: { result: { taskId, status: "working" } },
    });
    for (const [user, method] of [
      ["bob", "tasks/get"],
      ["bob", "tasks/cancel"],
      ["", "tasks/get"],
    ] as const) {
      expect(await get(user, method)).toEqual({
        status: 200,
        contentType: "application/json",
        body: NOT_FOUND_TASK,
      });
    }
    expect(await get("alice")).toMatchObject({ status: 200, body: { result: { status: "working" } } });
  });

  it("keeps each caller's 2025 session its own: another gets 404 on POST, GET and DELETE", async () => {
    const url = await start(bindPrincipal, options);
    const opened = await post(url, initializeRequest(), as("alice"));
    expect(opened.status).toBe(200);
    const session = {
      "mcp-session-id": opened.headers.get("mcp-session-id") ?? "",
      "mcp-protocol-version": "2025-11-25",
    };
    const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "era", arguments: {} } };
    for (const user of ["bob", ""]) {
      const headers = { ...as(user), ...session };
      expect(await read(await post(url, call, headers))).toEqual(NOT_FOUND_SESSION);
      const stream = await fetch(url, { headers: { ...headers, accept: "text/event-stream" } });
      expect(await read(stream)).toEqual(NOT_FOUND_SESSION);
      expect(await read(await fetch(url, { method: "DELETE", headers }))).toEqual(NOT_FOUND_SESSION);
    }
    expect(await read(await post(url, call, { ...as("alice"), ...session }))).toEqual({
      status: 200,
      contentType: "application/json",
      body: { jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "2025-11-25" }] } },
    });
  });

  it("keeps each caller's HTTP+SSE stream its own: another's POST there gets 404", async () => {
    const url = await start(bindPrincipal, options);
    const controller = new AbortController();
    const stream = await fetch(url, {
      headers: { ...as("alice"), accept: "text/event-stream" },
      signal: controller.signal,
    });
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    let head = "";
    while (!head.includes("\n\n")) head += new TextDecoder().decode((await reader.read()).value);
    const endpoint = new URL(/data: (\?sessionId=\S+)/.exec(head)?.[1] ?? "", url);
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    try {
      for (const user of ["bob", ""]) {
        expect(await read(await post(endpoint, ping, as(user)))).toEqual({
          status: 404,
          contentType: "application/json",
          body: {
            jsonrpc: "2.0",
            id: null,
            error: { code: -32600, message: "Not Found: unknown or closed session" },
          },
        });
      }
      expect((await post(endpoint, ping, as("alice"))).status).toBe(202);
    } finally {
      controller.abort();
    }
  });
});
