/**
 * A small OAuth world on real loopback sockets for the OAuth client's tests: the mock authorization
 * server (auth-server.ts) and an MCP endpoint — our own MCPServer — behind a bearer gate that serves
 * Protected Resource Metadata and answers 401/403 as the MCP authorization spec says. Every request
 * any of them receives is logged for the assertions.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { vi } from "vitest";
import { MCPServer, silentLogger } from "../../../src/server/index.js";
import { createHttpHandler, toNodeListener } from "../../../src/transports/http/index.js";
import type { OAuthState } from "../../../src/transports/http/oauth/index.js";
import { type AuthServerOptions, json, type Logged, listen, MockAuthorizationServer } from "./auth-server.js";
import { checkProof } from "./dpop-check.js";

export { type AuthServerOptions, type Logged, MockAuthorizationServer } from "./auth-server.js";

export interface ProtectedOptions {
  /** The authorization server the PRM document names; may change between calls (migration). */
  readonly authorizationServer: () => MockAuthorizationServer;
  /** `resource` in the PRM document (default: the endpoint URL). */
  readonly resource?: (endpoint: URL) => string;
  readonly scopesSupported?: readonly string[];
  /** Put `resource_metadata` in the challenge (default true). */
  readonly advertiseMetadata?: boolean;
  /** Scopes a request needs, from its Mcp-Method / Mcp-Name headers: 403 insufficient_scope otherwise. */
  readonly requiredScopes?: (method: string, name: string | undefined) => readonly string[];
  /** The scope parameter of the 401 challenge. */
  readonly challengeScope?: string;
  /** The nonce DPoP proofs to this resource must carry (RFC 9449 §9). */
  readonly dpopNonce?: string;
}

/**
 * Why a request with a DPoP-bound token is refused, if it is: not the DPoP scheme, no valid proof
 * for this request and token, another key, or (first) a missing nonce.
 */
function dpopRefusal(
  req: IncomingMessage,
  url: URL,
  token: string,
  jkt: string,
  nonce: string | undefined,
): { error: string; headers: Record<string, string> } | undefined {
  const scheme = req.headers.authorization?.split(" ")[0];
  const proof = req.headers.dpop as string | undefined;
  const verdict = checkProof(proof, {
    htm: "POST",
    htu: url.href,
    accessToken: token,
    ...(nonce ? { nonce } : {}),
  });
  if (verdict.ok && verdict.jkt === jkt && scheme === "DPoP") return undefined;
  if (!verdict.ok && verdict.reason === "nonce" && nonce !== undefined) {
    return {
      error: "use_dpop_nonce",
      headers: { "www-authenticate": 'DPoP error="use_dpop_nonce", algs="ES256"', "dpop-nonce": nonce },
    };
  }
  return {
    error: "invalid_token",
    headers: { "www-authenticate": 'DPoP error="invalid_token", algs="ES256"' },
  };
}

/** Our MCPServer behind a bearer gate, with its PRM document at the path-based well-known URL. */
export class ProtectedMcp {
  readonly log: Logged[] = [];
  readonly #server: Server;
  #url: URL | undefined;

  private constructor(options: ProtectedOptions) {
    const mcp = new MCPServer("protected", { version: "1.0.0", logger: silentLogger });
    mcp.tool("whoami", { description: "Who the bearer is." }, (_args, ctx) => {
      const auth = ctx.authInfo;
      return `${auth?.clientId ?? "anonymous"} [${auth?.scopes.join(" ") ?? ""}]`;
    });
    const listener = toNodeListener(
      createHttpHandler(mcp, {
        verifyToken: (request) => {
          const token = request.headers.get("authorization")?.replace(/^(Bearer|DPoP) /, "") ?? "";
          const issued = options.authorizationServer().verify(token);
          return issued && { token, clientId: issued.clientId, scopes: issued.scopes, issuer: issued.issuer };
        },
      }),
    );
    this.#server = createServer((req, res) => {
      const url = this.url;
      const path = new URL(req.url ?? "/", url).pathname;
      this.log.push({ path, method: req.method ?? "", headers: req.headers, query: {}, body: undefined });
      if (req.method === "GET" && path === "/.well-known/oauth-protected-resource/mcp") {
        const document: Record<string, unknown> = {
          resource: options.resource?.(url) ?? url.href,
          authorization_servers: [options.authorizationServer().issuer],
        };
        if (options.scopesSupported) document.scopes_supported = options.scopesSupported;
        json(res, 200, document);
        return;
      }
      if (path !== "/mcp") {
        json(res, 404, { error: "not_found" });
        return;
      }
      const challenge: string[] = [];
      if (options.advertiseMetadata !== false) {
        challenge.push(`resource_metadata="${url.origin}/.well-known/oauth-protected-resource/mcp"`);
      }
      const token = req.headers.authorization?.replace(/^(Bearer|DPoP) /, "") ?? "";
      const issued = options.authorizationServer().verify(token);
      if (issued?.jkt !== undefined) {
        const refusal = dpopRefusal(req, url, token, issued.jkt, options.dpopNonce);
        if (refusal !== undefined) {
          json(res, 401, { error: refusal.error }, refusal.headers);
          return;
        }
      }
      if (issued === undefined) {
        if (options.challengeScope) challenge.push(`scope="${options.challengeScope}"`);
        return json(
          res,
          401,
          { error: "invalid_token" },
          { "www-authenticate": `Bearer ${challenge.join(", ")}` },
        );
      }
      const method = String(req.headers["mcp-method"] ?? "");
      const name = req.headers["mcp-name"] as string | undefined;
      const needed = options.requiredScopes?.(method, name) ?? [];
      if (!needed.every((scope) => issued.scopes.includes(scope))) {
        challenge.unshift('error="insufficient_scope"', `scope="${needed.join(" ")}"`);
        return json(
          res,
          403,
          { error: "insufficient_scope" },
          { "www-authenticate": `Bearer ${challenge.join(", ")}` },
        );
      }
      listener(req, res);
    });
  }

  static async start(options: ProtectedOptions): Promise<ProtectedMcp> {
    const mcp = new ProtectedMcp(options);
    mcp.#url = new URL(`http://127.0.0.1:${await listen(mcp.#server)}/mcp`);
    return mcp;
  }

  get url(): URL {
    if (this.#url === undefined) throw new Error("not started");
    return this.#url;
  }

  /** The POSTs to the MCP endpoint, by the status the gate answered them with is unknown: all of them. */
  posts(): Logged[] {
    return this.log.filter((entry) => entry.method === "POST");
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.closeAllConnections();
      this.#server.close(() => resolve());
    });
  }
}

