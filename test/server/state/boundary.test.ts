import { describe, expect, it } from "vitest";
import { argsDigest } from "../../../src/server/state/claims.js";
import { RequestStateBoundary, RequestStateSecurity } from "../../../src/server/state/index.js";
import {
  accepted,
  auth,
  boundaryOf,
  inputRequired,
  keyed,
  makeCtx,
  mint,
  recordingNext,
  rejected,
  retry,
  testClock,
  warnings,
} from "./helpers.js";

/** Reads the claims inside a token with the policy's own codec. */
const claimsOf = (security: RequestStateSecurity, token: string) =>
  JSON.parse(Buffer.from(security.codec.unseal(token)).toString("utf8")) as Record<string, unknown>;

describe("RequestStateBoundary: sealing and restoring", () => {
  it("seals request state on the wire and restores the plaintext for the handler", async () => {
    const boundary = boundaryOf();
    const token = await mint(boundary, makeCtx(), "provision-v1");
    expect(token).toMatch(/^v1\./);
    expect(token).not.toContain("provision-v1");
    expect(await accepted(boundary, retry(makeCtx(), token))).toBe("provision-v1");
  });

  it("seals a resource-template flow on resources/read, bound to the URI", async () => {
    const boundary = boundaryOf();
    const read = makeCtx({ method: "resources/read", params: { uri: "x://reports/1" } });
    const token = await mint(boundary, read, "report-1");
    expect(await accepted(boundary, retry(read, token))).toBe("report-1");
    await rejected(boundary, retry(read, token, { params: { uri: "x://reports/2" } }));
  });

  it("passes other params through and does not mutate the caller's context", async () => {
    const boundary = boundaryOf();
    const token = await mint(boundary, makeCtx());
    const ctx = retry(makeCtx(), token, {
      params: {
        name: "provision",
        arguments: { name: "orders" },
        inputResponses: { region: { action: "accept" } },
      },
    });
    const { next, seen } = recordingNext();
    await boundary.handle(ctx, next);
    expect(seen[0]?.params).toEqual({ ...ctx.params, requestState: "plain-1" });
    expect(ctx.params.requestState).toBe(token);
  });

  it("treats absent arguments and {} as the same request", async () => {
    const boundary = boundaryOf();
    const token = await mint(boundary, makeCtx({ params: { name: "provision" } }));
    expect(
      await accepted(boundary, retry(makeCtx({ params: { name: "provision", arguments: {} } }), token)),
    ).toBe("plain-1");
  });

  it("reseals each round with a fresh token and a restamped iat, so the ttl bounds each round", async () => {
    const clock = testClock();
    const security = keyed({ ttl: 600 });
    const boundary = boundaryOf(security, "fleet", clock.now);
    const tokens = [await mint(boundary, makeCtx(), "step-1")];
    for (const step of ["step-2", "step-3"]) {
      clock.t += 500; // 1000 s overall, more than one ttl: only per-round time counts
      const previous = tokens.at(-1) ?? "";
      const { next, seen } = recordingNext(inputRequired(step));
      const result = await boundary.handle(retry(makeCtx(), previous), next);
      expect(seen[0]?.params.requestState).toBe(step === "step-2" ? "step-1" : "step-2");
      const token = result.requestState as string;
      expect(token).not.toBe(previous);
      expect(claimsOf(security, token)).toMatchObject({ iat: clock.t, exp: clock.t + 600, s: step });
      tokens.push(token);
    }
    clock.t += 500;
    expect(await accepted(boundary, retry(makeCtx(), tokens.at(-1)))).toBe("step-3");
  });

  it("writes the documented claims envelope and omits p when unbound", async () => {
    const clock = testClock(1_800_000_000.25);
    const security = keyed({ ttl: 90 });
    const token = await mint(boundaryOf(security, "fleet", clock.now), makeCtx(), "s-1");
    const claims = claimsOf(security, token);
    expect(Object.keys(claims)).toEqual(["v", "iat", "exp", "m", "t", "a", "s", "aud"]);
    expect(claims).toEqual({
      v: 1,
      iat: clock.t,
      exp: clock.t + 90,
      m: "tools/call",
      t: "provision",
      a: argsDigest({ name: "orders" }),
      s: "s-1",
      aud: "fleet",
    });
  });

  it("adds a salted principal claim, different on every mint for the same principal", async () => {
    const security = keyed();
    const boundary = boundaryOf(security);
    const ctx = makeCtx({ authInfo: auth("client", { subject: "alice" }) });
    const [one, two] = [
      claimsOf(security, await mint(boundary, ctx)),
      claimsOf(security, await mint(boundary, ctx)),
    ];
    expect(typeof one.p).toBe("string");
    expect(one.p).not.toBe(two.p);
    expect(JSON.stringify(one)).not.toContain("alice");
  });

  it("keeps the full ttl for a token minted at a fractional instant", async () => {
    const clock = testClock(1_000.25);
    const boundary = boundaryOf(keyed({ ttl: 0.5 }), "fleet", clock.now);
    const token = await mint(boundary, makeCtx());
    clock.t = 1_000.25 + 0.4;
    expect(await accepted(boundary, retry(makeCtx(), token))).toBe("plain-1");
    clock.t = 1_000.25 + 0.6;
    await rejected(boundary, retry(makeCtx(), token));
  });
});

