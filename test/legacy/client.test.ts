/**
 * Our Client on the 2025 wire: `mode: "legacy"` handshakes, `auto` falls back on non-modern
 * evidence (stdio: on the same process, also when the probe meets silence; HTTP: a 4xx without a
 * JSON-RPC error), and the server's requests reach the same callbacks.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { NoMutualVersionError } from "../../src/client/errors.js";
import { StreamableHttpClientTransport } from "../../src/transports/http/client.js";
import { type HttpServerHandle, serveHttp } from "../../src/transports/http/node.js";
import { MemoryTransport } from "../../src/transports/memory.js";
import { StdioClientTransport } from "../../src/transports/stdio/client.js";
import { McpError } from "../../src/types/index.js";
import { stubServer } from "../client/stubs.js";
import { buildDualEraServer } from "../fixtures/legacy/dual-era.js";
import { wireTap } from "../helpers.js";
import { regionCallback } from "./helpers.js";
import { type ProbeAnswer, startLegacyHttpStub } from "./legacy-http-stub.js";
import { DUAL_ERA, killSpawned, LEGACY_STUB, REPO_ROOT, spawnTarget, until } from "./stdio-helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close().catch(() => {});
  killSpawned();
});

/** A hand-written in-memory 2025 server: no server/discover, initialize at `version`. */
function memoryStub(version = "2025-06-18") {
  return stubServer((method) => {
    if (method === "initialize") {
      return {
        protocolVersion: version,
        capabilities: { tools: {}, logging: {} },
        serverInfo: { name: "mem-stub", version: "2" },
      };
    }
    if (method === "tools/list") return { tools: [{ name: "t", inputSchema: { type: "object" } }] };
    if (method === "logging/setLevel") return {};
    throw new McpError(-32601, `Method not found: ${method}`);
  });
}

function stdioTransport(path: string, env: Record<string, string> = {}) {
  return new StdioClientTransport({ ...spawnTarget(path, env), stderr: "pipe" });
}

describe('mode: "legacy"', () => {
  it("handshakes with our server, then sends no envelope", async () => {
    const tap = wireTap();
    const server = buildDualEraServer({ instructions: "Hi." });
    const client = await Client.connect(new MemoryTransport(server, { onWire: tap.onWire }), {
      mode: "legacy",
      elicitation: regionCallback(),
    });
    expect([client.era, client.protocolVersion, client.instructions]).toEqual([
      "legacy",
      "2025-11-25",
      "Hi.",
    ]);
    expect(client.serverInfo).toEqual({ name: "dual-era", version: "1.0.0" });
    expect(client.capabilities).toMatchObject({ tools: {}, logging: {} });
    await client.listTools();
    const sent = tap.sent();
    expect(sent.map((m) => m.method)).toEqual(["initialize", "notifications/initialized", "tools/list"]);
    expect(sent[0]?.params).toEqual({
      protocolVersion: "2025-11-25",
      capabilities: { elicitation: { form: {}, url: {} } },
      clientInfo: { name: "roundtrip-client", version: "0.1.0" },
      _meta: {},
    });
    expect(JSON.stringify(sent)).not.toContain("io.modelcontextprotocol/protocolVersion");
    await client.close();
  });

  it("reports the version the server negotiated and sets its log level", async () => {
    const stub = memoryStub("2024-11-05");
    const client = await Client.connect(stub, { mode: "legacy", logLevel: "warning" });
    expect(client.protocolVersion).toBe("2024-11-05");
    expect(stub.seen.map((s) => s.method)).toEqual(["initialize", "logging/setLevel"]);
    expect(stub.seen[1]?.params).toEqual({ level: "warning", _meta: {} });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["t"]);
  });

  it("refuses a version it does not speak (and closes)", async () => {
    const error = await Client.connect(memoryStub("1999-01-01"), { mode: "legacy" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoMutualVersionError);
  });

  it("the callback's signal fires when the server withdraws its question", async () => {
    let aborted = false;
    const server = buildDualEraServer({ legacy: { requestTimeoutMs: 40 } });
    const client = await Client.connect(server, {
      mode: "legacy",
      elicitation: (ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener("abort", () => {
            aborted = true;
            resolve({ action: "cancel" });
          });
        }),
    });
    const result = await client.callTool("provision", { name: "x" });
    expect(result.isError).toBe(true);
    await until(() => aborted, "the callback's abort");
    await client.close();
  });
});

