/**
 * Helpers of node-direct.test.ts: raw requests over a socket (exact header pairs, chunked bodies),
 * the same request as a web `Request`, and the two socket mounts of one endpoint.
 */
import { createServer, request as httpRequest, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { createHttpHandler, type HttpHandlerOptions } from "../../../src/transports/http/handler.js";
import { type HttpServerHandle, serveHttp, toNodeListener } from "../../../src/transports/http/node.js";
import { meta, V } from "../../helpers.js";
import { makeServer, REGION_TOOL } from "./helpers.js";

export interface Raw {
  method?: string;
  /** Flat [name, value, …] as sent (no Host is added: give it, or leave it out on purpose). */
  headers: string[];
  body?: string | Buffer;
  /** Sent chunked, without a Content-Length. */
  chunks?: Buffer[];
  path?: string;
}

export interface Answer {
  status: number;
  headers: [string, string][];
  body: string;
}

export function send(port: number, raw: Raw): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: "127.0.0.1",
      port,
      path: raw.path ?? "/mcp",
      method: raw.method ?? "POST",
      headers: raw.headers,
      agent: false,
    });
    req.once("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.once("end", () => {
        const headers: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          if (res.rawHeaders[i]?.toLowerCase() !== "date") {
            headers.push([res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string]);
          }
        }
        resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString("latin1") });
      });
    });
    req.once("error", reject);
    if (raw.chunks) {
      for (const chunk of raw.chunks) req.write(chunk);
      req.end();
    } else req.end(raw.body);
  });
}

/** The same request as a web `Request` for the in-process handler. */
export function asRequest(raw: Raw): Request {
  const headers = new Headers();
  for (let i = 0; i < raw.headers.length; i += 2) {
    const name = raw.headers[i] as string;
    if (name.toLowerCase() !== "content-length") headers.append(name, raw.headers[i + 1] as string);
  }
  const host = headers.get("host") ?? "localhost";
  const body = raw.chunks ? Buffer.concat(raw.chunks) : raw.body;
  const method = raw.method ?? "POST";
  // As the node adapter does, a Host that is no URL authority stays a header only.
  const url = URL.canParse(`http://${host}/`)
    ? `http://${host}${raw.path ?? "/mcp"}`
    : "http://localhost/mcp";
  return new Request(url, {
    method,
    headers,
    body:
      method === "GET" || method === "HEAD" || body === undefined
        ? null
        : typeof body === "string"
          ? body
          : new Uint8Array(body),
  });
}

/** Headers whose values an answer is judged by; the session id is random, so only its presence counts. */
export const RELEVANT = [
  "content-type",
  "allow",
  "www-authenticate",
  "cache-control",
  "x-accel-buffering",
  "mcp-session-id",
];

export function relevant(pairs: Iterable<[string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of pairs) {
    const key = name.toLowerCase();
    if (RELEVANT.includes(key)) out[key] = key === "mcp-session-id" ? "<session>" : value;
  }
  return out;
}

export function headerPairs(headers: Headers): [string, string][] {
  const pairs: [string, string][] = [];
  headers.forEach((value, name) => {
    pairs.push([name, value]);
  });
  return pairs;
}

export function normalized(answer: Answer): Answer {
  return {
    ...answer,
    headers: answer.headers.map(([name, value]) => [
      name,
      name.toLowerCase() === "mcp-session-id" ? "<session>" : value,
    ]),
  };
}

export interface Mount {
  direct: HttpServerHandle;
  web: Server;
  webPort: number;
  handler: (request: Request) => Promise<Response>;
}

export async function mount(extra: HttpHandlerOptions): Promise<Mount> {
  const { server } = makeServer();
  const options: HttpHandlerOptions = {
    maxBodyBytes: 1024,
    toolInputSchema: (name) => (name === "route" ? REGION_TOOL.inputSchema : undefined),
    ...extra,
  };
  const direct = await serveHttp(server, options);
  const handler = createHttpHandler(server, { ...options, localhostOnly: true });
  // A wrapper is not recognised as our handler, so this listener takes the web adapter.
  const viaWeb = toNodeListener((request) => handler(request));
  const web = createServer((req, res) => viaWeb(req, res));
  await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", resolve));
  return { direct, web, webPort: (web.address() as AddressInfo).port, handler };
}

export const ACCEPT = "application/json, text/event-stream";

export function rpcBody(
  method: string,
  params: Record<string, unknown> = {},
  id: number | string = 1,
): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta() } });
}

/** A conforming POST of `body` for `method`, with `extra` header pairs appended. */
export function conforming(body: string, method: string, extra: string[] = [], name?: string): Raw {
  const headers = [
    "Host",
    "127.0.0.1",
    "Content-Type",
    "application/json",
    "Accept",
    ACCEPT,
    "MCP-Protocol-Version",
    V,
    "Mcp-Method",
    method,
  ];
  if (name !== undefined) headers.push("Mcp-Name", name);
  headers.push("Content-Length", String(Buffer.byteLength(body)), ...extra);
  return { headers, body };
}

/** Every header pair of `raw` but those named (any case). */
export function without(raw: Raw, ...names: string[]): Raw {
  const headers: string[] = [];
  for (let i = 0; i < raw.headers.length; i += 2) {
    if (!names.includes((raw.headers[i] as string).toLowerCase())) {
      headers.push(raw.headers[i] as string, raw.headers[i + 1] as string);
    }
  }
  return { ...raw, headers };
}

export function replaced(raw: Raw, name: string, value: string): Raw {
  const base = without(raw, name.toLowerCase());
  return { ...base, headers: [...base.headers, name, value] };
}

/** One request written in a single call on a raw socket; the raw answer. */
export function rawExchange(port: number, bytes: string | readonly string[], pauseMs = 30): Promise<string> {
  const parts = typeof bytes === "string" ? [bytes] : bytes;
  return new Promise((resolve, reject) => {
    // Parts after the first go out `pauseMs` apart: the server has started reading by then.
    const socket = connect(port, "127.0.0.1", () => {
      parts.forEach((part, i) => {
        setTimeout(() => socket.write(part), i * pauseMs);
      });
    });
    let answer = "";
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString("latin1");
      if (/\r\n\r\n[\s\S]*\}$/.test(answer)) socket.end();
    });
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
  });
}