/** The user's part: the mock consents at once, so the callback URL is the redirect's Location. */
export async function consent(url: URL): Promise<string> {
  const response = await fetch(url, { redirect: "manual" });
  await response.body?.cancel();
  const location = response.headers.get("location");
  if (location === null) throw new Error(`no redirect from the authorize endpoint (HTTP ${response.status})`);
  return location;
}

/**
 * Starts worlds for a test file and closes everything registered with it, newest first: call
 * `closeAll` in `afterEach`, and `defer` anything else a test opens.
 */
export function worldKeeper() {
  const closers: (() => Promise<void>)[] = [];
  const defer = (...close: (() => Promise<void>)[]) => void closers.push(...close);
  return {
    defer,
    /** A mock authorization server and the protected MCP endpoint whose PRM names it. */
    async world(as: AuthServerOptions = {}, mcp: Partial<ProtectedOptions> = {}) {
      const authServer = await MockAuthorizationServer.start(as);
      defer(() => authServer.close());
      const resource = await ProtectedMcp.start({ authorizationServer: () => authServer, ...mcp });
      defer(() => resource.close());
      return { authServer, resource };
    },
    /**
     * A resource whose PRM names `first` until `moveTo(second)`, after which `first`'s tokens are no
     * longer accepted.
     */
    async migrating(first: AuthServerOptions = {}, second: AuthServerOptions = {}) {
      const from = await MockAuthorizationServer.start(first);
      const to = await MockAuthorizationServer.start(second);
      defer(
        () => from.close(),
        () => to.close(),
      );
      let current = from;
      const resource = await ProtectedMcp.start({ authorizationServer: () => current });
      defer(() => resource.close());
      const moveTo = (next: MockAuthorizationServer) => {
        current = next;
      };
      return { first: from, second: to, resource, moveTo };
    },
    async closeAll() {
      for (const close of closers.splice(0).reverse()) await close();
    },
  };
}

/** A free port on 127.0.0.1 (listened on once, then released): for servers whose URL must be known first. */
export async function freePort(): Promise<number> {
  const spare = createServer();
  const port = await listen(spare);
  await new Promise((resolve) => spare.close(resolve));
  return port;
}

/** A server with one tool, `whoami`, that answers `hello <client id of the bearer>`. */
export function whoamiServer(): MCPServer {
  const mcp = new MCPServer("protected", { version: "1.0.0", logger: silentLogger });
  mcp.tool(
    "whoami",
    { description: "Who the bearer is." },
    (_args, ctx) => `hello ${ctx.authInfo?.clientId}`,
  );
  return mcp;
}

/** An OAuthStore that keeps a copy of what was saved, as a file would. */
export function memoryStore() {
  const store = {
    saved: undefined as OAuthState | undefined,
    load: () => store.saved,
    save: (state: OAuthState) => {
      store.saved = structuredClone(state);
    },
  };
  return store;
}

/**
 * `Date.now` moved forward by hand (timers and the rest of time run as usual), for tokens that
 * must age between two requests; undone by `vi.restoreAllMocks()`.
 */
export function handClock() {
  const real = Date.now.bind(Date);
  let offset = 0;
  vi.spyOn(Date, "now").mockImplementation(() => real() + offset);
  return {
    advance(ms: number): void {
      offset += ms;
    },
  };
}
