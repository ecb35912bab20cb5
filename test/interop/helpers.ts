// Wire capture for the interop tests: a recording `fetch` for the official client, a recording
// fetch handler for servers mounted behind node:http, and stdio transcripts written by the fixtures.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FetchHandler } from "../../src/transports/http/handler.js";
import { toNodeListener } from "../../src/transports/http/node.js";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/interop/${name}`, import.meta.url));
export const OUR_STDIO_SERVER = fixture("our-stdio-server.ts");
export const THEIR_STDIO_SERVER = fixture("their-stdio-server.ts");
/** `node --import tsx <file> …args`: how fixtures are spawned (see test/fixtures/stdio). */
export const nodeArgs = (file: string, ...args: string[]) => ["--import", "tsx", file, ...args];

export const PROTOCOL_VERSION = "2026-07-28";

/** A JSON-RPC message as seen on the wire (loosely typed: the tests assert its shape). */
export interface WireMessage {
  jsonrpc?: string;
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown> & {
    requestState?: string;
    inputResponses?: Record<string, unknown>;
    _meta?: Record<string, unknown>;
  };
  result?: Record<string, unknown> & {
    resultType?: string;
    requestState?: string;
    inputRequests?: Record<string, { method: string; params?: Record<string, unknown> }>;
  };
  error?: { code: number; message: string; data?: unknown };
}

/** One HTTP POST and its answer. */
export interface Exchange {
  readonly httpMethod: string;
  /** Request headers, names lower-cased. */
  readonly headers: Record<string, string>;
  /** The request body as sent (byte-exact text). */
  readonly rawBody: string;
  readonly body: WireMessage;
  readonly status: number;
  readonly contentType: string;
  /** The JSON-RPC response (the last message of an SSE stream), if any. */
  readonly response: WireMessage | undefined;
}

function headerRecord(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, key) => {
    out[key] = value;
  });
  return out;
}

function parseJson(text: string): WireMessage | undefined {
  try {
    return JSON.parse(text) as WireMessage;
  } catch {
    return undefined;
  }
}

/** The JSON-RPC response in a body: plain JSON, or the last `data:` event of an SSE stream. */
function responseOf(contentType: string, text: string): WireMessage | undefined {
  if (!contentType.startsWith("text/event-stream")) return parseJson(text);
  const events = text
    .split("\n")
    .filter((line) => line.startsWith("data:"))
    .map((line) => parseJson(line.slice(5).trim()))
    .filter((message): message is WireMessage => message !== undefined && "id" in message);
  return events.at(-1);
}

async function record(request: Request, response: Response): Promise<Exchange> {
  const rawBody = request.method === "POST" ? await request.clone().text() : "";
  const contentType = response.headers.get("content-type") ?? "";
  const text = response.body === null ? "" : await response.clone().text();
  return {
    httpMethod: request.method,
    headers: headerRecord(request.headers),
    rawBody,
    body: parseJson(rawBody) ?? {},
    status: response.status,
    contentType,
    response: responseOf(contentType, text),
  };
}

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * A `fetch` that records every exchange (for the official client's `fetch` option). `rewrite` may
 * replace an outgoing body (a man in the middle); `after` runs once each answer is recorded.
 */
export function recordingFetch(
  hooks: {
    rewrite?: (body: WireMessage) => WireMessage | undefined;
    after?: (exchange: Exchange) => void;
  } = {},
): { fetch: FetchLike; exchanges: Exchange[] } {
  const exchanges: Exchange[] = [];
  const wrapped: FetchLike = async (url, init) => {
    let request = new Request(url, init);
    if (hooks.rewrite && request.method === "POST") {
      const original = parseJson(await request.clone().text());
      const replaced = original && hooks.rewrite(original);
      if (replaced) request = new Request(request, { body: JSON.stringify(replaced) });
    }
    const response = await fetch(request.clone());
    const exchange = await record(request, response);
    exchanges.push(exchange);
    hooks.after?.(exchange);
    return response;
  };
  return { fetch: wrapped, exchanges };
}

/** Wraps a fetch handler so every exchange it serves is recorded (server-side capture). */
export function recordingHandler(handler: FetchHandler): { handler: FetchHandler; exchanges: Exchange[] } {
  const exchanges: Exchange[] = [];
  return {
    exchanges,
    handler: async (request) => {
      const copy = request.clone();
      const response = await handler(request);
      exchanges.push(await record(copy, response));
      return response;
    },
  };
}

/** Mounts a web fetch handler on node:http at 127.0.0.1 (any port), through our `toNodeListener`. */
export async function listen(handler: FetchHandler): Promise<{ url: URL; close: () => Promise<void> }> {
  const listener = toNodeListener(handler);
  const server = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** The JSON-RPC POSTs of one method, in order. */
export const posts = (exchanges: readonly Exchange[], method: string): Exchange[] =>
  exchanges.filter((exchange) => exchange.body.method === method);

/** Changes one character in the middle of a token (every bit there is significant). */
export function tamper(token: string): string {
  const at = Math.floor(token.length / 2);
  return `${token.slice(0, at)}${token[at] === "A" ? "B" : "A"}${token.slice(at + 1)}`;
}

/** The `_meta` envelope keys of 2026-07-28 a request must carry. */
export function envelopeOf(message: WireMessage): { version: unknown; capabilities: unknown } {
  const meta = message.params?._meta ?? {};
  return {
    version: meta["io.modelcontextprotocol/protocolVersion"],
    capabilities: meta["io.modelcontextprotocol/clientCapabilities"],
  };
}

// ---- stdio transcripts -------------------------------------------------------------------------

/** What one fixture process read (`in`) and wrote (`out`), as parsed JSON-RPC lines. */
export interface ProcessTranscript {
  readonly pid: number;
  readonly in: WireMessage[];
  readonly out: WireMessage[];
  /** The raw lines, byte-exact, for echo checks. */
  readonly rawIn: string[];
}

const transcriptDirs: string[] = [];

/** A fresh transcript path (in a temp dir removed by `cleanupTranscripts`). */
export function newTranscript(): string {
  const dir = mkdtempSync(join(tmpdir(), "roundtrip-interop-"));
  transcriptDirs.push(dir);
  return join(dir, "transcript.ndjson");
}

interface Chunk {
  pid: number;
  dir: "start" | "in" | "out";
  data: string;
}

function chunksOf(path: string): Chunk[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Chunk);
}

/** The transcript, one entry per fixture process, in start order. */
export function readTranscript(path: string): ProcessTranscript[] {
  const byPid = new Map<number, { in: string; out: string }>();
  for (const chunk of chunksOf(path)) {
    const entry = byPid.get(chunk.pid) ?? { in: "", out: "" };
    byPid.set(chunk.pid, entry);
    if (chunk.dir === "in") entry.in += chunk.data;
    if (chunk.dir === "out") entry.out += chunk.data;
  }
  const lines = (text: string) => text.split("\n").filter((line) => line.trim().length > 0);
  return [...byPid].map(([pid, entry]) => ({
    pid,
    rawIn: lines(entry.in),
    in: lines(entry.in).map((line) => JSON.parse(line) as WireMessage),
    out: lines(entry.out).map((line) => JSON.parse(line) as WireMessage),
  }));
}

/** SIGKILLs any fixture process still alive and removes the transcripts (afterEach). */
export function cleanupTranscripts(): void {
  for (const dir of transcriptDirs.splice(0)) {
    for (const chunk of chunksOf(join(dir, "transcript.ndjson"))) {
      if (chunk.dir !== "start") continue;
      try {
        process.kill(chunk.pid, "SIGKILL");
      } catch {
        // Already exited.
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Polls until `check` holds (stdio processes record their last chunks asynchronously). */
export async function until(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
