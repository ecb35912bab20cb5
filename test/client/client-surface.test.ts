import { describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { silentLogger } from "../../src/server/logger.js";
import { Server } from "../../src/server/server.js";
import { bare, connectTapped, SERVER_INFO, stubServer } from "./stubs.js";

describe("Client surface", () => {
  it("exposes the negotiated version, server identity, capabilities and instructions", async () => {
    const server = new Server("surface", {
      version: "7",
      instructions: "Ask first.",
      logger: silentLogger,
      onListTools: () => ({ tools: [] }),
    });
    const client = await Client.connect(server);
    expect(client.protocolVersion).toBe("2026-07-28");
    expect(client.era).toBe("modern");
    expect(client.serverInfo).toEqual({ name: "surface", version: "7" });
    expect(client.capabilities).toEqual({ tools: {} });
    expect(client.instructions).toBe("Ask first.");
    expect(client.session.protocolVersion).toBe("2026-07-28");
    await client.close();
  });

  it("declares no capabilities without callbacks", async () => {
    const { client, tap } = await connectTapped(stubServer());
    expect(client.session.capabilities).toEqual({});
    const sent = tap.sent()[0]?.params as { _meta: Record<string, unknown> };
    expect(sent._meta["io.modelcontextprotocol/clientCapabilities"]).toEqual({});
  });

  it("declares exactly the capabilities its callbacks imply, plus explicit extras", async () => {
    const server = stubServer();
    const { client, tap } = await connectTapped(server, {
      elicitation: () => ({ action: "cancel" }),
      sampling: () => ({ role: "assistant", content: { type: "text", text: "" }, model: "m" }),
      samplingCapabilities: { tools: {}, context: {} },
      listRoots: () => ({ roots: [] }),
      clientCapabilities: { experimental: { "x.y": {} } },
    });
    expect(client.session.capabilities).toEqual({
      elicitation: { form: {}, url: {} },
      sampling: { tools: {}, context: {} },
      roots: {},
      experimental: { "x.y": {} },
    });
    const meta = tap.sent()[0]?.params as { _meta: Record<string, unknown> };
    expect(meta._meta["io.modelcontextprotocol/clientCapabilities"]).toEqual(client.session.capabilities);
  });

  it("passes list, complete and discover through", async () => {
    const server = stubServer((method) => {
      if (method === "tools/list") return { tools: [{ name: "a", inputSchema: { type: "object" } }] };
      if (method === "prompts/list") return { prompts: [] };
      if (method === "resources/list") return { resources: [] };
      if (method === "resources/templates/list") return { resourceTemplates: [] };
      if (method === "completion/complete") return { completion: { values: ["x"] } };
      return undefined;
    });
    const { client } = await connectTapped(server);
    expect((await client.listTools("c")).tools).toHaveLength(1);
    await client.listPrompts();
    await client.listResources();
    await client.listResourceTemplates();
    expect(
      (await client.complete({ ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value: "" } }))
        .completion.values,
    ).toEqual(["x"]);
    expect((await client.discover()).supportedVersions).toEqual(["2026-07-28"]);
    expect(server.seen.map((s) => [s.method, bare(s.params)])).toEqual([
      ["server/discover", {}],
      ["tools/list", { cursor: "c" }],
      ["prompts/list", {}],
      ["resources/list", {}],
      ["resources/templates/list", {}],
      ["completion/complete", { ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value: "" } }],
      ["server/discover", {}],
    ]);
  });

  it("closes with await using", async () => {
    let client: Client | undefined;
    {
      await using scoped = await Client.connect(stubServer());
      client = scoped;
      expect(client.session.connection.closed).toBe(false);
    }
    expect(client.session.connection.closed).toBe(true);
  });

  it("accepts a dispatcher, a Transport, a URL or a command; an unreachable one fails with a local error", async () => {
    for (const target of ["http://127.0.0.1:1/mcp", new URL("http://127.0.0.1:1/mcp")]) {
      const error = await Client.connect(target).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect("code" in (error as object)).toBe(false);
    }
    await expect(Client.connect({ command: "/nonexistent/roundtrip-server" })).rejects.toThrow(
      /ENOENT|spawn/,
    );
    await expect(Client.connect({} as never)).rejects.toBeInstanceOf(TypeError);
    const viaDispatcher = await Client.connect(stubServer());
    expect(viaDispatcher.serverInfo).toEqual(SERVER_INFO);
  });

  it("validates loop options at connect and per call", async () => {
    await expect(Client.connect(stubServer(), { inputRequiredMaxRounds: -1 })).rejects.toBeInstanceOf(
      RangeError,
    );
    await expect(Client.connect(stubServer(), { maxTotalTimeoutMs: 0 })).rejects.toBeInstanceOf(RangeError);
    const client = await Client.connect(stubServer());
    await expect(client.callTool("t", {}, { inputRequiredMaxRounds: 1.5 })).rejects.toBeInstanceOf(
      RangeError,
    );
  });

  it.each([
    [
      { initialMs: Number.NaN },
      "stateOnlyBackoff.initialMs must be a non-negative number of milliseconds, got NaN",
    ],
    [{ capMs: -1 }, "stateOnlyBackoff.capMs must be a non-negative number of milliseconds, got -1"],
    [
      { capMs: Number.POSITIVE_INFINITY },
      "stateOnlyBackoff.capMs must be a non-negative number of milliseconds, got Infinity",
    ],
  ])("refuses stateOnlyBackoff %o at connect and per call", async (stateOnlyBackoff, message) => {
    await expect(Client.connect(stubServer(), { stateOnlyBackoff })).rejects.toThrow(new RangeError(message));
    const client = await Client.connect(stubServer());
    await expect(client.callTool("t", {}, { stateOnlyBackoff })).rejects.toThrow(new RangeError(message));
  });
});

describe("Client.connect with a signal", () => {
  it("gives up with RequestAbortedError and closes the transport when aborted mid-negotiation", async () => {
    const { RequestAbortedError } = await import("../../src/shared/errors.js");
    const { MemoryTransport } = await import("../../src/transports/memory.js");
    const silent = { dispatch: () => new Promise<never>(() => {}) };
    const transport = new MemoryTransport(silent);
    const controller = new AbortController();
    const connecting = Client.connect(transport, { signal: controller.signal, mode: "auto" });
    setTimeout(() => controller.abort("shutting down"), 20);
    const error = await connecting.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect((error as Error).cause).toBe("shutting down");
    await expect(transport.send({ jsonrpc: "2.0", method: "x" })).rejects.toThrow("closed");
  });

  it("refuses at once when the signal is already aborted", async () => {
    const { RequestAbortedError } = await import("../../src/shared/errors.js");
    await expect(Client.connect(stubServer(), { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(
      RequestAbortedError,
    );
  });
});
