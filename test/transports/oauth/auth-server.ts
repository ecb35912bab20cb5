/**
 * The mock authorization server of the OAuth tests, on a real loopback socket: metadata, dynamic
 * registration, an authorize endpoint that consents at once, a token endpoint that checks PKCE and
 * client authentication (secrets, private-key JWTs, DPoP proofs, workload JWTs), JWT access tokens
 * and introspection on request. Every request it receives is logged for the assertions.
 */
import { createHash, type KeyObject, randomBytes, verify } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { checkProof } from "./dpop-check.js";
import { type JwtIssuerKey, signAccessToken } from "./jwt-issuer.js";

export interface Logged {
  readonly path: string;
  readonly method: string;
  readonly headers: IncomingMessage["headers"];
  readonly query: Record<string, string>;
  /** Form or JSON bodies, parsed; raw text otherwise. */
  readonly body: Record<string, unknown> | string | undefined;
}

export interface AuthServerOptions {
  /** Path under the origin that the issuer has (e.g. "/tenant1"); "" by default. */
  readonly prefix?: string;
  /** The `issuer` the metadata claims (default: the real one). */
  readonly claimedIssuer?: string;
  readonly issParameterSupported?: boolean;
  /** What the redirect carries as `iss`. */
  readonly issInRedirect?: "correct" | "omit" | "wrong";
  /** Offer dynamic registration (default true). */
  readonly registration?: boolean;
  readonly cimd?: boolean;
  readonly authMethods?: readonly string[];
  readonly scopesSupported?: readonly string[];
  readonly codeChallengeMethods?: readonly string[] | null;
  /** Access-token lifetime in seconds (default 3600). */
  readonly expiresIn?: number;
  readonly refreshTokens?: boolean;
  /** Answer refresh grants with 400 invalid_grant. */
  readonly refuseRefresh?: boolean;
  /** Issue DPoP-bound tokens (ES256 proofs), requiring `nonce` in token-request proofs when set. */
  readonly dpop?: { readonly nonce?: string };
  /** The only scopes it ever grants (default: whatever is asked). */
  readonly grantable?: readonly string[];
  /** The public key of the platform that issues workload JWTs (the JWT-bearer grant). */
  readonly workloadIssuerKey?: KeyObject;
  /** Public keys of clients that authenticate with private_key_jwt, by client id. */
  readonly assertionKeys?: Readonly<Record<string, KeyObject>>;
  /** Pre-registered clients: client_id → secret (undefined for a public client). */
  readonly clients?: Readonly<Record<string, string | undefined>>;
  /** Issue JWT access tokens signed with this key (audience: the `resource` asked for), keys at `/jwks`. */
  readonly jwtKey?: JwtIssuerKey;
  /** Answer token introspection (RFC 7662) at `/introspect`, for the clients it knows. */
  readonly introspection?: boolean;
}

interface Issued {
  readonly clientId: string;
  readonly scopes: readonly string[];
  readonly issuer: string;
  /** The thumbprint of the DPoP key the token is bound to. */
  readonly jkt?: string;
  /** The `resource` the token request named (RFC 8707), the audience of a JWT token. */
  readonly resource?: string;
  /** When the access token expires, in seconds since the epoch. */
  readonly exp?: number;
}

export function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
  });
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown> | string | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (text === "") return undefined;
  const type = req.headers["content-type"] ?? "";
  if (type.startsWith("application/x-www-form-urlencoded"))
    return Object.fromEntries(new URLSearchParams(text));
  if (type.startsWith("application/json")) return JSON.parse(text) as Record<string, unknown>;
  return text;
}

export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

const sha256url = (text: string) => createHash("sha256").update(text).digest("base64url");

/** A mock authorization server on 127.0.0.1. */
export class MockAuthorizationServer {
  readonly log: Logged[] = [];
  readonly #server: Server;
  readonly #options: AuthServerOptions;
  readonly #clients = new Map<string, { secret: string | undefined; method: string }>();
  readonly #codes = new Map<
    string,
    { challenge: string; clientId: string; redirectUri: string; scope: string }
  >();
  readonly #access = new Map<string, Issued>();
  readonly #refresh = new Map<string, Issued>();
  #origin = "";
  #registered = 0;

