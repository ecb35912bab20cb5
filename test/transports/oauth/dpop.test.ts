/**
 * DPoP (RFC 9449) end to end on loopback: the OAuth client binds its tokens to its own key when the
 * authorization server offers ES256 proofs, proves possession on every request (the mocks verify
 * each proof's signature, method, URL, age, token hash and key), and follows both servers' nonces.
 */
import { createPublicKey, verify } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Client } from "../../../src/client/index.js";
import { StreamableHttpClientTransport } from "../../../src/transports/http/client.js";
import { DpopKey } from "../../../src/transports/http/oauth/dpop.js";
import {
  type OAuthClientOptions,
  OAuthClientProvider,
  type OAuthState,
  type OAuthStore,
} from "../../../src/transports/http/oauth/index.js";
import { checkProof, thumbprint } from "./dpop-check.js";
import { consent, worldKeeper } from "./world.js";

const keeper = worldKeeper();
afterEach(() => {
  vi.restoreAllMocks();
  return keeper.closeAll();
});

async function signIn(url: URL, options: Partial<OAuthClientOptions> = {}) {
  const authProvider = new OAuthClientProvider({
    redirectUri: "http://127.0.0.1:9/cb",
    authorize: consent,
    ...options,
  });
  const client = await Client.connect(new StreamableHttpClientTransport(url, { authProvider }));
  keeper.defer(() => client.close());
  return { client, authProvider };
}

function textOf(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0] as { text: string }).text;
}

describe("DpopKey", () => {
  it("signs proofs with one key, for the method and the URL without query, binding the token", async () => {
    const key = new DpopKey();
    const url = new URL("https://mcp.example.com/mcp?x=1#frag");
    const proof = await key.proof({ method: "POST", url, accessToken: "at-123" });
    const [header, payload, signature] = proof.split(".") as [string, string, string];
    const head = JSON.parse(Buffer.from(header, "base64url").toString());
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
    expect(head).toMatchObject({ typ: "dpop+jwt", alg: "ES256", jwk: { kty: "EC", crv: "P-256" } });
    expect(Object.keys(head.jwk).sort()).toEqual(["crv", "kty", "x", "y"]);
    expect(claims).toMatchObject({ htm: "POST", htu: "https://mcp.example.com/mcp" });
    const publicKey = createPublicKey({ key: head.jwk, format: "jwk" });
    expect(
      verify(
        "sha256",
        Buffer.from(`${header}.${payload}`),
        { key: publicKey, dsaEncoding: "ieee-p1363" },
        Buffer.from(signature, "base64url"),
      ),
    ).toBe(true);
    expect(
      checkProof(proof, { htm: "POST", htu: "https://mcp.example.com/mcp", accessToken: "at-123" }),
    ).toEqual({
      ok: true,
      jkt: thumbprint(head.jwk),
    });
    const again = await key.proof({ method: "POST", url });
    expect(JSON.parse(Buffer.from(again.split(".")[0] as string, "base64url").toString()).jwk).toEqual(
      head.jwk,
    );
    expect(JSON.parse(Buffer.from(again.split(".")[1] as string, "base64url").toString()).jti).not.toBe(
      claims.jti,
    );
  });

  it("carries the nonce a server asked for, per origin", async () => {
    const key = new DpopKey();
    key.rememberNonce(new URL("https://as.example/token"), "n-1");
    const claimsOf = async (url: string) =>
      JSON.parse(
        Buffer.from(
          (await key.proof({ method: "POST", url: new URL(url) })).split(".")[1] as string,
          "base64url",
        ).toString(),
      );
    expect((await claimsOf("https://as.example/token")).nonce).toBe("n-1");
    expect(await claimsOf("https://other.example/x")).not.toHaveProperty("nonce");
  });
});

describe("OAuthClientProvider with DPoP", () => {
  it("binds the token to its key and proves possession on every request", async () => {
    const { authServer, resource } = await keeper.world({ dpop: {} });
    const { client, authProvider } = await signIn(resource.url);
    expect(textOf(await client.callTool("whoami", {}))).toBe("client-1 []");
    expect(authProvider.tokens?.tokenType).toBe("DPoP");
    const posts = resource.posts().filter((entry) => entry.headers.authorization !== undefined);
    expect(posts.length).toBeGreaterThanOrEqual(2);
    for (const post of posts) {
      expect(post.headers.authorization).toMatch(/^DPoP at-/);
      expect(post.headers.dpop).toBeDefined();
    }
    const proofs = posts.map((post) => post.headers.dpop);
    expect(new Set(proofs).size).toBe(proofs.length);
    expect(authServer.requests("/token")[0]?.headers.dpop).toBeDefined();
  });

  it("follows the authorization server's and the resource's nonces", async () => {
    const { authServer, resource } = await keeper.world(
      { dpop: { nonce: "as-nonce" } },
      { dpopNonce: "rs-nonce" },
    );
    const { client } = await signIn(resource.url);
    expect(textOf(await client.callTool("whoami", {}))).toBe("client-1 []");
    expect(authServer.requests("/token")).toHaveLength(2);
    const refusedForNonce = resource.log.filter((entry) => entry.headers.authorization?.startsWith("DPoP"));
    expect(refusedForNonce.length).toBeGreaterThanOrEqual(2);
  });

  it.each([
    ["the server offers no DPoP", {}, {}],
    ["dpop is false", { dpop: {} }, { dpop: false }],
  ] as const)("stays with Bearer when %s", async (_label, as, options) => {
    const { authServer, resource } = await keeper.world(as);
    const { authProvider } = await signIn(resource.url, options);
    expect(authProvider.tokens?.tokenType).toBeUndefined();
    expect(authServer.requests("/token")[0]?.headers.dpop).toBeUndefined();
    expect(resource.posts().at(-1)?.headers.authorization).toMatch(/^Bearer /);
    expect(resource.posts().at(-1)?.headers.dpop).toBeUndefined();
  });
});

