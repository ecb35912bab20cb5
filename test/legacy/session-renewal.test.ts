/**
 * 2025-11-25 Streamable HTTP: when the server forgets a session (a restart, an idle timeout), a request
 * that carried it gets 404, and the client MUST open a new session with a new initialize. Ours does
 * it by itself and sends the request again in the new session. Real sockets, our dual-era server.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { silentLogger } from "../../src/server/logger.js";
import { MCPServer } from "../../src/server/mcp/mcp-server.js";
import { MAX_SUBSCRIBED_URI_LENGTH } from "../../src/server/subscriptions.js";
import { HttpStatusError } from "../../src/transports/http/errors.js";
import { closeHttpSessions, createHttpHandler } from "../../src/transports/http/handler.js";
import { type HttpServerHandle, serveHttp, toNodeListener } from "../../src/transports/http/node.js";
import { buildDualEraServer } from "../fixtures/legacy/dual-era.js";

interface Sent {
  method: string;
  rpc: string | undefined;
  id: unknown;
  session: string | null;
  status: number;
}

let handle: HttpServerHandle | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

/** The server restarts on the same port, with no memory of the sessions it had. */
async function restart(): Promise<void> {
  const port = Number(handle?.url.port);
  await handle?.close();
  handle = await serveHttp(buildDualEraServer(), { port });
  // A real restart outlasts the moment the client's kept-alive sockets take to see the old server
  // close them. Client and server share this process: without one turn of the event loop's I/O, the
  // next request could go out on such a socket and fail with "other side closed".
  await new Promise((resolve) => setTimeout(resolve, 20));
}

interface Posted {
  rpc: string | undefined;
  params: unknown;
  session: string | null;
  status: number;
}

/**
 * Every POST as the server received it, with what it answered; `order` notes when each went out
 * (`> method`) and when its answer came (`< method status`). `streamed` reframes the server's JSON
 * answers as a one-event SSE stream, as servers that stream every answer send them.
 */
function postsWithParams(streamed: boolean) {
  const posted: Posted[] = [];
  const order: string[] = [];
  const fetchImpl = async (input: URL | RequestInfo, init?: RequestInit) => {
    if (init?.method !== "POST" || typeof init.body !== "string") return fetch(input, init);
    const body = JSON.parse(init.body) as { method?: string; params?: unknown };
    order.push(`> ${body.method}`);
    let response = await fetch(input, init);
    const session = new Headers(init.headers).get("mcp-session-id");
    posted.push({ rpc: body.method, params: body.params, session, status: response.status });
    order.push(`< ${body.method} ${response.status}`);
    if (streamed && response.headers.get("content-type")?.startsWith("application/json")) {
      const headers = new Headers(response.headers);
      headers.set("content-type", "text/event-stream");
      const event = `event: message\ndata: ${await response.text()}\n\n`;
      response = new Response(event, { status: response.status, headers });
    }
    return response;
  };
  return { posted, order, fetch: fetchImpl as typeof fetch };
}

/** A server with logging, a subscribable resource and a tool that logs at two levels. */
function watchedServer(): MCPServer {
  // listChanged also advertises resources.subscribe.
  const mcp = new MCPServer("watched", { version: "1.0.0", logger: silentLogger, listChanged: true });
  mcp.resource("notes://watched", { mimeType: "text/plain" }, () => "v1");
  mcp.tool("touch", {}, async (_args, ctx) => {
    await ctx.debug("below the level");
    await ctx.info("touched");
    return "done";
  });
  return mcp;
}

/**
 * A fetch that records every exchange; `fail` may answer one instead of the server, and `hold`
 * may delay handing over the server's answer.
 */
function recording(
  fail?: (body: Record<string, unknown> | undefined) => Response | undefined,
  hold?: (body: Record<string, unknown> | undefined) => Promise<void>,
) {
  const sent: Sent[] = [];
  const fetchImpl = async (input: URL | RequestInfo, init?: RequestInit) => {
    const body =
      typeof init?.body === "string" ? (JSON.parse(init.body) as Record<string, unknown>) : undefined;
    const session = new Headers(init?.headers).get("mcp-session-id");
    const response = fail?.(body) ?? (await fetch(input, init));
    await hold?.(body);
    sent.push({
      method: init?.method ?? "GET",
      rpc: body?.method as string | undefined,
      id: body?.id,
      session,
      status: response.status,
    });
    return response;
  };
  return { sent, fetch: fetchImpl as typeof fetch };
}

