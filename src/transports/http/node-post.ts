/**
 * The client's POSTs straight through `node:http`/`node:https` with keep-alive Agents, in place of
 * the default `fetch` on Node. The wire and what the transport sees stay fetch's: its request
 * headers in its order, its redirects, decoding, idle timeouts and error shapes, minus undici's
 * per-request cost. Anything it does not mirror (customised fetch or dispatcher, odd headers or
 * URLs) returns `undefined` from `prepareDirect`, and the caller uses fetch. No static `node:`
 * import: this file is part of the web build, and the modules come from `process.getBuiltinModule`.
 */
import type * as Http from "node:http";
import type * as Https from "node:https";
import type { Socket } from "node:net";
import type * as Zlib from "node:zlib";
import type { Cancellation } from "../../shared/cancellation.js";
import type { Received } from "./answer.js";
import { combineRawHeaders } from "./headers.js";
import { type DecodeModules, NodeReceived } from "./node-received.js";

/** A POST's headers: `init` as `new Headers(init)` takes it, then each `set` in order. */
export interface HeaderPlan {
  readonly init: HeadersInit | undefined;
  readonly set: readonly (readonly [string, string])[];
}

/** The plan as the `Headers` fetch receives (throwing what `Headers` throws). */
export function webHeaders(plan: HeaderPlan): Headers {
  const headers = new Headers(plan.init);
  for (const [name, value] of plan.set) headers.set(name, value);
  return headers;
}

interface Builtins extends DecodeModules {
  readonly http: typeof Http;
  readonly https: typeof Https;
  readonly agents: { readonly http: Http.Agent; readonly https: Http.Agent };
}

/** Node's own fetch (not a polyfill or a mock) as it was when this module loaded. */
const nativeFetch =
  typeof globalThis.fetch === "function" &&
  Function.prototype.toString.call(globalThis.fetch).includes("internal/deps/undici")
    ? globalThis.fetch
    : undefined;

const GLOBAL_DISPATCHER = Symbol.for("undici.globalDispatcher.1");
let checkedDispatcher: unknown;
let checkedPlain = false;

/** undici's own default Agent, or one built without options, does what a plain Agent does. */
function plainDispatcher(): boolean {
  const dispatcher = (globalThis as Record<symbol, unknown>)[GLOBAL_DISPATCHER];
  if (dispatcher === undefined) return true;
  if (dispatcher !== checkedDispatcher) {
    checkedDispatcher = dispatcher;
    const key =
      typeof dispatcher === "object" && dispatcher !== null && dispatcher.constructor?.name === "Agent"
        ? Object.getOwnPropertySymbols(dispatcher).find((symbol) => symbol.description === "options")
        : undefined;
    const options = key && (dispatcher as Record<symbol, unknown>)[key];
    checkedPlain =
      typeof options === "object" &&
      options !== null &&
      Object.values(options).every((value) => value === undefined);
  }
  return checkedPlain;
}

/** Idle time a server's `Keep-Alive: timeout=N` allows (undici: N s − 2 s, at most 600 s). */
const idleAllowance = new WeakMap<Socket, number>();
const DEFAULT_IDLE_MS = 4_000;
/** What Node's Agent uses by default. */
const TCP_KEEP_ALIVE_MS = 1_000;

function keepAliveAgent(Base: typeof Http.Agent): Http.Agent {
  class KeepAlive extends Base {
    override keepSocketAlive(socket: Socket): boolean {
      const idle = idleAllowance.get(socket) ?? DEFAULT_IDLE_MS;
      if (idle <= 0) return false;
      socket.setKeepAlive(true, TCP_KEEP_ALIVE_MS);
      socket.unref();
      socket.setTimeout(idle);
      return true;
    }
  }
  return new KeepAlive({ keepAlive: true });
}

let builtins: Builtins | null | undefined;

