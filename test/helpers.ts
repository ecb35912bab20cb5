import type { IncomingMessage } from "node:http";
import { afterAll, beforeAll } from "vitest";
import type { Logger } from "../src/server/context.js";
import type { WireDirection } from "../src/transports/memory.js";
import type { ClientCapabilities, JSONRPCMessage, JSONRPCResponse } from "../src/types/index.js";

export const V = "2026-07-28";

/** A valid modern `_meta` envelope. */
export function meta(capabilities: ClientCapabilities = {}, extra: Record<string, unknown> = {}) {
  return {
    "io.modelcontextprotocol/protocolVersion": V,
    "io.modelcontextprotocol/clientCapabilities": capabilities,
    "io.modelcontextprotocol/clientInfo": { name: "test-client", version: "1.0.0" },
    ...extra,
  };
}

let nextId = 1;

/** A modern JSON-RPC request with a valid envelope. */
export function request(
  method: string,
  params: Record<string, unknown> = {},
  capabilities: ClientCapabilities = {},
  id: number | string = nextId++,
) {
  return { jsonrpc: "2.0" as const, id, method, params: { ...params, _meta: meta(capabilities) } };
}

/** The `result` of a response, failing the test if it is an error. */
export function resultOf(response: JSONRPCResponse | undefined): Record<string, unknown> {
  if (!response || !("result" in response))
    throw new Error(`expected a result, got ${JSON.stringify(response)}`);
  return response.result as Record<string, unknown>;
}

/** The `error` of a response, failing the test if it is a result. */
export function errorOf(response: JSONRPCResponse | undefined): {
  code: number;
  message: string;
  data?: unknown;
} {
  if (!response || !("error" in response))
    throw new Error(`expected an error, got ${JSON.stringify(response)}`);
  return response.error as { code: number; message: string; data?: unknown };
}

/** A logger that records what it is told. */
export function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    debug: (m) => lines.push(`debug: ${m}`),
    info: (m) => lines.push(`info: ${m}`),
    warn: (m) => lines.push(`warn: ${m}`),
    error: (m) => lines.push(`error: ${m}`),
  };
}

/** Records every message crossing an in-memory wire. */
export function wireTap() {
  const messages: { direction: WireDirection; message: JSONRPCMessage }[] = [];
  return {
    messages,
    onWire: (direction: WireDirection, message: JSONRPCMessage) => messages.push({ direction, message }),
    sent: () =>
      messages
        .filter((m) => m.direction === "client→server")
        .map((m) => m.message as Record<string, unknown>),
    received: () =>
      messages
        .filter((m) => m.direction === "server→client")
        .map((m) => m.message as Record<string, unknown>),
  };
}

/**
 * Every promise rejection nobody handled while the calling test file runs: a fuzz test ends by
 * expecting none (registered in beforeAll, removed in afterAll).
 */
export function unhandledRejections(): unknown[] {
  const seen: unknown[] = [];
  const record = (reason: unknown) => seen.push(reason);
  beforeAll(() => {
    process.on("unhandledRejection", record);
  });
  afterAll(() => {
    process.off("unhandledRejection", record);
  });
  return seen;
}

/** A promise and what settles it: for a test to wait on something another part of the system does. */
export function signalled(): { readonly done: Promise<void>; readonly fire: () => void } {
  let fire!: () => void;
  const done = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { done, fire };
}

/** Reads a hand-written test server's request body as one JSON-RPC message, then hands it on. */
export function onJsonMessage(
  req: IncomingMessage,
  handle: (message: { id?: unknown; method?: string }) => void,
): void {
  let text = "";
  req.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  req.on("end", () => handle(JSON.parse(text)));
}