describe("RequestStateBoundary: time window", () => {
  it("rejects expired state and accepts state just inside the ttl", async () => {
    const clock = testClock();
    const boundary = boundaryOf(keyed({ ttl: 600 }), "fleet", clock.now);
    const start = clock.t;
    const token = await mint(boundary, makeCtx());
    clock.t = start + 599;
    expect(await accepted(boundary, retry(makeCtx(), token))).toBe("plain-1");
    clock.t = start + 600; // exp itself is already expired
    const atExp = retry(makeCtx(), token);
    await rejected(boundary, atExp);
    expect(warnings(atExp)).toEqual(["requestState rejected on tools/call: expired"]);
    clock.t = start + 601;
    await rejected(boundary, retry(makeCtx(), token));
  });

  it("rejects state minted beyond the 60-second future skew and accepts it within", async () => {
    const clock = testClock();
    const verifier = boundaryOf(keyed(), "fleet", clock.now);
    const ahead = (seconds: number) =>
      mint(
        boundaryOf(keyed(), "fleet", () => clock.t + seconds),
        makeCtx(),
      );
    expect(await accepted(verifier, retry(makeCtx(), await ahead(30)))).toBe("plain-1");
    expect(await accepted(verifier, retry(makeCtx(), await ahead(60)))).toBe("plain-1");
    await rejected(verifier, retry(makeCtx(), await ahead(60.5)));
    const future = retry(makeCtx(), await ahead(120));
    await rejected(verifier, future);
    expect(warnings(future)).toEqual(["requestState rejected on tools/call: minted in the future"]);
  });

  it("rejects everything when the clock reads NaN", async () => {
    const token = await mint(boundaryOf(), makeCtx());
    await rejected(
      boundaryOf(keyed(), "fleet", () => Number.NaN),
      retry(makeCtx(), token),
    );
  });
});