  private constructor(options: AuthServerOptions) {
    this.#options = options;
    for (const [id, secret] of Object.entries(options.clients ?? {})) {
      this.#clients.set(id, { secret, method: secret === undefined ? "none" : "client_secret_basic" });
    }
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((error: unknown) => json(res, 500, { error: String(error) }));
    });
  }

  static async start(options: AuthServerOptions = {}): Promise<MockAuthorizationServer> {
    const as = new MockAuthorizationServer(options);
    as.#origin = `http://127.0.0.1:${await listen(as.#server)}`;
    return as;
  }

  /** The issuer identifier (origin + prefix). */
  get issuer(): string {
    return `${this.#origin}${this.#options.prefix ?? ""}`;
  }

  /** The requests to one path of this server. */
  requests(path: string): Logged[] {
    return this.log.filter((entry) => entry.path === `${this.#options.prefix ?? ""}${path}`);
  }

  /** Who a bearer token was issued to, if this server issued it. */
  verify(token: string): Issued | undefined {
    return this.#access.get(token);
  }

  /** Forgets every access token (as a revocation would); refresh tokens stay valid. */
  revokeAccessTokens(): void {
    this.#access.clear();
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.closeAllConnections();
      this.#server.close(() => resolve());
    });
  }

  #metadata(): Record<string, unknown> {
    const o = this.#options;
    const at = (path: string) => `${this.issuer}${path}`;
    const metadata: Record<string, unknown> = {
      issuer: o.claimedIssuer ?? this.issuer,
      authorization_endpoint: at("/authorize"),
      token_endpoint: at("/token"),
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      token_endpoint_auth_methods_supported: o.authMethods ?? [
        "client_secret_basic",
        "client_secret_post",
        "none",
      ],
      authorization_response_iss_parameter_supported: o.issParameterSupported ?? true,
    };
    if (o.registration !== false) metadata.registration_endpoint = at("/register");
    if (o.codeChallengeMethods !== null)
      metadata.code_challenge_methods_supported = o.codeChallengeMethods ?? ["S256"];
    if (o.cimd) metadata.client_id_metadata_document_supported = true;
    if (o.scopesSupported) metadata.scopes_supported = o.scopesSupported;
    if (o.dpop) metadata.dpop_signing_alg_values_supported = ["ES256"];
    if (o.jwtKey) metadata.jwks_uri = at("/jwks");
    if (o.introspection) metadata.introspection_endpoint = at("/introspect");
    return metadata;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.#origin);
    const body = await readBody(req);
    const query = Object.fromEntries(url.searchParams);
    this.log.push({ path: url.pathname, method: req.method ?? "", headers: req.headers, query, body });
    const prefix = this.#options.prefix ?? "";
    const route = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname;
    if (req.method === "GET" && url.pathname === `/.well-known/oauth-authorization-server${prefix}`) {
      json(res, 200, this.#metadata());
      return;
    }
    if (req.method === "GET" && route === "/jwks" && this.#options.jwtKey) {
      json(res, 200, { keys: [this.#options.jwtKey.jwk] });
      return;
    }
    if (req.method === "POST" && route === "/introspect" && this.#options.introspection) {
      this.#introspect(req, body as Record<string, string>, res);
      return;
    }
    if (req.method === "POST" && route === "/register" && this.#options.registration !== false) {
      const request = body as Record<string, unknown>;
      const id = `client-${++this.#registered}`;
      const method = String(request.token_endpoint_auth_method ?? "client_secret_basic");
      const secret = method === "none" ? undefined : `secret-${this.#registered}`;
      this.#clients.set(id, { secret, method });
      json(res, 201, {
        client_id: id,
        ...(secret ? { client_secret: secret } : {}),
        token_endpoint_auth_method: method,
      });
      return;
    }
    if (req.method === "GET" && route === "/authorize") {
      this.#authorize(query, res);
      return;
    }
    if (req.method === "POST" && route === "/token")
      return this.#token(req, body as Record<string, string>, res);
    json(res, 404, { error: "not_found" });
  }

  #authorize(query: Record<string, string>, res: ServerResponse): void {
    const redirect = new URL(query.redirect_uri ?? "http://invalid.test/");
    const code = randomBytes(12).toString("base64url");
    this.#codes.set(code, {
      challenge: query.code_challenge ?? "",
      clientId: query.client_id ?? "",
      redirectUri: query.redirect_uri ?? "",
      scope: query.scope ?? "",
    });
    redirect.searchParams.set("code", code);
    if (query.state !== undefined) redirect.searchParams.set("state", query.state);
    const iss = this.#options.issInRedirect ?? "correct";
    if (iss === "correct") redirect.searchParams.set("iss", this.#options.claimedIssuer ?? this.issuer);
    if (iss === "wrong") redirect.searchParams.set("iss", "https://evil.example.com");
    res.writeHead(302, { location: redirect.href });
    res.end();
  }

  /** The client the request authenticates as, or undefined when its authentication is wrong. */
  #authenticate(req: IncomingMessage, body: Record<string, string>): string | undefined {
    if (body.client_assertion_type === "urn:ietf:params:oauth:client-assertion-type:jwt-bearer") {
      return this.#assertedClient(body.client_assertion ?? "");
    }
    const basic = req.headers.authorization;
    if (basic?.startsWith("Basic ")) {
      const [id, secret] = Buffer.from(basic.slice(6), "base64")
        .toString("utf8")
        .split(":")
        .map(decodeURIComponent);
      const known = id === undefined ? undefined : this.#clients.get(id);
      return known?.secret !== undefined && known.secret === secret && !("client_id" in body)
        ? id
        : undefined;
    }
    const id = body.client_id;
    if (this.#options.cimd && id?.startsWith("https://")) return id;
    const known = id === undefined ? undefined : this.#clients.get(id);
    if (known === undefined) return undefined;
    if (known.method === "none") return body.client_secret === undefined ? id : undefined;
    return body.client_secret === known.secret ? id : undefined;
  }

  /** RFC 7523: a JWT signed by the client's key, for this server, alive, with iss = sub = client id. */
  #assertedClient(assertion: string): string | undefined {
    const [header, payload, signature] = assertion.split(".");
    if (header === undefined || payload === undefined || signature === undefined) return undefined;
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
    const { alg } = JSON.parse(Buffer.from(header, "base64url").toString("utf8")) as { alg?: string };
    const key = typeof claims.iss === "string" ? this.#options.assertionKeys?.[claims.iss] : undefined;
    if (key === undefined || claims.sub !== claims.iss || claims.aud !== this.issuer) return undefined;
    if (typeof claims.exp !== "number" || claims.exp * 1000 < Date.now()) return undefined;
    const signed = Buffer.from(`${header}.${payload}`);
    const ok =
      alg === "ES256"
        ? verify("sha256", signed, { key, dsaEncoding: "ieee-p1363" }, Buffer.from(signature, "base64url"))
        : alg === "RS256" && verify("sha256", signed, key, Buffer.from(signature, "base64url"));
    return ok ? String(claims.iss) : undefined;
  }

  /** RFC 7523 §3: a workload JWT signed by the platform, for this server, alive; its subject. */
  #workload(assertion: string): string | undefined {
    const [header, payload, signature] = assertion.split(".");
    const key = this.#options.workloadIssuerKey;
    if (header === undefined || payload === undefined || signature === undefined || key === undefined) {
      return undefined;
    }
    let claims: Record<string, unknown>;
    try {
      claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
    } catch {
      return undefined;
    }
    const signed = verify(
      "sha256",
      Buffer.from(`${header}.${payload}`),
      { key, dsaEncoding: "ieee-p1363" },
      Buffer.from(signature, "base64url"),
    );
    const alive = typeof claims.exp === "number" && claims.exp * 1000 > Date.now();
    return signed && alive && claims.aud === this.issuer && typeof claims.sub === "string"
      ? claims.sub
      : undefined;
  }

  /** An opaque token, or a JWT for the resource asked for when the server signs tokens. */
  #accessToken(granted: Issued): string {
    const key = this.#options.jwtKey;
    if (key === undefined) return `at-${randomBytes(9).toString("base64url")}`;
    const now = Math.floor(Date.now() / 1000);
    return signAccessToken(key, {
      iss: this.issuer,
      aud: granted.resource,
      sub: granted.clientId,
      client_id: granted.clientId,
      scope: granted.scopes.join(" "),
      iat: now,
      exp: now + (this.#options.expiresIn ?? 3600),
      jti: randomBytes(9).toString("base64url"),
      ...(granted.jkt ? { cnf: { jkt: granted.jkt } } : {}),
    });
  }

  /** RFC 7662: what an access token is, for a client that authenticates. */
  #introspect(req: IncomingMessage, body: Record<string, string>, res: ServerResponse): void {
    if (this.#authenticate(req, body) === undefined) {
      json(res, 401, { error: "invalid_client" });
      return;
    }
    const issued = this.#access.get(body.token ?? "");
    if (issued === undefined) {
      json(res, 200, { active: false });
      return;
    }
    json(res, 200, {
      active: true,
      client_id: issued.clientId,
      scope: issued.scopes.join(" "),
      sub: issued.clientId,
      iss: this.issuer,
      aud: issued.resource,
      exp: issued.exp,
      token_type: "Bearer",
    });
  }

  #issue(res: ServerResponse, granted: Issued): void {
    const access = this.#accessToken(granted);
    const exp = Math.floor(Date.now() / 1000) + (this.#options.expiresIn ?? 3600);
    this.#access.set(access, { ...granted, exp });
    const answer: Record<string, unknown> = {
      access_token: access,
      token_type: granted.jkt === undefined ? "Bearer" : "DPoP",
      expires_in: this.#options.expiresIn ?? 3600,
    };
    if (this.#options.refreshTokens) {
      const refresh = `rt-${randomBytes(9).toString("base64url")}`;
      this.#refresh.set(refresh, granted);
      answer.refresh_token = refresh;
    }
    if (granted.scopes.length > 0) answer.scope = granted.scopes.join(" ");
    json(res, 200, answer);
  }

  #token(req: IncomingMessage, body: Record<string, string>, res: ServerResponse): void {
    if (body.grant_type === "urn:ietf:params:oauth:grant-type:jwt-bearer") {
      const workload = this.#workload(body.assertion ?? "");
      if (workload === undefined) {
        json(res, 400, { error: "invalid_grant", error_description: "the workload JWT does not verify" });
        return;
      }
      // A client that authenticates as well must do so correctly, and the token is then its own.
      const authenticates = req.headers.authorization !== undefined || body.client_secret !== undefined;
      const client = authenticates ? this.#authenticate(req, body) : workload;
      if (client === undefined) {
        json(res, 401, { error: "invalid_client" });
        return;
      }
      const scopes = (body.scope ?? "").split(" ").filter(Boolean);
      this.#issue(res, { clientId: client, scopes, issuer: this.issuer });
      return;
    }
    const clientId = this.#authenticate(req, body);
    if (clientId === undefined) {
      json(res, 401, { error: "invalid_client" });
      return;
    }
    let jkt: string | undefined;
    const proof = req.headers.dpop as string | undefined;
    // A request without a proof gets a Bearer token, as DPoP-capable servers do.
    if (this.#options.dpop && proof !== undefined) {
      const nonce = this.#options.dpop.nonce;
      const verdict = checkProof(proof, {
        htm: "POST",
        htu: `${this.issuer}/token`,
        ...(nonce ? { nonce } : {}),
      });
      if (!verdict.ok) {
        const error = verdict.reason === "nonce" ? "use_dpop_nonce" : "invalid_dpop_proof";
        json(res, 400, { error }, nonce ? { "dpop-nonce": nonce } : {});
        return;
      }
      jkt = verdict.jkt;
    }
    if (body.grant_type === "client_credentials") {
      const scopes = (body.scope ?? "").split(" ").filter(Boolean);
      const resource = body.resource;
      this.#issue(res, { clientId, scopes, issuer: this.issuer, resource, ...(jkt ? { jkt } : {}) });
      return;
    }
    if (body.grant_type === "refresh_token") {
      const granted = this.#refresh.get(body.refresh_token ?? "");
      if (this.#options.refuseRefresh || granted === undefined || granted.clientId !== clientId) {
        json(res, 400, { error: "invalid_grant", error_description: "refresh refused" });
        return;
      }
      this.#refresh.delete(body.refresh_token ?? "");
      this.#issue(res, jkt ? { ...granted, jkt } : granted);
      return;
    }
    const code = this.#codes.get(body.code ?? "");
    this.#codes.delete(body.code ?? "");
    if (
      body.grant_type !== "authorization_code" ||
      code === undefined ||
      code.clientId !== clientId ||
      code.redirectUri !== body.redirect_uri ||
      sha256url(body.code_verifier ?? "") !== code.challenge
    ) {
      json(res, 400, {
        error: "invalid_grant",
        error_description: "code, client or verifier mismatch",
      });
      return;
    }
    const asked = code.scope.split(" ").filter(Boolean);
    const grantable = this.#options.grantable;
    const scopes = grantable === undefined ? asked : asked.filter((scope) => grantable.includes(scope));
    this.#issue(res, { clientId, scopes, issuer: this.issuer, ...(jkt ? { jkt } : {}) });
  }
}
