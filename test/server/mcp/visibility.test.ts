import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../../src/client/client.js";
import { jsonSchema } from "../../../src/server/mcp/json-schema.js";
import { MCPServer } from "../../../src/server/mcp/mcp-server.js";
import { serverTasks } from "../../../src/server/tasks/index.js";
import type { AuthInfo } from "../../../src/shared/dispatch.js";
import { serveHttp } from "../../../src/transports/http/node.js";
import { errorOf, recordingLogger, request, resultOf } from "../../helpers.js";
import { post, read, rpc } from "../../transports/http/helpers.js";

const admin: AuthInfo = { token: "t-admin", clientId: "app", scopes: ["admin"], subject: "ada" };
const member: AuthInfo = { token: "t-member", clientId: "app", scopes: [], subject: "bob" };
const isAdmin = (ctx: { authInfo?: AuthInfo }) => ctx.authInfo?.scopes.includes("admin") === true;

function tenantServer(options: ConstructorParameters<typeof MCPServer>[1] = {}) {
  const logger = recordingLogger();
  const mcp = new MCPServer("tenant", { logger, ...options });
  mcp.tool("search", { description: "for everyone" }, () => "found");
  mcp.tool("purge", { description: "admins only", visible: isAdmin }, () => "purged");
  mcp.tool(
    "flaky",
    {
      visible: () => {
        throw new Error("directory down");
      },
    },
    () => "never",
  );
  mcp.prompt("welcome", {}, () => "hi");
  mcp.prompt(
    "audit",
    { visible: isAdmin, complete: { tenant: () => ["acme-secret-tenant", "globex"] } },
    () => "audit trail",
  );
  return { mcp, logger };
}

const names = (result: Record<string, unknown>, key: "tools" | "prompts") =>
  (result[key] as { name: string }[]).map((entry) => entry.name);

