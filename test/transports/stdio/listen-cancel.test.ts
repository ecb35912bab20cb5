// Spec §1.7/§3.3/§3.5: over stdio a client ends a `subscriptions/listen` stream by sending
// `notifications/cancelled` naming the listen request's id. The server must then send nothing more
// for it (no further tagged notification, and no response: a cancelled request gets none), leave
// other streams alone, and keep serving. Checked against a real child process, on raw stdout lines.
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { killSpawned, RawServer, until } from "./helpers.js";

const LISTEN_SERVER = fileURLToPath(new URL("../../fixtures/stdio/listen-server.ts", import.meta.url));
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const SERVER_INFO = { "io.modelcontextprotocol/serverInfo": { name: "Listener", version: "1.0.0" } };
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

afterEach(killSpawned);

/** The listen fixture, spawned by hand: raw stdin writes, raw stdout lines. */
class ListenChild extends RawServer {
  constructor() {
    super({}, LISTEN_SERVER);
  }

  /** Parsed stdout messages from line `from` on. */
  messages(from = 0): Record<string, unknown>[] {
    return this.lines.slice(from).map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  /** Waits for the line answering request `id`, returning the index just past it. */
  async answered(id: number | string): Promise<number> {
    await until(() => this.messages().some((m) => m.id === id && !("method" in m)), `the answer to ${id}`);
    return this.messages().findIndex((m) => m.id === id && !("method" in m)) + 1;
  }
}

const listen = (id: number | string, notifications: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "subscriptions/listen",
  params: { _meta: ENVELOPE, notifications },
});
const callTool = (id: number, name: string, args?: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, ...(args ? { arguments: args } : {}), _meta: ENVELOPE },
});
const cancelled = (requestId: number | string, reason?: string) => ({
  jsonrpc: "2.0",
  method: "notifications/cancelled",
  params: reason === undefined ? { requestId } : { requestId, reason },
});
const ack = (id: number | string, notifications: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  method: "notifications/subscriptions/acknowledged",
  params: { _meta: { [SUBSCRIPTION_ID]: id }, notifications },
});
const changed = (id: number | string, what: "tools" | "prompts") => ({
  jsonrpc: "2.0",
  method: `notifications/${what}/list_changed`,
  params: { _meta: { [SUBSCRIPTION_ID]: id } },
});
const toolResult = (id: number, name: string) => ({
  jsonrpc: "2.0",
  id,
  result: {
    content: [{ type: "text", text: `${name} published` }],
    resultType: "complete",
    _meta: SERVER_INFO,
  },
});

describe("ending a subscriptions/listen stream with notifications/cancelled over stdio", () => {
  it("sends nothing more for the cancelled stream, not even a response, and keeps serving", async () => {
    const server = new ListenChild();
    server.write(listen("L-1", { toolsListChanged: true }));
    await until(() => server.lines.length >= 1, "the acknowledgement");
    expect(server.messages()).toEqual([ack("L-1", { toolsListChanged: true })]);

    // The stream is live: a change reaches it, tagged with the listen id, before the tool's answer.
    server.write(callTool(1, "change-tools"));
    await server.answered(1);
    expect(server.messages(1)).toEqual([changed("L-1", "tools"), toolResult(1, "change-tools")]);

    const before = server.lines.length;
    server.write(cancelled("L-1", "no longer interested"));
    server.write(callTool(2, "change-tools"));
    await server.answered(2);
    server.write({ jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: ENVELOPE } });
    await server.answered(3);
    // Give a late write for L-1 (a list_changed or the graceful result) the chance to show up.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const after = server.messages(before);
    expect(after.map((m) => m.id ?? m.method)).toEqual([2, 3]);
    expect(after[0]).toEqual(toolResult(2, "change-tools"));
    expect(after[1]).toMatchObject({ jsonrpc: "2.0", id: 3, result: { resultType: "complete" } });
    expect(server.lines.some((line) => line.includes('"L-1"') && line.includes('"result"'))).toBe(false);
    expect(server.partial).toBe("");

    // Still alive and well-behaved: it exits cleanly on EOF.
    server.child.stdin.end();
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.stderr).toContain("closed");
    expect(server.stderr).not.toContain("[roundtrip]"); // no warning or error was logged on the way
  });

  it("ends only the stream it names: another open stream keeps receiving", async () => {
    const server = new ListenChild();
    server.write(listen(10, { toolsListChanged: true }));
    server.write(listen(11, { toolsListChanged: true, promptsListChanged: true }));
    await until(() => server.lines.length >= 2, "both acknowledgements");
    expect(server.messages()).toEqual([
      ack(10, { toolsListChanged: true }),
      ack(11, { toolsListChanged: true, promptsListChanged: true }),
    ]);

    server.write(cancelled(10));
    // One at a time: requests run concurrently, so two in flight could answer in either order.
    server.write(callTool(1, "change-tools"));
    await server.answered(1);
    server.write(callTool(2, "change-prompts"));
    await server.answered(2);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(server.messages(2)).toEqual([
      changed(11, "tools"),
      toolResult(1, "change-tools"),
      changed(11, "prompts"),
      toolResult(2, "change-prompts"),
    ]);
    server.child.stdin.end();
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });

  it('matches the id exactly: cancelling 7 leaves the stream listened for as "7" open', async () => {
    const server = new ListenChild();
    server.write(listen("7", { toolsListChanged: true }));
    await until(() => server.lines.length >= 1, "the acknowledgement");
    server.write(cancelled(7));
    server.write(callTool(1, "change-tools"));
    await server.answered(1);
    expect(server.messages()).toEqual([
      ack("7", { toolsListChanged: true }),
      changed("7", "tools"),
      toolResult(1, "change-tools"),
    ]);
    // Now the right id: the stream ends, and the next change goes nowhere.
    server.write(cancelled("7"));
    server.write(callTool(2, "change-tools"));
    await server.answered(2);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(server.messages(3)).toEqual([toolResult(2, "change-tools")]);
    server.child.stdin.end();
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });
});
