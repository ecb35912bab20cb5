// What the task notification tests share: two principals, the extension's capability, and a
// listen stream opened straight on a server's dispatcher that records what it carries.
import type { MCPServer } from "../../../src/server/index.js";
import type { JSONRPCNotification, JSONRPCResponse } from "../../../src/types/index.js";
import { TASKS_EXTENSION } from "../../../src/types/tasks.js";
import { request } from "../../helpers.js";

export const TASKS = { extensions: { [TASKS_EXTENSION]: {} } };
export const ALICE = { clientId: "app", subject: "alice", scopes: [] as readonly string[], token: "a" };
export const BOB = { clientId: "app", subject: "bob", scopes: [] as readonly string[], token: "b" };

/** Opens a listen stream and collects what it carries until it ends. */
export function listen(
  mcp: MCPServer,
  notifications: Record<string, unknown>,
  caps: object,
  authInfo?: typeof ALICE,
) {
  const seen: JSONRPCNotification[] = [];
  const controller = new AbortController();
  const done: Promise<JSONRPCResponse | undefined> = mcp.dispatch(
    request("subscriptions/listen", { notifications }, caps as never, "listen-1"),
    { authInfo, signal: controller.signal, notify: async (n) => void seen.push(n) },
  );
  return { seen, done, stop: () => controller.abort() };
}

export const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

/** Waits (bounded) until `check` holds: for work that runs on timers of its own. */
export async function until(check: () => boolean, timeoutMs = 2_000): Promise<void> {
  for (const started = Date.now(); !check(); await settle()) {
    if (Date.now() - started > timeoutMs) throw new Error("condition not reached in time");
  }
}

/** The `notifications` a stream's acknowledgement carried (fails when there was none). */
export function acknowledged(seen: JSONRPCNotification[]): unknown {
  const ack = seen.find((n) => n.method === "notifications/subscriptions/acknowledged");
  if (!ack) throw new Error("no acknowledgement");
  return (ack.params as { notifications: unknown }).notifications;
}
