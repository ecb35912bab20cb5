/**
 * Property test: random mutations of valid tokens (and of the request they are replayed on) are all
 * rejected with the frozen error, and valid tokens are never rejected. Seeded, so a failure replays.
 */
import { describe, expect, it } from "vitest";
import type { AuthInfo, ServerRequestContext } from "../../../src/server/context.js";
import { argsDigest } from "../../../src/server/state/claims.js";
import { RequestStateBoundary, RequestStateSecurity } from "../../../src/server/state/index.js";
import { INVALID_REQUEST_STATE_MESSAGE, McpError, type ResultObject } from "../../../src/types/index.js";
import { prng } from "../../prng.js";
import { auth, inputRequired, KEY_A, KEY_B, KEY_C, makeCtx } from "./helpers.js";

const SEED = 0x5eed_2026;
const MUTATIONS = 100_000;
const VALID_CHECKS = 10_000;
const T0 = 1_800_000_000;
const TTL = 600;
const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

interface Minted {
  /** When to verify, if not at a random instant inside the token's window. */
  readonly at?: number;
  readonly ctx: ServerRequestContext;
  readonly audience: string | null;
  readonly state: string;
  readonly token: string;
}

describe("request-state tokens under random mutation", () => {
  it(`rejects ${MUTATIONS} mutated tokens and accepts every valid one`, { timeout: 60_000 }, async () => {
    const rand = prng(SEED);
    const clock = { t: T0 };
    const now = () => clock.t;
    const ring = new RequestStateSecurity({ keys: [KEY_A, KEY_B] }, { ttl: TTL });
    const audiences: (string | null)[] = ["fleet", "other", null];
    const boundaries = new Map(
      audiences.map((aud) => [aud, new RequestStateBoundary(ring, { defaultAudience: aud, now })]),
    );
    const boundary = (aud: string | null) => boundaries.get(aud) as RequestStateBoundary;
    const principals: (AuthInfo | undefined)[] = [
      undefined,
      auth("client", { subject: "alice" }),
      auth("client", { subject: "bob" }),
      auth("client", { issuer: "https://idp.example", subject: "alice" }),
      auth("other-client"),
    ];
    const tools = ["provision", "deprovision", "resize", "ünïcode-tool"];
    const randomArgs = (): Record<string, unknown> => {
      const args: Record<string, unknown> = {};
      for (const key of ["name", "region", "size", "tags"]) {
        if (rand.next() < 0.5) continue;
        args[key] = rand.pick([
          rand.int(100),
          `v${rand.int(1000)}`,
          [rand.int(5), "x"],
          { deep: rand.int(3) },
          "\uD800",
        ]);
      }
      return args;
    };
    const request = (method: string, target: string, args: Record<string, unknown>, authInfo?: AuthInfo) =>
      makeCtx({
        method,
        authInfo,
        params: method === "resources/read" ? { uri: `x://${target}` } : { name: target, arguments: args },
      });
    const targetOf = (ctx: ServerRequestContext) =>
      ctx.method === "resources/read" ? String(ctx.params.uri).slice("x://".length) : String(ctx.params.name);
    const argsOf = (ctx: ServerRequestContext) => (ctx.params.arguments ?? {}) as Record<string, unknown>;
    const randomRequest = () =>
      request(
        rand.pick(["tools/call", "prompts/get", "resources/read"]),
        rand.pick(tools),
        randomArgs(),
        rand.pick(principals),
      );
    const mintWith = async (b: RequestStateBoundary, ctx: ServerRequestContext, state: string) => {
      const result = await b.handle(ctx, async () => inputRequired(state));
      return result.requestState as string;
    };

    // Pools of valid tokens, tokens minted under keys the ring does not hold, and future-dated tokens.
    const pool: Minted[] = [];
    for (let i = 0; i < 300; i++) {
      const ctx = randomRequest();
      const audience = rand.pick(audiences);
      const state = `state-${i}-${rand.pick(["plain", "é", "\uDC00", '{"json":true}'])}`;
      pool.push({ ctx, audience, state, token: await mintWith(boundary(audience), ctx, state) });
    }
    const foreign: Minted[] = [];
    for (const security of [new RequestStateSecurity({ keys: [KEY_C] }), RequestStateSecurity.ephemeral()]) {
      for (let i = 0; i < 50; i++) {
        const base = rand.pick(pool);
        const minter = new RequestStateBoundary(security, { defaultAudience: base.audience, now });
        foreign.push({ ...base, token: await mintWith(minter, base.ctx, base.state) });
      }
    }
    const future: Minted[] = [];
    for (let i = 0; i < 100; i++) {
      const base = rand.pick(pool);
      const ahead = 60 + 0.001 + rand.next() * 3600;
      const minter = new RequestStateBoundary(ring, {
        defaultAudience: base.audience,
        now: () => T0 + ahead,
      });
      // Verified at any instant more than the 60 s skew before its iat.
      const at = T0 + rand.next() * (ahead - 60.001);
      future.push({ ...base, token: await mintWith(minter, base.ctx, base.state), at });
    }
    const kidOf = (token: string) => Buffer.from(token.slice(3), "base64url").subarray(0, 4);
    const sealedBy = (keys: string[]) => new RequestStateSecurity({ keys }).codec.seal(new Uint8Array(1));
    // Donor kids: another ring key (wrong key, right slot), a retired key, an ephemeral key, noise.
    const kids = [
      kidOf(sealedBy([KEY_B])),
      kidOf(sealedBy([KEY_C])),
      kidOf(RequestStateSecurity.ephemeral().codec.seal(new Uint8Array(1))),
      Buffer.from([0, 0, 0, 0]),
    ];
    const body = (token: string) => Buffer.from(token.slice(3), "base64url");
    const encode = (raw: Uint8Array) => `v1.${Buffer.from(raw).toString("base64url")}`;
    const mutations: Record<string, (m: Minted) => Minted | undefined> = {
      "byte flip": (m) => {
        const raw = body(m.token);
        const at = rand.int(raw.length);
        raw[at] = (raw[at] as number) ^ (1 + rand.int(255));
        return { ...m, token: encode(raw) };
      },
      truncation: (m) => ({ ...m, token: m.token.slice(0, m.token.length - 1 - rand.int(m.token.length)) }),
      extension: (m) =>
        rand.next() < 0.5
          ? {
              ...m,
              token: m.token + Array.from({ length: 1 + rand.int(8) }, () => rand.pick([...B64URL])).join(""),
            }
          : { ...m, token: encode(Buffer.concat([body(m.token), Buffer.from([rand.int(256)])])) },
      "re-encoding": (m) => {
        const t = m.token;
        const at = 3 + rand.int(t.length - 3);
        const variants = [
          `${t}=`,
          `${t}==`,
          `${t}\n`,
          ` ${t}`,
          `V1.${t.slice(3)}`,
          `${t.slice(0, at)}${rand.pick([" ", "!", "*", ".", "=", "\n", "\t"])}${t.slice(at)}`,
          `v1.${body(t).toString("base64")}`,
          `${t.slice(0, -1)}${rand.pick([...B64URL])}`,
        ];
        return { ...m, token: rand.pick(variants) };
      },
      "kid transplant": (m) => {
        const raw = body(m.token);
        rand.pick(kids).copy(raw, 0, 0, 4);
        return { ...m, token: encode(raw) };
      },
      "body splice": (m) => {
        const other = body(rand.pick(pool).token);
        const raw = body(m.token);
        const cut = 4 + rand.int(Math.min(raw.length, other.length) - 4);
        return { ...m, token: encode(Buffer.concat([raw.subarray(0, cut), other.subarray(cut)])) };
      },
      "format prefix": (m) => ({
        ...m,
        token: `${rand.pick(["v2.", "v0.", "", "v1", "kms1."])}${m.token.slice(3)}`,
      }),
      "cross-tool": (m) => {
        const target = rand.pick(tools.filter((t) => t !== targetOf(m.ctx)));
        return { ...m, ctx: request(m.ctx.method, target, argsOf(m.ctx), m.ctx.authInfo) };
      },
      "cross-method": (m) => {
        const method = rand.pick(
          ["tools/call", "prompts/get", "resources/read"].filter((x) => x !== m.ctx.method),
        );
        return { ...m, ctx: request(method, targetOf(m.ctx), argsOf(m.ctx), m.ctx.authInfo) };
      },
      "cross-arguments": (m) => {
        if (m.ctx.method === "resources/read") return undefined; // bound by URI only: see cross-tool
        const args = randomArgs();
        if (argsDigest(args) === argsDigest(argsOf(m.ctx))) return undefined;
        return { ...m, ctx: request(m.ctx.method, targetOf(m.ctx), args, m.ctx.authInfo) };
      },
      "cross-principal": (m) => {
        const authInfo = rand.pick(principals.filter((p) => p !== m.ctx.authInfo));
        return { ...m, ctx: makeCtx({ method: m.ctx.method, params: m.ctx.params, authInfo }) };
      },
      "cross-audience": (m) => ({ ...m, audience: rand.pick(audiences.filter((a) => a !== m.audience)) }),
      expired: (m) => ({ ...m, at: T0 + TTL + rand.next() * 10 * TTL }),
      "future-dated": () => rand.pick(future),
      "retired key": () => rand.pick(foreign),
    };

    const counts = new Map<string, number>();
    let handled = 0;
    const next = async (): Promise<ResultObject> => {
      handled++;
      return { resultType: "complete" };
    };
    const kinds = Object.keys(mutations);
    let total = 0;
    while (total < MUTATIONS) {
      const kind = rand.pick(kinds);
      const original = rand.pick(pool);
      const candidate = mutations[kind]?.(original);
      // A "mutation" that left token, request, audience and time alone would be a valid token: skip it.
      if (
        candidate === undefined ||
        (candidate.token === original.token &&
          candidate.ctx === original.ctx &&
          candidate.audience === original.audience &&
          candidate.at === undefined)
      ) {
        continue;
      }
      clock.t = candidate.at ?? T0 + rand.next() * (TTL - 1);
      const ctx = makeCtx({
        method: candidate.ctx.method,
        authInfo: candidate.ctx.authInfo,
        params: { ...candidate.ctx.params, requestState: candidate.token },
      });
      const error = await boundary(candidate.audience)
        .handle(ctx, next)
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      if (
        !(error instanceof McpError) ||
        error.code !== -32602 ||
        error.message !== INVALID_REQUEST_STATE_MESSAGE
      ) {
        throw new Error(`seed ${SEED}: ${kind} mutation #${total} was not rejected: ${String(error)}`);
      }
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
      total++;
    }
    expect(handled).toBe(0);
    expect(total).toBeGreaterThanOrEqual(MUTATIONS);
    expect([...counts.keys()].sort()).toEqual([...kinds].sort());
    for (const count of counts.values()) expect(count).toBeGreaterThan(MUTATIONS / kinds.length / 2);

    for (let i = 0; i < VALID_CHECKS; i++) {
      const m = rand.pick(pool);
      clock.t = T0 - 59.999 + rand.next() * (TTL + 59.998); // anywhere in [iat - skew, exp)
      const ctx = makeCtx({
        method: m.ctx.method,
        authInfo: m.ctx.authInfo,
        params: { ...m.ctx.params, requestState: m.token },
      });
      let seen: unknown;
      await boundary(m.audience).handle(ctx, async (inner) => {
        seen = inner.params.requestState;
        return { resultType: "complete" };
      });
      if (seen !== m.state) throw new Error(`seed ${SEED}: valid token #${i} was not restored`);
    }
  });
});