function nodeBuiltins(): Builtins | null {
  if (builtins !== undefined) return builtins;
  const proc = (globalThis as { process?: NodeJS.Process }).process;
  const versions = proc?.versions as Partial<Record<string, string>> | undefined;
  const getBuiltin = (proc as { getBuiltinModule?: unknown } | undefined)?.getBuiltinModule;
  if (
    !proc ||
    typeof getBuiltin !== "function" ||
    !versions?.node ||
    versions.bun !== undefined ||
    versions.deno !== undefined ||
    // Node 22.21+/24.5+: fetch honours HTTP(S)_PROXY then, and an Agent of ours would not.
    proc.env.NODE_USE_ENV_PROXY !== undefined
  ) {
    builtins = null;
    return null;
  }
  const http = proc.getBuiltinModule("node:http");
  const https = proc.getBuiltinModule("node:https");
  builtins = {
    http,
    https,
    zlib: proc.getBuiltinModule("node:zlib") as typeof Zlib,
    stream: proc.getBuiltinModule("node:stream"),
    agents: { http: keepAliveAgent(http.Agent), https: keepAliveAgent(https.Agent) },
  };
  return builtins;
}

/** True when a transport without a custom `fetch` may post directly (checked per POST). */
export function directPostAvailable(): boolean {
  return (
    nativeFetch !== undefined &&
    globalThis.fetch === nativeFetch &&
    plainDispatcher() &&
    nodeBuiltins() !== null
  );
}

/** Ports fetch refuses to talk to (the Fetch standard's "bad port" list). */
const BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104,
  109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515,
  526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** A URL fetch would request as it is (http(s), no credentials, an allowed port). */
