import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it, vi } from "vitest";
import { Client } from "../../src/client/client.js";
import { NoMutualVersionError } from "../../src/client/errors.js";
import type { LegacyConnect } from "../../src/client/legacy.js";
import { type NegotiatedEra, negotiate, parseSupported } from "../../src/client/negotiation.js";
import { ClientSession } from "../../src/client/session.js";
import type { Dispatcher } from "../../src/shared/dispatch.js";
import { ConnectionClosedError, RequestTimeoutError } from "../../src/shared/errors.js";
import { MemoryTransport } from "../../src/transports/memory.js";
import { McpError } from "../../src/types/index.js";
import { wireTap } from "../helpers.js";
import { DISCOVERED, SERVER_INFO, stubServer } from "./stubs.js";

const LEGACY_ERA: NegotiatedEra = {
  era: "legacy",
  protocolVersion: "2025-11-25",
  serverInfo: { name: "old", version: "1" },
  capabilities: {},
  instructions: undefined,
};

/** A probe stub that answers each `server/discover` in turn from `answers` (a result, or an McpError). */
function prober(...answers: (Record<string, unknown> | McpError)[]) {
  return stubServer((method) => {
    if (method !== "server/discover") return undefined;
    const next = answers.shift();
    if (next instanceof McpError) throw next;
    return next;
  });
}

async function negotiateWith(
  target: Dispatcher,
  legacyConnect: LegacyConnect = vi.fn(async () => LEGACY_ERA),
) {
  const tap = wireTap();
  const session = await ClientSession.connect(new MemoryTransport(target, { onWire: tap.onWire }));
  const outcome = await negotiate(session, { mode: "auto", callbacks: {}, legacyConnect }).catch(
    (e: unknown) => e as Error,
  );
  const probedAt = tap
    .sent()
    .filter((m) => m.method === "server/discover")
    .map(
      (m) =>
        (m.params as { _meta: Record<string, unknown> })._meta["io.modelcontextprotocol/protocolVersion"],
    );
  return { outcome, legacyConnect, probedAt, session };
}

const unsupported = (data?: unknown) => new McpError(-32022, "Unsupported protocol version", data);

