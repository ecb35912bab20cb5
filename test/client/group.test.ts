// ClientSessionGroup: three real servers as one — the official SDK's modern server over HTTP on
// loopback (every exchange recorded), the official SDK's 2025 server in a child process over stdio,
// and our MCPServer in memory — with calls routed by group name, the manual loop forwarded, and
// every refusal (collisions, unknown names, strangers) answered without touching the group.
import { execFileSync } from "node:child_process";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { Client } from "../../src/client/client.js";
import { ClientSessionGroup } from "../../src/client/group.js";
import type { ElicitationCallback } from "../../src/client/index.js";
import { silentLogger } from "../../src/server/logger.js";
import { MCPServer } from "../../src/server/mcp/mcp-server.js";
import { Server } from "../../src/server/server.js";
import { ConnectionClosedError } from "../../src/shared/errors.js";
import { type ElicitResult, ErrorCode, type InputRequiredResult, McpError } from "../../src/types/index.js";
import { buildTheirServer } from "../fixtures/interop/their-server.js";
import { type Exchange, listen, posts, recordingHandler } from "../interop/helpers.js";
import { killSpawned, OFFICIAL_LEGACY, spawnTarget, until } from "../legacy/stdio-helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  killSpawned();
});

const elicitation: ElicitationCallback = async (_ctx, params): Promise<ElicitResult> => {
  const message = (params as { message: string }).message;
  if (message === "Which region?") return { action: "accept", content: { region: "eu-west-1" } };
  if (message === "Who is the briefing for?") return { action: "accept", content: { audience: "the board" } };
  return { action: "decline" };
};

const prefixed = (name: string, info: { name: string } | undefined) => `${info?.name}.${name}`;
const textOf = (result: { content: unknown[] }) =>
  (result.content as { type: string; text?: string }[]).map((block) => block.text ?? "").join("");

/** The official SDK's modern server on 127.0.0.1, every exchange recorded server-side. */
async function theirHttp(): Promise<{ url: URL; exchanges: Exchange[] }> {
  const handler = createMcpHandler(() => buildTheirServer({}), { responseMode: "json" });
  const recorded = recordingHandler((request) => handler.fetch(request));
  const server = await listen(recorded.handler);
  cleanups.push(async () => {
    await server.close();
    await handler.close();
  });
  return { url: server.url, exchanges: recorded.exchanges };
}

/** Our MCPServer with a provision tool, a prompt and a resource; `seen` lists every method it served. */
function ours(name = "ours") {
  const seen: string[] = [];
  const mcp = new MCPServer(name, { logger: silentLogger });
  mcp.server.middleware.push((ctx, next) => {
    seen.push(ctx.method);
    return next(ctx);
  });
  mcp.tool("provision", { input: z.object({ name: z.string() }) }, async ({ name }) => `Ours made ${name}.`);
  mcp.prompt("welcome", {}, async () => "Welcome aboard.");
  mcp.resource("notes://today", { name: "today" }, async () => "nothing planned");
  return { mcp, seen };
}

/** A client of its own (never closed by a group) to a server with one tool, `tool`, answering its name. */
async function openClient(server: string, tool: string): Promise<Client> {
  const client = await Client.connect(openClientServer(server, tool));
  cleanups.push(() => client.close());
  return client;
}

/** A server with one tool, `tool`, answering its name (for the group to connect to itself). */
function openClientServer(server: string, tool: string): MCPServer {
  const mcp = new MCPServer(server, { logger: silentLogger });
  mcp.tool(tool, {}, async () => tool);
  return mcp;
}

/** This process's child processes (the stdio servers still running). */
const children = () =>
  execFileSync("ps", ["-o", "pid=", "--ppid", String(process.pid)], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.trim() !== "");

function group(options: ConstructorParameters<typeof ClientSessionGroup>[0] = {}) {
  const made = new ClientSessionGroup(options);
  cleanups.push(() => made.close());
  return made;
}

