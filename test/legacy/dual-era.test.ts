/**
 * One resolver tool, one server instance, two generations of clients at the same time — in
 * memory, over HTTP and over stdio — answered by one set of callbacks. And the rule that keeps the
 * modern path clean: a modern request never makes the server send a request.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ClientRequestContext } from "../../src/client/callbacks.js";
import { Client } from "../../src/client/client.js";
import type { ClientOptions } from "../../src/client/options.js";
import type { ClientTarget } from "../../src/client/targets.js";
import { type HttpServerHandle, serveHttp } from "../../src/transports/http/node.js";
import { MemoryTransport } from "../../src/transports/memory.js";
import { buildDualEraServer } from "../fixtures/legacy/dual-era.js";
import { wireTap } from "../helpers.js";
import { envelope } from "./helpers.js";
import { post } from "./http-helpers.js";
import { DUAL_ERA, killSpawned, RawChild, spawnTarget } from "./stdio-helpers.js";

let handle: HttpServerHandle | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
  killSpawned();
});

/** One set of callbacks for both generations, remembering who asked what. */
function callbacks() {
  const asked: (string | number)[] = [];
  const options: ClientOptions = {
    elicitation: (ctx: ClientRequestContext) => {
      asked.push(ctx.requestId);
      return { action: "accept", content: { region: "eu-west-1" } };
    },
    sampling: () => ({ role: "assistant", content: { type: "text", text: "short" }, model: "m" }),
    listRoots: () => ({ roots: [{ uri: "file:///work" }] }),
  };
  return { asked, options };
}

async function bothEras(legacyTarget: ClientTarget, modernTarget: ClientTarget) {
  const { asked, options } = callbacks();
  const legacy = await Client.connect(legacyTarget, { ...options, mode: "legacy" });
  const modern = await Client.connect(modernTarget, options);
  try {
    const [old, neu] = await Promise.all([
      legacy.callTool("provision", { name: "old" }),
      modern.callTool("provision", { name: "new" }),
    ]);
    return { legacy: legacy.protocolVersion, modern: modern.protocolVersion, old, neu, asked };
  } finally {
    await Promise.all([legacy.close(), modern.close()]);
  }
}

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe("one resolver tool serves a 2025 and a 2026 client at once", () => {
  it("in memory", async () => {
    const server = buildDualEraServer();
    const outcome = await bothEras(server, server);
    expect([outcome.legacy, outcome.modern]).toEqual(["2025-11-25", "2026-07-28"]);
    expect(textOf(outcome.old)).toBe("Provisioned old in eu-west-1.");
    expect(textOf(outcome.neu)).toBe("Provisioned new in eu-west-1.");
    expect(outcome.old).not.toHaveProperty("resultType");
    // requestId: the JSON-RPC id of elicitation/create (2025), the inputRequests key (2026).
    expect(outcome.asked).toEqual(expect.arrayContaining([1, "ask_region"]));
  });

  it("over HTTP, on one endpoint", async () => {
    handle = await serveHttp(buildDualEraServer(), { port: 0 });
    const outcome = await bothEras(handle.url, handle.url);
    expect([outcome.legacy, outcome.modern]).toEqual(["2025-11-25", "2026-07-28"]);
    expect(textOf(outcome.old)).toBe("Provisioned old in eu-west-1.");
    expect(textOf(outcome.neu)).toBe("Provisioned new in eu-west-1.");
  });

  it("over stdio, one process per client (each locked by its first exchange)", async () => {
    const outcome = await bothEras(spawnTarget(DUAL_ERA), spawnTarget(DUAL_ERA));
    expect([outcome.legacy, outcome.modern]).toEqual(["2025-11-25", "2026-07-28"]);
    expect(textOf(outcome.old)).toBe("Provisioned old in eu-west-1.");
  });

  it("every resolver kind, both eras, same callbacks", async () => {
    const server = buildDualEraServer();
    for (const mode of ["legacy", "auto"] as const) {
      const client = await Client.connect(server, { ...callbacks().options, mode });
      expect(textOf(await client.callTool("summarize", { topic: "x" }))).toBe("short");
      expect(textOf(await client.callTool("workspace"))).toBe("file:///work");
      expect(textOf(await client.callTool("connect"))).toBe("consent: accept");
      await client.close();
    }
  });
});

describe("a modern request never sends a server → client request", () => {
  const isRequest = (m: Record<string, unknown>) => typeof m.method === "string" && "id" in m;

  it("in memory: every question travels inside a result", async () => {
    const tap = wireTap();
    const client = await Client.connect(
      new MemoryTransport(buildDualEraServer({ legacyShim: true }), { onWire: tap.onWire }),
      callbacks().options,
    );
    for (const tool of ["provision", "summarize", "workspace", "connect", "handbuilt"]) {
      await client.callTool(tool, { name: "n", topic: "t" });
    }
    expect(tap.received().filter(isRequest)).toEqual([]);
    expect(
      tap.received().filter((m) => (m.result as { resultType?: string })?.resultType === "input_required"),
    ).toHaveLength(5);
    await client.close();
  });

  it("over HTTP: the POST answers input_required as JSON, no stream, no request", async () => {
    handle = await serveHttp(buildDualEraServer({ legacyShim: true }), { port: 0 });
    const response = await post(
      handle.url.toString(),
      {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "provision", arguments: { name: "n" }, _meta: envelope({ elicitation: {} }) },
      },
      { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "provision" },
    );
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toMatchObject({ id: 1, result: { resultType: "input_required" } });
  });

  it("over stdio: only responses on the pipe", async () => {
    const server = new RawChild(DUAL_ERA, { LEGACY_SHIM: "1" });
    const caps = envelope({ elicitation: {}, sampling: {}, roots: {} });
    for (const [id, name] of ["provision", "summarize", "workspace", "handbuilt"].entries()) {
      server.write({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name, arguments: { name: "n", topic: "t" }, _meta: caps },
      });
      expect(await server.response(id)).toMatchObject({ result: { resultType: "input_required" } });
    }
    expect(server.messages.filter(isRequest)).toEqual([]);
    server.end();
  });
});