describe("mode auto (python tests/client/test_probe.py)", () => {
  it("adopts a valid discover result without the handshake", async () => {
    const { outcome, legacyConnect, probedAt } = await negotiateWith(prober(DISCOVERED));
    expect(outcome).toEqual({
      era: "modern",
      protocolVersion: "2026-07-28",
      serverInfo: SERVER_INFO,
      capabilities: DISCOVERED.capabilities,
      instructions: "Be nice.",
      discover: DISCOVERED,
    });
    expect(legacyConnect).not.toHaveBeenCalled();
    expect(probedAt).toEqual(["2026-07-28"]);
  });

  it("falls back on an unparseable discover result", async () => {
    const { outcome, legacyConnect } = await negotiateWith(
      prober({ resultType: "complete", supportedVersions: "x" }),
    );
    expect(outcome).toBe(LEGACY_ERA);
    expect(legacyConnect).toHaveBeenCalledWith(
      expect.objectContaining({ evidence: expect.stringContaining("unparseable") }),
    );
  });

  it("falls back on a discover result advertising only legacy versions", async () => {
    const { outcome, legacyConnect } = await negotiateWith(
      prober({ ...DISCOVERED, supportedVersions: ["2025-11-25", "2025-06-18"] }),
    );
    expect(outcome).toBe(LEGACY_ERA);
    expect(legacyConnect).toHaveBeenCalledTimes(1);
  });

  it("raises when a discover result lists only versions it does not share and no legacy one", async () => {
    const { outcome, legacyConnect } = await negotiateWith(
      prober({ ...DISCOVERED, supportedVersions: ["2099-01-01"] }),
    );
    expect(outcome).toBeInstanceOf(NoMutualVersionError);
    expect(legacyConnect).not.toHaveBeenCalled();
  });

  it.each([-32601, -32600, -32603, -32700, -32602])(
    "falls back on any JSON-RPC error from the probe (%i)",
    async (code) => {
      const error = new McpError(code, "nope");
      const { outcome, legacyConnect } = await negotiateWith(prober(error));
      expect(outcome).toBe(LEGACY_ERA);
      expect(legacyConnect).toHaveBeenCalledWith(
        expect.objectContaining({ probeError: expect.objectContaining({ code }) }),
      );
    },
  );

  it.each([
    [-32020, "Header mismatch: Mcp-Method does not match the body"],
    [-32021, "Client did not declare the sampling capability"],
  ])("a modern refusal from the probe (%i) is raised, never a fallback", async (code, message) => {
    const { outcome, legacyConnect } = await negotiateWith(prober(new McpError(code, message)));
    expect(outcome).toBeInstanceOf(McpError);
    expect(outcome).toMatchObject({ code, message });
    expect(legacyConnect).not.toHaveBeenCalled();
  });

  it("over HTTP, a 400 carrying -32020 fails the connect without an initialize POST", async () => {
    const posted: string[] = [];
    const server = createServer(async (req, res) => {
      let text = "";
      for await (const chunk of req) text += chunk;
      const message = JSON.parse(text) as { id: number; method: string };
      posted.push(message.method);
      const error = { code: -32020, message: "Header mismatch: Mcp-Method does not match the body" };
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, error }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
      const failure = await Client.connect(url, { eraCache: false }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(McpError);
      expect(failure).toMatchObject({ code: -32020 });
      expect(posted).toEqual(["server/discover"]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("-32022 naming a mutual modern version: one re-probe at it, then adopts", async () => {
    const { outcome, probedAt, legacyConnect } = await negotiateWith(
      prober(unsupported({ supported: ["2025-11-25", "2026-07-28"], requested: "2026-07-28" }), DISCOVERED),
    );
    expect(outcome).toMatchObject({ era: "modern", protocolVersion: "2026-07-28" });
    expect(probedAt).toEqual(["2026-07-28", "2026-07-28"]);
    expect(legacyConnect).not.toHaveBeenCalled();
  });

  it("-32022 naming only handshake versions falls back", async () => {
    const { outcome } = await negotiateWith(prober(unsupported({ supported: ["2025-11-25", "2025-06-18"] })));
    expect(outcome).toBe(LEGACY_ERA);
  });

  it.each([
    ["disjoint modern-only", { supported: ["2099-01-01"] }],
    ["empty", { supported: [] }],
  ])("-32022 with a %s supported list is re-raised", async (_name, data) => {
    const { outcome, legacyConnect } = await negotiateWith(prober(unsupported(data)));
    expect(outcome).toBeInstanceOf(McpError);
    expect((outcome as McpError).code).toBe(-32022);
    expect(legacyConnect).not.toHaveBeenCalled();
  });

  it.each([
    ["no data", undefined],
    ["malformed supported", { supported: "2026-07-28" }],
    ["missing supported", { requested: "2026-07-28" }],
  ])("-32022 with unparseable data (%s) falls back", async (_name, data) => {
    const { outcome } = await negotiateWith(prober(unsupported(data)));
    expect(outcome).toBe(LEGACY_ERA);
  });

  it("a second -32022 after the corrective re-probe does not loop", async () => {
    const error = unsupported({ supported: ["2026-07-28"] });
    const { outcome, probedAt, legacyConnect } = await negotiateWith(prober(error, error, DISCOVERED));
    expect(outcome).toMatchObject({ code: -32022 });
    expect(probedAt).toHaveLength(2);
    expect(legacyConnect).not.toHaveBeenCalled();
  });

  it("a handshake answered -32022 re-probes at the version it names, then adopts", async () => {
    const legacyConnect = vi.fn(async () => {
      throw unsupported({ supported: ["2026-07-28"] });
    });
    const { outcome, probedAt } = await negotiateWith(
      prober(new McpError(-32601, "no"), DISCOVERED),
      legacyConnect,
    );
    expect(outcome).toMatchObject({ era: "modern", protocolVersion: "2026-07-28" });
    expect(probedAt).toHaveLength(2);
    expect(legacyConnect).toHaveBeenCalledTimes(1);
  });

  it.each([
    ["disjoint", { supported: ["2099-01-01"] }],
    ["no data", undefined],
  ])("a handshake -32022 without a mutual version (%s) is re-raised", async (_name, data) => {
    const error = unsupported(data);
    const { outcome, probedAt } = await negotiateWith(
      prober(new McpError(-32601, "no")),
      vi.fn(async () => {
        throw error;
      }),
    );
    expect(outcome).toBe(error);
    expect(probedAt).toHaveLength(1);
  });

  it("a handshake -32022 re-probes at most once", async () => {
    const error = unsupported({ supported: ["2026-07-28"] });
    const legacyConnect = vi.fn(async () => {
      throw error;
    });
    const { outcome, probedAt } = await negotiateWith(
      prober(new McpError(-32601, "no"), new McpError(-32601, "still no")),
      legacyConnect,
    );
    expect(outcome).toBe(error);
    expect(probedAt).toHaveLength(2);
    expect(legacyConnect).toHaveBeenCalledTimes(2);
  });

  it("any other handshake error propagates unchanged", async () => {
    const error = new McpError(-32603, "handshake exploded");
    const { outcome } = await negotiateWith(
      prober(new McpError(-32601, "no")),
      vi.fn(async () => {
        throw error;
      }),
    );
    expect(outcome).toBe(error);
  });

  it.each([
    ["closed transport", new ConnectionClosedError("gone")],
    ["network error", new Error("ECONNREFUSED")],
  ])("a %s from the probe propagates unchanged, never an era verdict", async (_name, failure) => {
    const broken: Dispatcher = {
      dispatch: async () => {
        throw failure;
      },
    };
    const transport = new MemoryTransport(broken);
    transport.send = async () => {
      throw failure;
    };
    const session = await ClientSession.connect(transport);
    const legacyConnect = vi.fn(async () => LEGACY_ERA);
    await expect(negotiate(session, { mode: "auto", callbacks: {}, legacyConnect })).rejects.toBe(failure);
    expect(legacyConnect).not.toHaveBeenCalled();
  });

  it("a probe that times out propagates the timeout", async () => {
    const silent: Dispatcher = { dispatch: () => new Promise(() => {}) };
    const session = await ClientSession.connect(new MemoryTransport(silent), { timeoutMs: 20 });
    const legacyConnect = vi.fn(async () => LEGACY_ERA);
    await expect(negotiate(session, { mode: "auto", callbacks: {}, legacyConnect })).rejects.toBeInstanceOf(
      RequestTimeoutError,
    );
    expect(legacyConnect).not.toHaveBeenCalled();
  });

  it("reads a missing serverInfo stamp as absent", async () => {
    const { outcome } = await negotiateWith(prober({ ...DISCOVERED, _meta: {} }));
    expect((outcome as NegotiatedEra).era).toBe("modern");
    expect((outcome as NegotiatedEra).serverInfo).toBeUndefined();
  });

  it("parseSupported returns undefined for anything not shaped like the spec's error data", () => {
    expect(parseSupported({ supported: ["a", "b"], requested: "c" })).toEqual(["a", "b"]);
    for (const bad of [undefined, null, "x", [], { supported: "a" }, { supported: [1] }, {}]) {
      expect(parseSupported(bad)).toBeUndefined();
    }
  });
});

describe("Client modes", () => {
  it("auto lands an in-memory client on 2026-07-28", async () => {
    const client = await Client.connect(stubServer());
    expect(client.protocolVersion).toBe("2026-07-28");
  });

  it("auto falls back to the handshake; a server refusing that too fails with its error, and is closed", async () => {
    const refusesAll = stubServer(() => {
      throw new McpError(-32601, "Method not found");
    });
    const transport = new MemoryTransport(refusesAll);
    const error = await Client.connect(transport).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32601);
    expect(refusesAll.seen.map((s) => s.method)).toEqual(["server/discover", "initialize"]);
    await expect(transport.send({ jsonrpc: "2.0", method: "x" })).rejects.toThrow("closed");
  });

  it("auto on a legacy-only server lands on the version its initialize answered", async () => {
    const legacyOnly = stubServer((method) => {
      if (method !== "initialize") throw new McpError(-32601, "Method not found");
      return { protocolVersion: "2025-06-18", capabilities: {}, serverInfo: SERVER_INFO };
    });
    const client = await Client.connect(legacyOnly);
    expect([client.era, client.protocolVersion]).toEqual(["legacy", "2025-06-18"]);
    expect(client.serverInfo).toEqual(SERVER_INFO);
  });

  it("a pin sends nothing and knows nothing", async () => {
    const server = stubServer((method) => (method === "tools/list" ? { tools: [] } : undefined));
    const client = await Client.connect(server, { mode: "2026-07-28" });
    expect(server.seen).toEqual([]);
    expect(client.protocolVersion).toBe("2026-07-28");
    expect(client.serverInfo).toBeUndefined();
    expect(client.capabilities).toEqual({});
    expect(client.instructions).toBeUndefined();
    await client.listTools();
    expect(server.seen.map((s) => s.method)).toEqual(["tools/list"]);
  });

  it("a pin adopts priorDiscover (which survives JSON)", async () => {
    const server = stubServer();
    const prior = JSON.parse(JSON.stringify(DISCOVERED));
    const client = await Client.connect(server, { mode: "2026-07-28", priorDiscover: prior });
    expect(server.seen).toEqual([]);
    expect(client.serverInfo).toEqual(SERVER_INFO);
    expect(client.capabilities).toEqual(DISCOVERED.capabilities);
    expect(client.instructions).toBe("Be nice.");
  });

  it("a pin refuses a priorDiscover that does not list it", async () => {
    await expect(
      Client.connect(stubServer(), {
        mode: "2026-07-28",
        priorDiscover: { ...DISCOVERED, supportedVersions: ["2025-11-25"] } as never,
      }),
    ).rejects.toBeInstanceOf(NoMutualVersionError);
  });

  it("priorDiscover is ignored unless the mode is a pin", async () => {
    const server = stubServer();
    const client = await Client.connect(server, {
      priorDiscover: { ...DISCOVERED, instructions: "stale" } as never,
    });
    expect(server.seen.map((s) => s.method)).toEqual(["server/discover"]);
    expect(client.instructions).toBe("Be nice.");
  });

  it("rejects a handshake-era mode at construction with a hint, before touching the target", async () => {
    const server = stubServer();
    const error = await Client.connect(server, { mode: "2025-11-25" as never }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toContain('use mode "legacy"');
    expect(server.seen).toEqual([]);
  });

  it("rejects any other mode string", async () => {
    await expect(Client.connect(stubServer(), { mode: "modern" as never })).rejects.toThrow(
      /Unknown mode "modern"/,
    );
  });

  it("mode legacy handshakes directly, without any probe", async () => {
    const server = stubServer((method) =>
      method === "initialize"
        ? { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: SERVER_INFO }
        : undefined,
    );
    const client = await Client.connect(server, { mode: "legacy" });
    expect([client.era, client.protocolVersion]).toEqual(["legacy", "2025-11-25"]);
    expect(server.seen.map((s) => s.method)).toEqual(["initialize"]);
    expect(server.seen[0]?.params).not.toHaveProperty(["_meta", "io.modelcontextprotocol/protocolVersion"]);
  });
});
