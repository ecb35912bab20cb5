/**
 * CORS for the origins an operator listed in `allowedOrigins`, so a browser app on one of them can
 * call the endpoint: preflights are answered and responses say which headers the page may read.
 * Loopback-only endpoints without a list never answer CORS: a page on some other local port is not
 * invited by default.
 */
import { isPlainReply, type PlainReply, type Reply } from "./body.js";
import type { Incoming } from "./incoming.js";

/** Request headers a browser client of ours sends (plus any `Mcp-Param-*`). */
const ALLOWED_HEADERS: ReadonlySet<string> = new Set([
  "accept",
  "authorization",
  "content-type",
  "last-event-id",
  "mcp-method",
  "mcp-name",
  "mcp-protocol-version",
  "mcp-session-id",
]);
const EXPOSED = "mcp-session-id, mcp-protocol-version, www-authenticate";
const PREFLIGHT_MAX_AGE_SECONDS = "600";

/** The request's `Origin` when it is one of the explicitly allowed origins, else `undefined`. */
export function listedOrigin(request: Incoming, allowedOrigins: readonly string[]): string | undefined {
  const origin = request.header("origin");
  if (origin === null) return undefined;
  const wanted = origin.toLowerCase();
  return allowedOrigins.some((entry) => entry.toLowerCase().replace(/\/$/, "") === wanted)
    ? origin
    : undefined;
}

function allowedHeader(name: string): boolean {
  return ALLOWED_HEADERS.has(name) || name.startsWith("mcp-param-");
}

/**
 * The answer to a preflight from a listed origin: 204 allowing POST (and GET/DELETE for 2025
 * sessions) with the headers it asked for, when each is one an MCP client sends; 403 otherwise.
 */
export function preflight(request: Incoming, origin: string): PlainReply {
  const asked = (request.header("access-control-request-headers") ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "");
  const method = request.header("access-control-request-method") ?? "";
  if (!["POST", "GET", "DELETE"].includes(method) || !asked.every(allowedHeader)) {
    return { plain: true, status: 403, headers: { vary: "Origin" }, body: null };
  }
  return {
    plain: true,
    status: 204,
    headers: {
      "access-control-allow-origin": origin,
      "access-control-allow-methods": "POST, GET, DELETE",
      "access-control-allow-headers": asked.join(", "),
      "access-control-max-age": PREFLIGHT_MAX_AGE_SECONDS,
      vary: "Origin",
    },
    body: null,
  };
}

/** The reply with the headers that let the page at `origin` read it. */
export function withCorsHeaders(reply: Reply, origin: string): Reply {
  const cors = {
    "access-control-allow-origin": origin,
    "access-control-expose-headers": EXPOSED,
    vary: "Origin",
  };
  if (isPlainReply(reply)) return { ...reply, headers: { ...reply.headers, ...cors } };
  for (const [name, value] of Object.entries(cors)) reply.headers.set(name, value);
  return reply;
}