describe('mode: "auto" over stdio (one process, never a second spawn)', () => {
  it.each([
    ["-32601 to the probe", {}, []],
    ["silence to the probe", { STUB_SILENT: "1" }, ["got notifications/cancelled"]],
  ])("falls back to initialize on %s; ping and elicitation are answered", async (_name, env, withdrawn) => {
    const transport = stdioTransport(LEGACY_STUB, env);
    let stderr = "";
    const asked: (string | number)[] = [];
    const client = await Client.connect(transport, {
      timeoutMs: 1_500,
      elicitation: (ctx) => {
        asked.push(ctx.requestId);
        return { action: "accept", content: { region: "af-south-1" } };
      },
    });
    closers.push(() => client.close());
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    expect([client.era, client.protocolVersion]).toEqual(["legacy", "2025-06-18"]);
    const result = await client.callTool("provision", { name: "db" });
    expect(result).toEqual({ content: [{ type: "text", text: "Stub provisioned db in af-south-1." }] });
    expect(asked).toEqual([101]);
    await until(() => stderr.includes("got tools/call"), "the stub's log");
    // One process answered everything: the probe first, then the handshake.
    expect(stderr.match(/ready \d+/g)).toEqual([`ready ${transport.pid}`]);
    expect(stderr.match(/got \S+/g)).toEqual([
      "got server/discover",
      ...withdrawn,
      "got initialize",
      "got notifications/initialized",
      "got tools/call",
    ]);
  });

  it("stays modern with our dual-era server", async () => {
    const client = await Client.connect(spawnTarget(DUAL_ERA), { elicitation: regionCallback() });
    closers.push(() => client.close());
    expect(client.protocolVersion).toBe("2026-07-28");
  });

  it('mode "legacy" handshakes our dual-era server on stdio', async () => {
    const client = await Client.connect(
      { ...spawnTarget(DUAL_ERA), cwd: REPO_ROOT },
      { mode: "legacy", elicitation: regionCallback("me-south-1") },
    );
    closers.push(() => client.close());
    expect((await client.callTool("provision", { name: "db" })).content).toEqual([
      { type: "text", text: "Provisioned db in me-south-1." },
    ]);
  });
});

describe('mode: "auto" over HTTP', () => {
  it.each(["400-text", "404-html", "jsonrpc-400"] as ProbeAnswer[])(
    "falls back when the probe gets %s, then runs the 2025 wire",
    async (probe) => {
      const stub = await startLegacyHttpStub(probe);
      closers.push(stub.close);
      const client = await Client.connect(stub.url, { elicitation: regionCallback("ca-central-1") });
      expect([client.era, client.protocolVersion]).toEqual(["legacy", "2025-03-26"]);
      const result = await client.callTool("provision", { name: "db" });
      expect(result.content).toEqual([{ type: "text", text: "HTTP stub provisioned db in ca-central-1." }]);
      await client.close();
      expect(stub.seen).toEqual([
        "POST server/discover v=2026-07-28",
        "POST initialize v=-",
        "POST notifications/initialized v=2025-03-26",
        "GET session",
        "POST tools/call v=2025-03-26",
        "POST response v=2025-03-26",
        "DELETE session",
      ]);
      expect(stub.sessions.size).toBe(0);
    },
  );

  it("a 401 is never era evidence", async () => {
    handle = await serveHttp(buildDualEraServer(), { port: 0, requireAuth: true });
    const error = await Client.connect(handle.url).catch((e: unknown) => e);
    expect((error as { status?: number }).status).toBe(401);
  });

  it('mode "legacy" against our server: the session is deleted on close', async () => {
    handle = await serveHttp(buildDualEraServer(), { port: 0 });
    const requests: string[] = [];
    const transport = new StreamableHttpClientTransport(handle.url, {
      fetch: (input, init) => {
        requests.push(`${init.method} ${new Headers(init.headers).get("mcp-session-id") ? "session" : "-"}`);
        return fetch(input, init);
      },
    });
    const client = await Client.connect(transport, { mode: "legacy", elicitation: regionCallback() });
    expect((await client.callTool("provision", { name: "db" })).isError).toBeUndefined();
    await client.close();
    expect(requests[0]).toBe("POST -");
    expect(requests.at(-1)).toBe("DELETE session");
  });
});

let handle: HttpServerHandle | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
});