describe("ClientSessionGroup over three real servers of both eras", () => {
  it("lists every member's components under the hook's names and routes each call to its server", async () => {
    const their = await theirHttp();
    const ourServer = ours();
    const members = group({ componentNameHook: prefixed });
    const theirClient = await members.connect(their.url, { elicitation });
    const legacyClient = await members.connect(spawnTarget(OFFICIAL_LEGACY), { elicitation });
    const ourClient = await members.connect(ourServer.mcp, { elicitation });

    expect(theirClient.era).toBe("modern");
    expect(legacyClient.era).toBe("legacy");
    expect(members.clients).toEqual([theirClient, legacyClient, ourClient]);
    const toolNames = [...members.tools.keys()];
    expect(toolNames).toContain("their-provisioner.provision");
    expect(toolNames).toContain("official-legacy.provision");
    expect(toolNames).toContain("ours.provision");
    // Each Tool keeps its server's own name; the group's name is only the key.
    expect(members.tools.get("official-legacy.provision")?.name).toBe("provision");
    expect([...members.prompts.keys()]).toEqual(
      expect.arrayContaining(["their-provisioner.briefing", "ours.welcome"]),
    );
    expect(members.resources.get("ours.today")?.uri).toBe("notes://today");
    expect(members.clientFor("resources", "ours.today")).toBe(ourClient);
    expect(members.clientFor("tools", "official-legacy.provision")).toBe(legacyClient);
    expect(members.clientFor("tools", "provision")).toBeUndefined();

    const before = posts(their.exchanges, "tools/call").length;
    expect(textOf(await members.callTool("their-provisioner.provision", { name: "orders" }))).toBe(
      "Provisioned orders in eu-west-1.",
    );
    expect(textOf(await members.callTool("official-legacy.provision", { name: "orders" }))).toBe(
      "Official provisioned orders in eu-west-1.",
    );
    expect(textOf(await members.callTool("ours.provision", { name: "orders" }))).toBe("Ours made orders.");

    // On the wire of the HTTP member: its own tool name, two legs (the input_required round, then
    // the retry with the answer), and nothing of the other members' calls.
    const calls = posts(their.exchanges, "tools/call").slice(before);
    expect(calls.map((exchange) => exchange.body.params?.name)).toEqual(["provision", "provision"]);
    expect(calls.map((exchange) => exchange.headers["mcp-name"])).toEqual(["provision", "provision"]);
    expect(calls[0]?.response?.result?.resultType).toBe("input_required");
    expect(calls[1]?.body.params?.inputResponses).toEqual({
      region: { action: "accept", content: { region: "eu-west-1" } },
    });
    expect(ourServer.seen.filter((method) => method === "tools/call")).toHaveLength(1);

    const prompt = await members.getPrompt("their-provisioner.briefing");
    expect(prompt.messages[0]?.content).toEqual({ type: "text", text: "Write a briefing for the board." });
    expect(posts(their.exchanges, "prompts/get").at(-1)?.body.params?.name).toBe("briefing");
  });

  it("forwards allowInputRequired: one leg at a time, retried through the group", async () => {
    const their = await theirHttp();
    const members = group({ componentNameHook: prefixed });
    // The callback declares the capability; the manual legs below never call it.
    await members.connect(their.url, { elicitation });
    const first = await members.callTool(
      "their-provisioner.provision",
      { name: "orders" },
      { allowInputRequired: true },
    );
    expect(first.resultType).toBe("input_required");
    const round = first as InputRequiredResult;
    expect(Object.keys(round.inputRequests ?? {})).toEqual(["region"]);
    const done = await members.callTool(
      "their-provisioner.provision",
      { name: "orders" },
      {
        allowInputRequired: true,
        inputResponses: { region: { action: "accept", content: { region: "ap-south-1" } } },
        ...(round.requestState === undefined ? {} : { requestState: round.requestState }),
      },
    );
    expect(textOf(done as { content: unknown[] })).toBe("Provisioned orders in ap-south-1.");
    const legs = posts(their.exchanges, "tools/call");
    expect(legs).toHaveLength(2);
    expect(legs[1]?.body.params?.inputResponses).toEqual({
      region: { action: "accept", content: { region: "ap-south-1" } },
    });

    const prompt = await members.getPrompt("their-provisioner.briefing", undefined, {
      allowInputRequired: true,
    });
    expect(prompt.resultType).toBe("input_required");
    expect(Object.keys((prompt as InputRequiredResult).inputRequests ?? {})).toEqual(["audience"]);
    // Without the flag, the member's automatic loop answers the round with its callback.
    const briefing = await members.getPrompt("their-provisioner.briefing");
    expect(briefing.messages[0]?.content).toEqual({ type: "text", text: "Write a briefing for the board." });
    expect(posts(their.exchanges, "prompts/get")).toHaveLength(3);
  });
});