async function connect(fetchImpl: typeof fetch) {
  handle = await serveHttp(buildDualEraServer(), { port: 0 });
  const client = await Client.connect(handle.url, {
    mode: "legacy",
    http: { fetch: fetchImpl },
    elicitation: () => ({ action: "accept", content: { region: "eu-west-1" } }),
  });
  return client;
}

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 5) {
    if (waited > 5_000) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const posts = (sent: Sent[]) => sent.filter((entry) => entry.method === "POST");

describe("a 2025 session the server forgot", () => {
  it("is reopened with the same initialize, and the request goes again in the new session", async () => {
    const wire = recording();
    const client = await connect(wire.fetch);
    const first = posts(wire.sent)[0];
    const oldSession = posts(wire.sent)[1]?.session;
    expect(first).toMatchObject({ rpc: "initialize", session: null, status: 200 });
    await restart();
    wire.sent.length = 0;

    const result = await client.callTool("provision", { name: "orders" });
    expect(result.content).toEqual([{ type: "text", text: "Provisioned orders in eu-west-1." }]);

    const [refused, reopen, initialized, again] = posts(wire.sent);
    expect(refused).toMatchObject({ rpc: "tools/call", session: oldSession, status: 404 });
    expect(reopen).toMatchObject({ rpc: "initialize", session: null, status: 200 });
    expect(String(reopen?.id)).toMatch(/^rt-reinit-\d+$/);
    expect(initialized?.rpc).toBe("notifications/initialized");
    expect(initialized?.session).toEqual(expect.any(String));
    expect(initialized?.session).not.toBe(oldSession);
    expect(again).toMatchObject({ rpc: "tools/call", session: initialized?.session, status: 200 });
    // The back-channel question of the call rode the new session too.
    expect(
      posts(wire.sent)
        .slice(4)
        .every((entry) => entry.session === initialized?.session),
    ).toBe(true);
    expect(client.serverInfo).toEqual({ name: "dual-era", version: "1.0.0" });
    // The session's GET stream (server messages unrelated to any request) is open again too.
    await until(() =>
      wire.sent.some((entry) => entry.method === "GET" && entry.session === initialized?.session),
    );
    await client.close();
  });

  it("a 404 that arrives after the session was reopened sends its request again without reopening", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = false;
    const wire = recording(undefined, async (body) => {
      // Hold back the answer to the first `era` call of the restarted server until the other
      // request has reopened the session.
      if (holding && body?.method === "tools/call" && (body.params as { name?: string }).name === "era") {
        holding = false;
        await held;
      }
    });
    const client = await connect(wire.fetch);
    await restart();
    holding = true;
    const late = client.callTool("era");
    await until(() => !holding);
    await client.listTools(); // meets the 404 and reopens the session
    release();
    await late;
    expect(posts(wire.sent).filter((entry) => entry.rpc === "initialize")).toHaveLength(2); // first + one reopen
    await client.close();
  });

  it("is reopened once for every request that met the 404 together", async () => {
    const wire = recording();
    const client = await connect(wire.fetch);
    await restart();
    wire.sent.length = 0;
    const eras = await Promise.all([client.callTool("era"), client.callTool("era"), client.listTools()]);
    expect(eras).toHaveLength(3);
    expect(posts(wire.sent).filter((entry) => entry.rpc === "initialize")).toHaveLength(1);
    expect(posts(wire.sent).filter((entry) => entry.status === 404).length).toBeGreaterThanOrEqual(1);
    await client.close();
  });

  it("fails the request with 404 when no new session can be opened", async () => {
    let reopening = false;
    const wire = recording((body) => {
      if (reopening && body?.method === "initialize") return new Response("down", { status: 503 });
      return undefined;
    });
    const client = await connect(wire.fetch);
    await restart();
    reopening = true;
    const error = await client.callTool("era").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error).toMatchObject({
      status: 404,
      message: "HTTP 404: the session expired and a new one could not be opened (HTTP 503)",
    });
    await client.close();
  });

  it("a request sent while the session is being reopened waits for it, and goes in the new session", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reopening = false;
    const wire = recording(undefined, async (body) => {
      // Hold back the new session's initialize answer while another request goes out.
      if (body?.method === "initialize" && String(body.id).startsWith("rt-reinit-")) {
        reopening = true;
        await held;
      }
    });
    const client = await connect(wire.fetch);
    await restart();
    wire.sent.length = 0;
    const first = client.callTool("era");
    await until(() => reopening);
    const during = client.listTools();
    during.catch(() => {}); // awaited below
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await first;
    expect((await during).tools.length).toBeGreaterThan(0);
    const [reopen, initialized] = posts(wire.sent).filter(
      (entry) => entry.rpc === "initialize" || entry.rpc === "notifications/initialized",
    );
    expect(reopen).toMatchObject({ rpc: "initialize", session: null, status: 200 });
    const list = posts(wire.sent).filter((entry) => entry.rpc === "tools/list");
    expect(list).toEqual([
      {
        method: "POST",
        rpc: "tools/list",
        id: expect.anything(),
        session: initialized?.session,
        status: 200,
      },
    ]);
    await client.close();
  });

  it.each([
    ["JSON", false],
    ["SSE", true],
  ])(
    "tells the new session the log level and the resource subscriptions before the request goes again (%s answers)",
    async (_framing, streamed) => {
      const mcp = watchedServer();
      // Mounted by hand so that the server can forget its sessions (as after an idle timeout)
      // while the client's connections stay open.
      const handler = createHttpHandler(mcp, { localhostOnly: true });
      const server = createServer(toNodeListener(handler));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
      const wire = postsWithParams(streamed);
      const logs: unknown[] = [];
      const client = await Client.connect(url, {
        mode: "legacy",
        logLevel: "info",
        onLog: (params) => logs.push(params),
        http: { fetch: wire.fetch },
      });
      try {
        const updates: unknown[] = [];
        const watching = client.listen({ resourceSubscriptions: ["notes://watched"] }, (n) =>
          updates.push(n),
        );
        const dropped = client.listen({ resourceSubscriptions: ["notes://dropped"] }, () => {});
        // The server refuses a URI this long: no subscription to repeat.
        const tooLong = `notes://${"x".repeat(MAX_SUBSCRIBED_URI_LENGTH)}`;
        const refused = client.listen({ resourceSubscriptions: [tooLong] }, () => {});
        await expect(refused.acknowledged).rejects.toMatchObject({ code: -32602 });
        await Promise.all([watching.acknowledged, dropped.acknowledged]);
        dropped.close();
        await until(() => wire.posted.some((entry) => entry.rpc === "resources/unsubscribe"));
        closeHttpSessions(handler);
        wire.posted.length = 0;
        wire.order.length = 0;

        expect((await client.callTool("touch")).content).toEqual([{ type: "text", text: "done" }]);
        const renewed = wire.posted[2]?.session;
        expect(renewed).toEqual(expect.any(String));
        const seen = wire.posted.map(({ rpc, params, session, status }) => ({
          rpc,
          params: rpc === "tools/call" || rpc === "initialize" ? undefined : params,
          session: session === renewed ? "new" : session === null ? null : "old",
          status,
        }));
        // The server sees the old session's level and live subscription (not the closed one) in
        // the new session, answered, before the request that met the 404 goes again.
        expect(seen.slice(0, 3)).toEqual([
          { rpc: "tools/call", params: undefined, session: "old", status: 404 },
          { rpc: "initialize", params: undefined, session: null, status: 200 },
          { rpc: "notifications/initialized", params: undefined, session: "new", status: 202 },
        ]);
        expect(seen.slice(3, 5)).toEqual(
          expect.arrayContaining([
            { rpc: "logging/setLevel", params: { level: "info", _meta: {} }, session: "new", status: 200 },
            {
              rpc: "resources/subscribe",
              params: { uri: "notes://watched", _meta: {} },
              session: "new",
              status: 200,
            },
          ]),
        );
        expect(seen.slice(5)).toEqual([
          { rpc: "tools/call", params: undefined, session: "new", status: 200 },
        ]);
        // Answered before the request goes again, not merely sent.
        const retried = wire.order.lastIndexOf("> tools/call");
        expect(wire.order.slice(retried - 2, retried).sort()).toEqual([
          "< logging/setLevel 200",
          "< resources/subscribe 200",
        ]);
        // So the retried call's logs arrive at the user's level, and updates keep coming.
        expect(logs).toEqual([{ level: "info", data: "touched" }]);
        mcp.server.notifyResourceUpdated("notes://watched");
        await until(() => updates.length > 0);
        expect(updates).toEqual([
          { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "notes://watched" } },
        ]);
      } finally {
        await client.close();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await closed;
      }
    },
  );
});
