import { SseParser } from "../../src/transports/http/sse.js";
import type { ClientCapabilities } from "../../src/types/index.js";
import { CLIENT_INFO } from "./helpers.js";

export const ACCEPT = "application/json, text/event-stream";

/** A 2025 `initialize` request, as a client with these capabilities sends it. */
export function initializeRequest(capabilities: ClientCapabilities = {}, id = 1) {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities, clientInfo: CLIENT_INFO },
  };
}

/** One raw POST, as a hand-written 2025 client sends it. */
export function post(url: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: ACCEPT, ...headers },
    body: JSON.stringify(body),
    signal,
  });
}

/** `initialize` + `notifications/initialized`; the session id and the initialize response. */
export async function openSession(
  url: string,
  capabilities: ClientCapabilities = { elicitation: {} },
  headers = {},
) {
  const response = await post(url, initializeRequest(capabilities), headers);
  const id = response.headers.get("mcp-session-id") ?? "";
  const body = (await response.json()) as Record<string, unknown>;
  const sessionHeaders = { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25", ...headers };
  const ready = await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, sessionHeaders);
  return { id, status: response.status, body, headers: sessionHeaders, readyStatus: ready.status };
}

/** Reads an SSE body event by event (JSON-decoded). */
export function sseMessages(response: Response): AsyncGenerator<Record<string, unknown>> {
  const reader = response.body?.getReader();
  const queue: Record<string, unknown>[] = [];
  const parser = new SseParser((event) => {
    if (event.data !== "") queue.push(JSON.parse(event.data) as Record<string, unknown>);
  });
  return (async function* () {
    if (!reader) return;
    for (;;) {
      while (queue.length > 0) yield queue.shift() as Record<string, unknown>;
      const { done, value } = await reader.read();
      if (done) break;
      parser.push(value);
    }
    while (queue.length > 0) yield queue.shift() as Record<string, unknown>;
  })();
}