function plainUrl(url: URL): boolean {
  return (
    (url.protocol === "http:" || url.protocol === "https:") &&
    url.username === "" &&
    url.password === "" &&
    !BAD_PORTS.has(Number(url.port))
  );
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Values both `Headers` and undici's writer take unchanged (no edge whitespace, no controls). */
const CLEAN_VALUE = /^(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?$/;
/** Names fetch treats specially (rejects, rewrites or answers with extra headers): left to fetch. */
const SPECIAL = new Set([
  "host",
  "connection",
  "keep-alive",
  "upgrade",
  "transfer-encoding",
  "expect",
  "content-length",
  "range",
  "if-modified-since",
  "if-none-match",
  "if-unmodified-since",
  "if-match",
  "if-range",
]);

/** name (lower case) → [name as sent, value]: undici's header list. */
type HeaderList = Map<string, [string, string]>;

function listOf(plan: HeaderPlan): HeaderList | undefined {
  const list: HeaderList = new Map();
  const put = (name: string, value: string, replace: boolean): boolean => {
    if (!TOKEN.test(name) || !CLEAN_VALUE.test(value)) return false;
    const key = name.toLowerCase();
    if (SPECIAL.has(key) || key === "sec-fetch-mode") return false;
    const existing = list.get(key);
    if (existing === undefined || replace) list.set(key, [name, value]);
    else existing[1] = `${existing[1]}${key === "cookie" ? "; " : ", "}${value}`;
    return true;
  };
  const init = plan.init;
  // A `Headers` init passes on its hidden name casing and order, which only fetch can read.
  if (init instanceof Headers) return undefined;
  if (Array.isArray(init)) {
    for (const pair of init) {
      if (pair.length !== 2 || !put(String(pair[0]), String(pair[1]), false)) return undefined;
    }
  } else if (init !== undefined) {
    for (const name of Object.keys(init)) {
      if (!put(name, String((init as Record<string, unknown>)[name]), false)) return undefined;
    }
  }
  for (const [name, value] of plan.set) if (!put(name, value, true)) return undefined;
  // fetch's own additions before any redirect (they stay on later hops).
  if (!list.has("accept")) list.set("accept", ["accept", "*/*"]);
  if (!list.has("accept-language")) list.set("accept-language", ["accept-language", "*"]);
  return list;
}

/** A prepared POST: `send` it once. */
export interface DirectPost {
  send(cancellation: Cancellation): Promise<Received>;
}

/**
 * Prepares a POST of `body` with `plan`'s headers, or `undefined` when only fetch can send it as
 * fetch would (the caller then uses fetch, which also throws the errors `Headers` throws).
 */
export function prepareDirect(url: URL, plan: HeaderPlan, body: string): DirectPost | undefined {
  const node = nodeBuiltins();
  if (!node || !plainUrl(url)) return undefined;
  const list = listOf(plan);
  if (!list) return undefined;
  return { send: (cancellation) => follow(node, url, list, body, cancellation) };
}

/** What fetch rejects with when its signal aborts. */
function aborted(): Error {
  return new DOMException("This operation was aborted", "AbortError");
}

function fetchFailed(cause: unknown): TypeError {
  return new TypeError("fetch failed", { cause });
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const BODY_HEADERS = ["content-encoding", "content-language", "content-location", "content-type"];

function sameOrigin(a: URL, b: URL): boolean {
  return a.protocol === b.protocol && a.host === b.host;
}

/** fetch's redirect handling (at most 20, method and header rewrites), each hop sent directly. */
async function follow(
  node: Builtins,
  start: URL,
  list: HeaderList,
  body: string,
  cancellation: Cancellation,
): Promise<Received> {
  let url = start;
  let method = "POST";
  let payload: string | null = body;
  for (let redirects = 0; ; redirects++) {
    const [res, headers] = await exchange(node, url, method, list, payload, cancellation);
    const status = res.statusCode ?? 0;
    const location = REDIRECTS.has(status) ? headers.get("location") : undefined;
    if (location === undefined) {
      try {
        return new NodeReceived(res, headers, method, node);
      } catch (error) {
        res.destroy();
        throw fetchFailed(error);
      }
    }
    res.resume();
    let next: URL;
    try {
      next = new URL(location, url);
    } catch (error) {
      throw fetchFailed(error);
    }
    if (next.protocol !== "http:" && next.protocol !== "https:") {
      throw fetchFailed(new Error("URL scheme must be a HTTP(S) scheme"));
    }
    if (redirects === 20) throw fetchFailed(new Error("redirect count exceeded"));
    if ((next.username || next.password) && !sameOrigin(url, next)) {
      throw fetchFailed(new Error('cross origin not allowed for request mode "cors"'));
    }
    if (((status === 301 || status === 302) && method === "POST") || (status === 303 && method !== "GET")) {
      method = "GET";
      payload = null;
      for (const name of BODY_HEADERS) list.delete(name);
    }
    if (!sameOrigin(url, next)) {
      for (const name of ["authorization", "proxy-authorization", "cookie"]) list.delete(name);
    }
    if (BAD_PORTS.has(Number(next.port))) throw fetchFailed(new Error("bad port"));
    url = next;
  }
}

/** undici's headers and body timeouts (300 s each). */
const IDLE_LIMIT_MS = 300_000;

/**
 * One request/response on the wire, undici's header order: host, connection, the list, then its
 * own. Resolves with the response and its headers combined as `Headers` combines them.
 */
function exchange(
  node: Builtins,
  url: URL,
  method: string,
  list: HeaderList,
  payload: string | null,
  cancellation: Cancellation,
): Promise<[Http.IncomingMessage, Map<string, string>]> {
  const secure = url.protocol === "https:";
  const raw = ["host", url.host, "connection", "keep-alive"];
  for (const [name, value] of list.values()) raw.push(name, value);
  raw.push("sec-fetch-mode", "cors");
  if (!list.has("user-agent")) raw.push("user-agent", "node");
  if (!list.has("accept-encoding"))
    raw.push("accept-encoding", secure ? "br, gzip, deflate" : "gzip, deflate");
  if (payload !== null) raw.push("content-length", String(Buffer.byteLength(payload)));
  return new Promise((resolve, reject) => {
    if (cancellation.cancelled()) {
      reject(aborted());
      return;
    }
    const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
    const req = (secure ? node.https : node.http).request({
      hostname,
      port: url.port || (secure ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method,
      headers: raw,
      agent: secure ? node.agents.https : node.agents.http,
      timeout: IDLE_LIMIT_MS,
    });
    let response: Http.IncomingMessage | undefined;
    const stopListening = cancellation.onCancel(() => {
      req.destroy();
      reject(aborted());
    });
    req.once("close", stopListening);
    req.on("timeout", () => {
      const cause = Object.assign(new Error(response ? "Body Timeout Error" : "Headers Timeout Error"), {
        code: response ? "UND_ERR_BODY_TIMEOUT" : "UND_ERR_HEADERS_TIMEOUT",
      });
      if (response) response.destroy(cause);
      else req.destroy(cause);
    });
    req.once("error", (error) => reject(fetchFailed(error)));
    req.once("response", (res) => {
      response = res;
      const headers = combineRawHeaders(res.rawHeaders);
      const hint = /timeout=(\d+)/.exec(headers.get("keep-alive") ?? "")?.[1];
      if (res.socket) {
        if (hint === undefined) idleAllowance.delete(res.socket);
        else idleAllowance.set(res.socket, Math.min(Number(hint) * 1000 - 2000, 600_000));
      }
      resolve([res, headers]);
    });
    req.end(payload ?? undefined);
  });
}