describe("visible: per-caller tools and prompts", () => {
  it("lists only what the caller may see, and marks such lists private", async () => {
    const { mcp } = tenantServer({ cacheHints: { "tools/list": { ttlMs: 60_000, cacheScope: "public" } } });
    const forAdmin = resultOf(await mcp.dispatch(request("tools/list"), { authInfo: admin }));
    const forMember = resultOf(await mcp.dispatch(request("tools/list"), { authInfo: member }));
    const anonymous = resultOf(await mcp.dispatch(request("tools/list")));
    expect(names(forAdmin, "tools")).toEqual(["search", "purge"]);
    expect(names(forMember, "tools")).toEqual(["search"]);
    expect(names(anonymous, "tools")).toEqual(["search"]);
    // Configured public, but a list that depends on the caller must never be shared.
    expect([forMember.cacheScope, forMember.ttlMs]).toEqual(["private", 60_000]);
    const prompts = resultOf(await mcp.dispatch(request("prompts/list"), { authInfo: member }));
    expect(names(prompts, "prompts")).toEqual(["welcome"]);
    expect(prompts.cacheScope).toBe("private");
  });

  it("refuses a hidden tool or prompt exactly as one that does not exist", async () => {
    const { mcp } = tenantServer();
    const hidden = errorOf(
      await mcp.dispatch(request("tools/call", { name: "purge" }), { authInfo: member }),
    );
    const missing = errorOf(
      await mcp.dispatch(request("tools/call", { name: "purgx" }), { authInfo: member }),
    );
    expect(hidden).toEqual({ code: -32602, message: "Unknown tool: purge" });
    expect(missing).toEqual({ code: -32602, message: "Unknown tool: purgx" });
    const prompt = errorOf(
      await mcp.dispatch(request("prompts/get", { name: "audit" }), { authInfo: member }),
    );
    expect(prompt).toEqual({ code: -32602, message: "Unknown prompt: audit" });
    const allowed = resultOf(
      await mcp.dispatch(request("tools/call", { name: "purge" }), { authInfo: admin }),
    );
    expect(allowed.content).toEqual([{ type: "text", text: "purged" }]);
  });

  it("refuses completion of a hidden prompt's arguments exactly as for a prompt that does not exist", async () => {
    const { mcp } = tenantServer();
    const complete = (name: string, authInfo: AuthInfo) =>
      mcp.dispatch(
        request("completion/complete", {
          ref: { type: "ref/prompt", name },
          argument: { name: "tenant", value: "" },
        }),
        { authInfo },
      );
    expect(errorOf(await complete("audit", member))).toEqual({
      code: -32602,
      message: "Unknown prompt: audit",
    });
    expect(errorOf(await complete("audix", member))).toEqual({
      code: -32602,
      message: "Unknown prompt: audix",
    });
    expect(resultOf(await complete("audit", admin)).completion).toEqual({
      values: ["acme-secret-tenant", "globex"],
      total: 2,
      hasMore: false,
    });
  });

  it("a hidden task-only tool is unknown too, not a -32021 that would confirm it", async () => {
    const mcp = new MCPServer("tasks", { logger: recordingLogger(), tasks: serverTasks() });
    mcp.tool("batch", { task: "required", visible: isAdmin }, () => "ran");
    const hidden = errorOf(
      await mcp.dispatch(request("tools/call", { name: "batch" }), { authInfo: member }),
    );
    expect(hidden).toEqual({ code: -32602, message: "Unknown tool: batch" });
    const shown = errorOf(await mcp.dispatch(request("tools/call", { name: "batch" }), { authInfo: admin }));
    expect(shown.code).toBe(-32021);
  });

  it("hides an entry whose rule throws (deny on error), and says why in the log", async () => {
    const { mcp, logger } = tenantServer();
    const listed = resultOf(await mcp.dispatch(request("tools/list"), { authInfo: admin }));
    expect(names(listed, "tools")).not.toContain("flaky");
    expect(errorOf(await mcp.dispatch(request("tools/call", { name: "flaky" }))).code).toBe(-32602);
    expect(
      logger.lines.some(
        (line) => line.includes("tool flaky: visible() failed") && line.includes("directory down"),
      ),
    ).toBe(true);
  });

  it("leaves lists as configured when no entry has a rule; a removed rule goes with its tool", async () => {
    const mcp = new MCPServer("open", {
      logger: recordingLogger(),
      cacheHints: { "tools/list": { ttlMs: 5_000, cacheScope: "public" } },
    });
    mcp.tool("a", { visible: () => false }, () => "a");
    mcp.tool("b", {}, () => "b");
    mcp.removeTool("a");
    const listed = resultOf(await mcp.dispatch(request("tools/list"), { authInfo: member }));
    expect(names(listed, "tools")).toEqual(["b"]);
    expect(listed.cacheScope).toBe("public");
  });
});

describe("visible over HTTP, with verified tokens", () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (closers.length > 0) await closers.pop()?.();
  });

  it("two users of one endpoint see different tools, and the client caches each list privately", async () => {
    const { mcp } = tenantServer();
    const tokens: Record<string, AuthInfo> = { "t-admin": admin, "t-member": member };
    const handle = await serveHttp(mcp, {
      verifyToken: (req) => tokens[req.headers.get("authorization")?.replace(/^Bearer /, "") ?? ""],
      requireAuth: true,
    });
    closers.push(handle.close);
    const as = async (token: string) => {
      const client = await Client.connect(handle.url, { http: { authProvider: () => token } });
      closers.push(() => client.close());
      return client;
    };
    const ada = await as("t-admin");
    const bob = await as("t-member");
    expect((await ada.listTools()).tools.map((tool) => tool.name)).toEqual(["search", "purge"]);
    expect((await bob.listTools()).tools.map((tool) => tool.name)).toEqual(["search"]);
    await expect(bob.callTool("purge")).rejects.toMatchObject({
      code: -32602,
      message: "Unknown tool: purge",
    });
    expect((await ada.callTool("purge")).content).toEqual([{ type: "text", text: "purged" }]);
  });
});

