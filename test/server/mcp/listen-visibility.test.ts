// Per-caller lists on listen streams: the spec lets tools/list and prompts/list vary with the
// authorization on the request, and a hidden entry is answered exactly as one that does not exist.
// A caller's list does not change when an entry hidden from it does, so its listen stream must not
// hear of it either (that would tell it hidden entries exist, and when they change).
import { describe, expect, it } from "vitest";
import type { ServerEventBus, SharedServerEvent } from "../../../src/server/events.js";
import { silentLogger } from "../../../src/server/logger.js";
import { MCPServer } from "../../../src/server/mcp/mcp-server.js";
import type { AuthInfo } from "../../../src/shared/dispatch.js";
import type { JSONRPCNotification } from "../../../src/types/index.js";
import { request } from "../../helpers.js";

const admin: AuthInfo = { token: "t-admin", clientId: "app", scopes: ["admin"], subject: "ada" };
const member: AuthInfo = { token: "t-member", clientId: "app", scopes: [], subject: "bob" };
const isAdmin = (ctx: { authInfo?: AuthInfo }) => ctx.authInfo?.scopes.includes("admin") === true;
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
const FILTER = { toolsListChanged: true, promptsListChanged: true };

function listen(mcp: MCPServer, authInfo: AuthInfo, id: string) {
  const seen: JSONRPCNotification[] = [];
  const response = mcp.dispatch(request("subscriptions/listen", { notifications: FILTER }, {}, id), {
    notify: (n) => void seen.push(n),
    authInfo,
  });
  return { seen, response };
}

const change = (what: "tools" | "prompts", id: string) => ({
  jsonrpc: "2.0",
  method: `notifications/${what}/list_changed`,
  params: { _meta: { "io.modelcontextprotocol/subscriptionId": id } },
});

async function twoListeners(events?: ServerEventBus) {
  const mcp = new MCPServer("tenant", { logger: silentLogger, listChanged: true, events });
  mcp.tool("search", {}, () => "found");
  mcp.prompt("welcome", {}, () => "hi");
  await tick();
  const ada = listen(mcp, admin, "ada");
  const bob = listen(mcp, member, "bob");
  await tick();
  // Only the acknowledgements so far.
  ada.seen.splice(0);
  bob.seen.splice(0);
  return { mcp, ada, bob };
}

describe("list_changed on listen streams with per-caller tools and prompts", () => {
  it("tells only the callers who can see it that a hidden tool or prompt was added or removed", async () => {
    const { mcp, ada, bob } = await twoListeners();
    mcp.tool("purge", { visible: isAdmin }, () => "purged");
    await tick();
    mcp.prompt("audit", { visible: isAdmin }, () => "audit trail");
    await tick();
    mcp.removeTool("purge");
    await tick();
    mcp.removePrompt("audit");
    await tick();
    expect(ada.seen).toEqual([
      change("tools", "ada"),
      change("prompts", "ada"),
      change("tools", "ada"),
      change("prompts", "ada"),
    ]);
    expect(bob.seen).toEqual([]);
    mcp.server.closeSubscriptions();
  });

  it("tells everyone of an entry without a rule, and merges a run's changes for whoever sees any", async () => {
    const { mcp, ada, bob } = await twoListeners();
    mcp.tool("lookup", {}, () => "looked up");
    await tick();
    // One synchronous run: a hidden and a public tool make one announcement, which both hear.
    mcp.tool("wipe", { visible: isAdmin }, () => "wiped");
    mcp.tool("fetch", {}, () => "fetched");
    await tick();
    // Two hidden ones: one announcement, for the admin only.
    mcp.removeTool("wipe");
    mcp.tool("drop", { visible: isAdmin }, () => "dropped");
    await tick();
    expect(ada.seen).toEqual([change("tools", "ada"), change("tools", "ada"), change("tools", "ada")]);
    expect(bob.seen).toEqual([change("tools", "bob"), change("tools", "bob")]);
    mcp.server.closeSubscriptions();
  });

  it("hides a change from a caller whose visibility rule throws (deny on error, as for tools/list)", async () => {
    const { mcp, ada, bob } = await twoListeners();
    mcp.tool(
      "flaky",
      {
        visible: () => {
          throw new Error("directory down");
        },
      },
      () => "never",
    );
    await tick();
    expect(ada.seen).toEqual([]);
    expect(bob.seen).toEqual([]);
    mcp.server.closeSubscriptions();
  });
});

describe("list_changed of a hidden entry over an events bus", () => {
  it("puts only the plain event on the bus, which a structured clone takes, and every stream hears it", async () => {
    // The rule is code: it cannot cross to other instances, so a fleet tells every stream.
    const published: SharedServerEvent[] = [];
    const listeners = new Set<(event: SharedServerEvent) => void>();
    const bus: ServerEventBus = {
      publish: (event) => {
        const copy = structuredClone(event);
        published.push(copy);
        for (const listener of listeners) listener(copy);
      },
      subscribe: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
    const { mcp, ada, bob } = await twoListeners(bus);
    published.splice(0);
    mcp.tool("purge", { visible: isAdmin }, () => "purged");
    await tick();
    expect(published).toEqual([{ kind: "toolsListChanged" }]);
    expect(ada.seen).toEqual([change("tools", "ada")]);
    expect(bob.seen).toEqual([change("tools", "bob")]);
    mcp.server.closeSubscriptions();
  });
});