describe("RequestStateBoundary: request binding", () => {
  it("rejects round-one state replayed on a different tool", async () => {
    const boundary = boundaryOf();
    const token = await mint(boundary, makeCtx());
    const other = retry(makeCtx(), token, { params: { name: "deprovision", arguments: { name: "orders" } } });
    await rejected(boundary, other);
    expect(warnings(other)).toEqual(["requestState rejected on tools/call: request binding"]);
  });

  it("rejects a retry with different arguments, and the original arguments complete", async () => {
    const boundary = boundaryOf();
    const token = await mint(boundary, makeCtx());
    await rejected(
      boundary,
      retry(makeCtx(), token, { params: { name: "provision", arguments: { name: "users" } } }),
    );
    expect(await accepted(boundary, retry(makeCtx(), token))).toBe("plain-1");
  });

  it("rejects state replayed on another method with the same name", async () => {
    const boundary = boundaryOf();
    const prompt = makeCtx({
      method: "prompts/get",
      params: { name: "provision", arguments: { name: "orders" } },
    });
    const token = await mint(boundary, prompt);
    expect(await accepted(boundary, retry(prompt, token))).toBe("plain-1");
    await rejected(boundary, retry(makeCtx(), token));
  });

  it("rejects state minted for null arguments on a retry whose number JSON.parse made Infinity", async () => {
    const boundary = boundaryOf();
    const [none, huge] = JSON.parse("[null, 1e400]") as unknown[];
    const original = makeCtx({ params: { name: "provision", arguments: { limit: none } } });
    const token = await mint(boundary, original);
    await rejected(
      boundary,
      retry(original, token, { params: { name: "provision", arguments: { limit: huge } } }),
    );
    expect(await accepted(boundary, retry(original, token))).toBe("plain-1");
  });

  it("digests lone-surrogate arguments instead of crashing, and tells them apart", async () => {
    const boundary = boundaryOf();
    const lone = makeCtx({ params: { name: "provision", arguments: { name: "\uD800" } } });
    const token = await mint(boundary, lone);
    expect(await accepted(boundary, retry(lone, token))).toBe("plain-1");
    await rejected(
      boundary,
      retry(lone, token, { params: { name: "provision", arguments: { name: "\uD801" } } }),
    );
  });
});

describe("RequestStateBoundary: audience", () => {
  it("rejects state across two services sharing a key but not a name", async () => {
    const [billing, shipping] = [boundaryOf(keyed(), "billing"), boundaryOf(keyed(), "shipping")];
    const token = await mint(billing, makeCtx());
    const crossed = retry(makeCtx(), token);
    await rejected(shipping, crossed);
    expect(warnings(crossed)).toEqual(["requestState rejected on tools/call: audience"]);
    expect(await accepted(billing, retry(makeCtx(), token))).toBe("plain-1");
  });

  it("rejects audience presence drift in both directions; each boundary accepts its own mint", async () => {
    const [named, anonymous] = [boundaryOf(keyed(), "svc"), boundaryOf(keyed(), null)];
    const [fromNamed, fromAnonymous] = [await mint(named, makeCtx()), await mint(anonymous, makeCtx())];
    expect(claimsOf(keyed(), fromAnonymous)).not.toHaveProperty("aud");
    await rejected(anonymous, retry(makeCtx(), fromNamed));
    await rejected(named, retry(makeCtx(), fromAnonymous));
    expect(await accepted(named, retry(makeCtx(), fromNamed))).toBe("plain-1");
    expect(await accepted(anonymous, retry(makeCtx(), fromAnonymous))).toBe("plain-1");
  });

  it("lets an explicit policy audience override the default audience", async () => {
    const security = keyed({ audience: "shared" });
    const [one, two] = [boundaryOf(security, "one"), boundaryOf(keyed({ audience: "shared" }), "two")];
    const token = await mint(one, makeCtx());
    expect(claimsOf(security, token).aud).toBe("shared");
    expect(await accepted(two, retry(makeCtx(), token))).toBe("plain-1");
    await rejected(boundaryOf(keyed(), "one"), retry(makeCtx(), token));
  });

  it("never cross-accepts between two default (ephemeral) policies", async () => {
    const [one, two] = [
      boundaryOf(RequestStateSecurity.ephemeral()),
      boundaryOf(RequestStateSecurity.ephemeral()),
    ];
    const token = await mint(one, makeCtx());
    const crossed = retry(makeCtx(), token);
    await rejected(two, crossed);
    expect(warnings(crossed)).toEqual(["requestState rejected on tools/call: unknown key"]);
  });

  it("requires defaultAudience to be given (a string or null)", () => {
    const omitted = {} as unknown as { defaultAudience: null };
    expect(() => new RequestStateBoundary(keyed(), omitted)).toThrow(TypeError);
    expect(() => new RequestStateBoundary(keyed(), { defaultAudience: 5 as unknown as string })).toThrow(
      TypeError,
    );
  });
});