/** A store that keeps its state as JSON text, as a file would. */
function jsonStore(): OAuthStore & { text: string | undefined } {
  const store = {
    text: undefined as string | undefined,
    load: () => (store.text === undefined ? undefined : (JSON.parse(store.text) as OAuthState)),
    save: (state: OAuthState) => {
      store.text = JSON.stringify(state);
    },
  };
  return store;
}

function proofKey(proof: string | string[] | undefined): unknown {
  return JSON.parse(Buffer.from(String(proof ?? "").split(".")[0] as string, "base64url").toString()).jwk;
}

describe("DPoP with a store: the key outlives the process", () => {
  it("saves the private key with the tokens, and the next provider uses both without signing in", async () => {
    const { authServer, resource } = await keeper.world({ dpop: {} });
    const store = jsonStore();
    const first = await signIn(resource.url, { store });
    expect(textOf(await first.client.callTool("whoami", {}))).toBe("client-1 []");
    const saved = JSON.parse(store.text ?? "{}") as OAuthState;
    expect(saved.tokens?.tokenType).toBe("DPoP");
    expect(Object.keys(saved.dpopKey ?? {}).sort()).toEqual(["crv", "d", "kty", "x", "y"]);
    const firstKey = proofKey(resource.posts().at(-1)?.headers.dpop);

    let asked = 0;
    const next = await signIn(resource.url, {
      store,
      authorize: async (page) => {
        asked++;
        return consent(page);
      },
    });
    const before = resource.posts().length;
    expect(textOf(await next.client.callTool("whoami", {}))).toBe("client-1 []");
    expect(asked).toBe(0);
    expect(authServer.requests("/authorize")).toHaveLength(1);
    const later = resource.posts().slice(before);
    expect(later.length).toBeGreaterThan(0);
    for (const post of later) {
      expect(post.headers.authorization).toMatch(/^DPoP at-/);
      expect(proofKey(post.headers.dpop)).toEqual(firstKey);
    }
  });

  it("a stored key that cannot be read drops its tokens and signs in again with a new key", async () => {
    const { resource } = await keeper.world({ dpop: {} });
    const store = jsonStore();
    const first = await signIn(resource.url, { store });
    await first.client.callTool("whoami", {});
    const saved = JSON.parse(store.text ?? "{}") as OAuthState & { dpopKey: Record<string, string> };
    store.text = JSON.stringify({ ...saved, dpopKey: { ...saved.dpopKey, d: "AAAA" } });

    let asked = 0;
    const before = resource.log.length;
    const next = await signIn(resource.url, {
      store,
      authorize: async (page) => {
        asked++;
        return consent(page);
      },
    });
    expect(textOf(await next.client.callTool("whoami", {}))).toBe("client-1 []");
    expect(asked).toBe(1);
    // The old token is never sent: without its key it could only be refused.
    const oldToken = saved.tokens?.accessToken ?? "";
    expect(resource.log.slice(before).some((entry) => entry.headers.authorization?.includes(oldToken))).toBe(
      false,
    );
    const resaved = JSON.parse(store.text ?? "{}") as OAuthState;
    expect(resaved.dpopKey?.d).not.toBe("AAAA");
    expect(resaved.tokens?.accessToken).not.toBe(saved.tokens?.accessToken);
  });

  it("without a store the key is not extractable", async () => {
    // The key pairs WebCrypto really made: the private half's own flag is what keeps it in memory.
    const made: CryptoKeyPair[] = [];
    const subtle = globalThis.crypto.subtle;
    const generate = subtle.generateKey.bind(subtle) as (...args: unknown[]) => Promise<CryptoKeyPair>;
    vi.spyOn(subtle, "generateKey").mockImplementation((async (...args: unknown[]) => {
      const pair = await generate(...args);
      made.push(pair);
      return pair;
    }) as never);
    const key = new DpopKey();
    await key.proof({ method: "POST", url: new URL("http://127.0.0.1:9/token") });
    expect(made.map((pair) => pair.privateKey.extractable)).toEqual([false]);
    expect(await key.exportPrivate()).toBeUndefined();
    const persistable = new DpopKey({ persistable: true });
    const jwk = await persistable.exportPrivate();
    expect(made.map((pair) => pair.privateKey.extractable)).toEqual([false, true]);
    const imported = await DpopKey.from(jwk as NonNullable<typeof jwk>);
    expect(await imported.exportPrivate()).toEqual(jwk);
  });
});