describe("ClientSessionGroup refusals", () => {
  it("refuses a second server that brings a name the group has, closes it, and keeps the group", async () => {
    const members = group();
    const first = await members.connect(ours("a").mcp);
    const second = ours("b");
    const refusal = await members.connect(second.mcp).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(McpError);
    expect((refusal as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((refusal as McpError).message).toBe(
      `Already in the group's tools: "provision" (a componentNameHook can give each server's names a prefix)`,
    );
    expect(members.clients).toEqual([first]);
    expect(members.clientFor("tools", "provision")).toBe(first);
    expect(members.clientFor("prompts", "welcome")).toBe(first);
    // The refused client was the group's to close: the second server served its lists and nothing more.
    expect(second.seen).toEqual(expect.arrayContaining(["tools/list", "prompts/list", "resources/list"]));
    expect(second.seen.filter((method) => !method.endsWith("/list") && method !== "server/discover")).toEqual(
      [],
    );
  });

  it("closes the process of a server it refused", async () => {
    const members = group();
    await members.connect(spawnTarget(OFFICIAL_LEGACY), { elicitation });
    const running = children().length;
    await expect(members.connect(spawnTarget(OFFICIAL_LEGACY), { elicitation })).rejects.toThrow(
      `Already in the group's tools: "provision"`,
    );
    await until(() => children().length === running, "the refused server's process to end");
    expect(textOf(await members.callTool("provision", { name: "orders" }))).toBe(
      "Official provisioned orders in eu-west-1.",
    );
  });

  it("refuses a client added by hand without closing it", async () => {
    const members = group();
    await members.connect(ours("a").mcp);
    const mine = await Client.connect(ours("b").mcp);
    cleanups.push(() => mine.close());
    await expect(members.add(mine)).rejects.toThrow(/Already in the group's tools: "provision"/);
    expect(textOf(await mine.callTool("provision", { name: "x" }))).toBe("Ours made x.");
    expect(members.clients).toHaveLength(1);
  });

  it("lets only one of two servers racing for a name join", async () => {
    const members = group();
    const outcomes = await Promise.allSettled([
      members.connect(ours("a").mcp),
      members.connect(ours("b").mcp),
    ]);
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.status === "rejected")).toHaveLength(1);
    expect(members.clients).toHaveLength(1);
    expect(members.tools.size).toBe(1);
  });

  it("refuses two of one server's names that the hook maps together", async () => {
    const mcp = new MCPServer("twins", { logger: silentLogger });
    mcp.tool("a", {}, async () => "a");
    mcp.tool("b", {}, async () => "b");
    const members = group({ componentNameHook: () => "same" });
    await expect(members.connect(mcp)).rejects.toThrow(
      new McpError(ErrorCode.InvalidParams, `Two of this server's tools are both named "same" in the group`),
    );
    const blank = group({ componentNameHook: () => "" });
    await expect(blank.connect(mcp)).rejects.toThrow(
      new TypeError(`componentNameHook must return a non-empty string for "a"`),
    );
    expect(members.clients).toEqual([]);
  });

  it("answers unknown names, strangers and repeat members with -32602, sending nothing", async () => {
    const server = ours();
    const members = group();
    const member = await members.connect(server.mcp);
    const sent = server.seen.length;
    await expect(members.callTool("nope", {})).rejects.toThrow(
      new McpError(ErrorCode.InvalidParams, "Unknown tool in the group: nope"),
    );
    await expect(members.getPrompt("provision")).rejects.toThrow(
      new McpError(ErrorCode.InvalidParams, "Unknown prompt in the group: provision"),
    );
    const stranger = await Client.connect(ours("x").mcp);
    cleanups.push(() => stranger.close());
    await expect(members.disconnect(stranger)).rejects.toThrow(
      new McpError(ErrorCode.InvalidParams, "This client is not a member of the group (or already left it)"),
    );
    await expect(members.refresh(stranger)).rejects.toThrow(McpError);
    await expect(members.add(member)).rejects.toThrow(
      new McpError(ErrorCode.InvalidParams, "This client is already a member of the group"),
    );
    expect(server.seen.length).toBe(sent);
  });
});

describe("ClientSessionGroup membership over time", () => {
  it("disconnect takes a member's names out, closing it only if the group opened it", async () => {
    const members = group();
    const owned = await members.connect(ours("a").mcp);
    const added = await members.add(await openClient("b", "other"));
    expect([...members.tools.keys()]).toEqual(["provision", "other"]);

    await members.disconnect(added);
    expect([...members.tools.keys()]).toEqual(["provision"]);
    expect(textOf(await added.callTool("other"))).toBe("other");
    await expect(members.callTool("other")).rejects.toThrow("Unknown tool in the group: other");

    await members.disconnect(owned);
    expect(members.tools.size).toBe(0);
    expect(members.prompts.size).toBe(0);
    expect(members.resources.size).toBe(0);
    await expect(owned.callTool("provision", { name: "x" })).rejects.toThrow();
    await expect(members.disconnect(owned)).rejects.toThrow(/not a member/);
  });

  it("refresh replaces one member's lists; a collision or a failed read keeps the old ones", async () => {
    const a = ours("a");
    const members = group();
    const clientA = await members.connect(a.mcp);
    const b = new MCPServer("b", { logger: silentLogger });
    b.tool("deploy", {}, async () => "deployed");
    const clientB = await members.connect(b);

    a.mcp.tool("audit", {}, async () => "audited");
    a.mcp.removeTool("provision");
    await members.refresh(clientA);
    expect([...members.tools.keys()].sort()).toEqual(["audit", "deploy"]);
    expect(textOf(await members.callTool("audit"))).toBe("audited");

    a.mcp.tool("deploy", {}, async () => "shadow");
    await expect(members.refresh(clientA)).rejects.toThrow(`Already in the group's tools: "deploy"`);
    expect(members.clientFor("tools", "deploy")).toBe(clientB);
    expect(members.clientFor("tools", "audit")).toBe(clientA);

    await clientA.close();
    await expect(members.refresh(clientA)).rejects.toThrow();
    expect(members.clientFor("tools", "audit")).toBe(clientA);
  });

  it("a refresh that ends after its member left puts nothing back", async () => {
    let release: () => void = () => {};
    let gate: Promise<void> | undefined;
    const server = new Server("slow", {
      version: "1.0.0",
      logger: silentLogger,
      onListTools: async () => {
        await gate;
        return { tools: [{ name: "late", inputSchema: { type: "object" } }] };
      },
      onCallTool: () => ({ content: [] }),
    });
    const members = group();
    // Added by hand, so leaving the group does not close it and the read goes on.
    const member = await members.add(await Client.connect(server));
    cleanups.push(() => member.close());
    gate = new Promise((resolve) => {
      release = resolve;
    });
    const refreshing = members.refresh(member);
    await members.disconnect(member);
    release();
    await refreshing;
    expect(members.tools.size).toBe(0);
    expect(members.clients).toEqual([]);
  });

  it("close ends the clients it opened and leaves the ones added by hand open", async () => {
    const members = new ClientSessionGroup();
    const owned = await members.connect(ours("a").mcp);
    const added = await members.add(await openClient("b", "other"));
    await members.close();
    expect(members.clients).toEqual([]);
    expect(members.tools.size).toBe(0);
    await expect(owned.callTool("provision", { name: "x" })).rejects.toThrow();
    expect(textOf(await added.callTool("other"))).toBe("other");
  });

  it("takes a client added twice at once only once", async () => {
    const members = group();
    const client = await openClient("twice", "once");
    const outcomes = await Promise.allSettled([members.add(client), members.add(client)]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refusal = outcomes.find((outcome) => outcome.status === "rejected") as PromiseRejectedResult;
    expect(refusal.reason).toEqual(
      new McpError(ErrorCode.InvalidParams, "This client is already a member of the group"),
    );
    expect(members.clients).toEqual([client]);
    expect([...members.tools.keys()]).toEqual(["once"]);
  });

  it("close fails a connect still in flight, closes the process it started, and stays empty", async () => {
    const running = children().length;
    const members = new ClientSessionGroup();
    const joining = members.connect(spawnTarget(OFFICIAL_LEGACY), { elicitation });
    await members.close();
    const refusal = await joining.catch((error: unknown) => error);
    expect(refusal).toEqual(new ConnectionClosedError("The group was closed while connecting"));
    expect(refusal).toBeInstanceOf(ConnectionClosedError);
    expect(members.clients).toEqual([]);
    expect(members.tools.size).toBe(0);
    await until(() => children().length === running, "the late member's server process to end");
  });

  it("close fails an add still in flight and leaves that client open", async () => {
    const members = new ClientSessionGroup();
    const mine = await openClient("late", "still-mine");
    const joining = members.add(mine);
    await members.close();
    await expect(joining).rejects.toThrow(new ConnectionClosedError("The group was closed while connecting"));
    expect(members.clients).toEqual([]);
    expect(members.tools.size).toBe(0);
    expect(textOf(await mine.callTool("still-mine"))).toBe("still-mine");
  });

  it("close reports a client that failed to close, after closing the others", async () => {
    const members = new ClientSessionGroup();
    const failing = await members.connect(ours("a").mcp);
    const other = await members.connect(openClientServer("b", "other"));
    const close = failing.close.bind(failing);
    failing.close = async () => {
      await close();
      throw new Error("the transport would not close");
    };
    await expect(members.close()).rejects.toThrow("the transport would not close");
    expect(members.clients).toEqual([]);
    await expect(other.callTool("other")).rejects.toThrow();
  });

  it("add(client, serverInfo) names the client's components after the given info, refreshes too", async () => {
    const members = group({ componentNameHook: prefixed });
    const server = ours("unnamed-by-us");
    const client = await Client.connect(server.mcp);
    cleanups.push(() => client.close());
    await members.add(client, { name: "billing", version: "1" });
    expect([...members.tools.keys()]).toEqual(["billing.provision"]);
    server.mcp.tool("refund", {}, async () => "refunded");
    await members.refresh(client);
    expect([...members.tools.keys()].sort()).toEqual(["billing.provision", "billing.refund"]);
    expect(textOf(await members.callTool("billing.refund"))).toBe("refunded");
  });

  it("the maps it hands out are snapshots", async () => {
    const members = group();
    await members.connect(ours().mcp);
    (members.tools as Map<string, unknown>).delete("provision");
    expect(members.tools.has("provision")).toBe(true);
  });
});

describe("ClientSessionGroup and the lists a server can or cannot give", () => {
  it("reads only the lists a server declares, and joins without one it cannot read", async () => {
    const seen: string[] = [];
    const warnings: string[] = [];
    const server = new Server("partial", {
      version: "1.0.0",
      logger: silentLogger,
      onListTools: () => ({ tools: [{ name: "t", inputSchema: { type: "object" } }] }),
      onCallTool: () => ({ content: [] }),
      onListPrompts: () => {
        throw new McpError(ErrorCode.InternalError, "prompts are down");
      },
    });
    server.middleware.push((ctx, next) => {
      seen.push(ctx.method);
      return next(ctx);
    });
    const members = group({ onWarning: (message) => warnings.push(message) });
    await members.connect(server);
    expect([...members.tools.keys()]).toEqual(["t"]);
    expect(members.prompts.size).toBe(0);
    // No resources capability: no resources/list was sent.
    expect(seen.filter((method) => method.endsWith("/list")).sort()).toEqual(["prompts/list", "tools/list"]);
    expect(warnings).toEqual(["partial: could not read its prompts (prompts are down)"]);
  });

  it("stops at a server whose cursors loop or never end", async () => {
    const warnings: string[] = [];
    const server = new Server("looping", {
      version: "1.0.0",
      logger: silentLogger,
      onListTools: (_ctx, params) => ({
        tools: [{ name: `t${String(params.cursor ?? "")}`, inputSchema: { type: "object" } }],
        nextCursor: params.cursor === "1" ? "2" : "1",
      }),
      onCallTool: () => ({ content: [] }),
      onListPrompts: (_ctx, params) => ({
        prompts: [{ name: `p${String(params.cursor ?? "0")}` }],
        nextCursor: String(Number(params.cursor ?? 0) + 1),
      }),
    });
    const members = group({ onWarning: (message) => warnings.push(message), maxPages: 5 });
    await members.connect(server);
    expect(members.tools.size).toBe(0);
    expect(members.prompts.size).toBe(0);
    expect(warnings.sort()).toEqual([
      "looping: could not read its prompts (prompts: more than 5 pages)",
      'looping: could not read its tools (tools: the server repeated the cursor "1")',
    ]);
  });
});

describe("ClientSessionGroup's maxPages", () => {
  it.each([0, -1, 1.5, Number.NaN])(
    "%s is refused when the group is made, not met as every member's unreadable lists",
    (maxPages) => {
      expect(() => new ClientSessionGroup({ maxPages })).toThrow(
        new RangeError(`maxPages must be a positive integer, got ${maxPages}`),
      );
    },
  );
});
