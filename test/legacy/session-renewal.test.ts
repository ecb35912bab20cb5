/**
 * 2025-11-25 Streamable HTTP: when the server forgets a session (a restart, an idle timeout), a request
 * that carried it gets 404, and the client MUST open a new session with a new initialize. Ours does
 * it by itself and sends the request again in the new session. Real sockets, our dual-era server.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { HttpStatusError } from "../../src/transports/http/errors.js";
import { type HttpServerHandle, serveHttp } from "../../src/transports/http/node.js";
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
});