describe("x-mcp-header tools hidden over HTTP: the headers never confirm them", () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (closers.length > 0) await closers.pop()?.();
  });

  /** An endpoint whose `route` tool mirrors `region` into Mcp-Param-Region, for admins only. */
  async function routeEndpoint(options: { tasks?: boolean } = {}) {
    const ruled: string[] = [];
    const mcp = new MCPServer("tenant", {
      logger: recordingLogger(),
      ...(options.tasks ? { tasks: serverTasks() } : {}),
    });
    mcp.tool(
      "route",
      {
        input: jsonSchema<{ region: string }>({
          type: "object",
          properties: { region: { type: "string", "x-mcp-header": "Region" } },
          required: ["region"],
        }),
        visible: (ctx) => {
          ruled.push(ctx.authInfo?.subject ?? "anonymous");
          return isAdmin(ctx);
        },
        ...(options.tasks ? { task: "optional" as const } : {}),
      },
      ({ region }) => `routed to ${String(region)}`,
    );
    const tokens: Record<string, AuthInfo> = { "t-admin": admin, "t-member": member };
    const handle = await serveHttp(mcp, {
      verifyToken: (req) => tokens[req.headers.get("authorization")?.replace(/^Bearer /, "") ?? ""],
    });
    closers.push(handle.close);
    const call = async (
      token: string | undefined,
      headers: Record<string, string | undefined>,
      name = "route",
    ) =>
      read(
        await post(handle.url, rpc("tools/call", { name, arguments: { region: "eu-west-1" } }), {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...headers,
        }),
      );
    return { call, ruled };
  }

  it("answers a caller who may not see the tool exactly as for an unknown tool, whatever the headers", async () => {
    const { call } = await routeEndpoint();
    const unknown = (name: string) => ({
      status: 200,
      contentType: "application/json",
      body: { jsonrpc: "2.0", id: 1, error: { code: -32602, message: `Unknown tool: ${name}` } },
    });
    for (const headers of [
      {},
      { "mcp-param-region": "us-east-1" },
      { "mcp-param-region": "=?base64?!!?=" },
    ]) {
      expect(await call("t-member", headers)).toEqual(unknown("route"));
      expect(await call(undefined, headers)).toEqual(unknown("route"));
      expect(await call("t-member", headers, "routx")).toEqual(unknown("routx"));
    }
  });

  it("gives the caller who may see it the -32020 with HTTP 400, and runs nothing", async () => {
    const { call } = await routeEndpoint();
    const mismatch = (message: string) => ({
      status: 400,
      contentType: "application/json",
      body: { jsonrpc: "2.0", id: 1, error: { code: -32020, message } },
    });
    expect(await call("t-admin", {})).toEqual(mismatch("Missing required header Mcp-Param-Region"));
    expect(await call("t-admin", { "mcp-param-region": "us-east-1" })).toEqual(
      mismatch("Header Mcp-Param-Region does not match arguments.region"),
    );
    expect((await call("t-admin", { "mcp-param-region": "=?base64?!!?=" })).body).toMatchObject({
      error: { code: -32020 },
    });
    const matching = await call("t-admin", { "mcp-param-region": "eu-west-1" });
    expect(matching.status).toBe(200);
    expect((matching.body as { result: unknown }).result).toMatchObject({
      content: [{ type: "text", text: "routed to eu-west-1" }],
    });
  });

  it("asks the visible rule once per call, tasks enabled or not", async () => {
    for (const tasks of [false, true]) {
      const { call, ruled } = await routeEndpoint({ tasks });
      await call("t-admin", { "mcp-param-region": "eu-west-1" });
      await call("t-member", { "mcp-param-region": "us-east-1" });
      expect(ruled).toEqual(["ada", "bob"]);
    }
  });
});
