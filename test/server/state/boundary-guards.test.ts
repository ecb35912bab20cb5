import { describe, expect, it } from "vitest";
import type { ServerRequestContext } from "../../../src/server/context.js";
import { argsDigest } from "../../../src/server/state/claims.js";
import type { PrincipalBinder, RequestStateBoundary } from "../../../src/server/state/index.js";
import { McpError } from "../../../src/types/index.js";
import {
  accepted,
  auth,
  boundaryOf,
  complete,
  inputRequired,
  keyed,
  makeCtx,
  mint,
  recordingNext,
  rejected,
  retry,
  warnings,
} from "./helpers.js";

const boundaryAt = (security = keyed(), now?: () => number) => boundaryOf(security, "fleet", now);
const alice = auth("shared-client", { subject: "alice" });
const bob = auth("shared-client", { subject: "bob" });
const as = (authInfo: ServerRequestContext["authInfo"]) => makeCtx({ authInfo });

/** A valid envelope for `makeCtx()`'s request, to be altered and sealed by a test. */
function envelope(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const iat = Date.now() / 1000;
  const binding = { m: "tools/call", t: "provision", a: argsDigest({ name: "orders" }) };
  return { v: 1, iat, exp: iat + 600, ...binding, s: "forged", aud: "fleet", ...extra };
}
const sealed = (payload: string | Record<string, unknown>, security = keyed()) =>
  security.codec.seal(Buffer.from(typeof payload === "string" ? payload : JSON.stringify(payload)));

/** Runs one sealing round and returns the error it failed with. */
async function sealFailure(boundary: RequestStateBoundary, ctx = makeCtx()): Promise<McpError> {
  const error = await boundary.handle(ctx, recordingNext(inputRequired("plain")).next).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  expect((error as McpError).toErrorObject()).toEqual({ code: -32603, message: "Internal error" });
  return error as McpError;
}

describe("RequestStateBoundary: principal binding", () => {
  it("rejects state minted with a principal when the verifier derives none", async () => {
    const boundary = boundaryAt();
    const token = await mint(boundary, as(alice));
    const anonymous = retry(makeCtx(), token);
    await rejected(boundary, anonymous);
    expect(warnings(anonymous)).toEqual(["requestState rejected on tools/call: principal drift"]);
  });

  it("rejects state minted without a principal when the verifier derives one", async () => {
    const boundary = boundaryAt();
    const token = await mint(boundary, makeCtx());
    await rejected(boundary, retry(as(alice), token));
  });

  it("rejects state for a different principal of the same OAuth client and restores it for its own", async () => {
    const boundary = boundaryAt();
    const token = await mint(boundary, as(alice));
    const forBob = retry(as(bob), token);
    await rejected(boundary, forBob);
    expect(warnings(forBob)).toEqual(["requestState rejected on tools/call: principal"]);
    expect(await accepted(boundary, retry(as(alice), token))).toBe("plain-1");
  });

  it("does not bind at all when bindPrincipal is null", async () => {
    const boundary = boundaryAt(keyed({ bindPrincipal: null }));
    const token = await mint(boundary, as(alice));
    expect(await accepted(boundary, retry(as(bob), token))).toBe("plain-1");
  });

  it("binds and verifies a lone-surrogate principal, and tells it from its neighbour", async () => {
    let principal = "user-\uD800";
    const boundary = boundaryAt(keyed({ bindPrincipal: () => principal }));
    const token = await mint(boundary, makeCtx());
    expect(await accepted(boundary, retry(makeCtx(), token))).toBe("plain-1");
    principal = "user-\uD801"; // both would collapse to U+FFFD in plain UTF-8
    await rejected(boundary, retry(makeCtx(), token));
  });

  it("fails the seal as an internal error when the principal binding throws", async () => {
    const boundary = boundaryAt(
      keyed({
        bindPrincipal: () => {
          throw new Error("directory down: alice@example.com");
        },
      }),
    );
    const ctx = makeCtx();
    await sealFailure(boundary, ctx);
    expect(ctx.logs).toEqual([
      { level: "error", message: "requestState seal failed on tools/call: principal binding" },
    ]);
  });

  it("fails the unseal with the frozen rejection when the principal binding throws", async () => {
    const token = await mint(boundaryAt(), makeCtx());
    const throwing: PrincipalBinder = () => {
      throw new Error("boom");
    };
    const ctx = retry(makeCtx(), token);
    await rejected(boundaryAt(keyed({ bindPrincipal: throwing })), ctx);
    expect(warnings(ctx)).toEqual(["requestState rejected on tools/call: principal binding"]);
  });

  it.each([
    ["number", 42],
    ["null", null],
  ])("fails closed on a non-string principal when sealing and when verifying (%s)", async (_, value) => {
    const binder = (() => value) as unknown as PrincipalBinder;
    const sealing = makeCtx();
    await sealFailure(boundaryAt(keyed({ bindPrincipal: binder })), sealing);
    expect(sealing.logs.map((l) => l.message)).toEqual([
      "requestState seal failed on tools/call: principal binding",
    ]);
    const verifying = retry(makeCtx(), await mint(boundaryAt(), makeCtx()));
    await rejected(boundaryAt(keyed({ bindPrincipal: binder })), verifying);
    expect(warnings(verifying)).toEqual(["requestState rejected on tools/call: principal binding"]);
  });

  it("never calls the principal binding on a round that neither carries nor returns state", async () => {
    let calls = 0;
    const boundary = boundaryAt(keyed({ bindPrincipal: () => String(++calls) }));
    await boundary.handle(makeCtx(), recordingNext(complete()).next);
    expect(calls).toBe(0);
  });
});

describe("RequestStateBoundary: forged and odd inbound state", () => {
  it.each([
    ["number", 42],
    ["object", { token: "v1.x" }],
    ["array", ["v1.x"]],
    ["boolean", true],
  ])("rejects a non-string inbound requestState with the frozen error (%s)", async (_, value) => {
    await rejected(boundaryAt(), retry(makeCtx(), value));
  });

  it("treats an explicit null requestState as absent", async () => {
    const ctx = retry(makeCtx(), null);
    const { next, seen } = recordingNext();
    await boundaryAt().handle(ctx, next);
    expect(seen[0]?.params).toEqual({ name: "provision", arguments: { name: "orders" } });
    expect(ctx.logs).toEqual([]);
  });

  it("rejects a plaintext echo and logs the reason as malformed", async () => {
    const ctx = retry(makeCtx(), "plain-1");
    await rejected(boundaryAt(), ctx);
    expect(warnings(ctx)).toEqual(["requestState rejected on tools/call: malformed"]);
  });

  it.each([
    ["not-json", "not json at all"],
    ["not-utf8", "\uFFFF"],
    ["json-array", "[1,2,3]"],
    ["json-missing-claims", { v: 1, s: "x" }],
    ["json-wrong-envelope-version", envelope({ v: 2 })],
    ["json-non-string-state", envelope({ s: { inner: 1 } })],
    ["json-string-times", envelope({ iat: "0", exp: "9999999999" })],
  ])("rejects codec-authenticated bytes that are not a claims envelope (%s)", async (_, payload) => {
    const token = payload === "\uFFFF" ? keyed().codec.seal(Buffer.from([0xff, 0xfe])) : sealed(payload);
    const ctx = retry(makeCtx(), token);
    await rejected(boundaryAt(), ctx);
    expect(warnings(ctx)).toEqual(["requestState rejected on tools/call: malformed"]);
  });

  it("accepts a well-formed envelope sealed by the codec (the forgery tests above are not vacuous)", async () => {
    expect(await accepted(boundaryAt(), retry(makeCtx(), sealed(envelope())))).toBe("forged");
  });

  it.each([
    ["not-base64", "!!!not base64!!!"],
    ["int", 7],
    ["object", { salt: "x" }],
  ])("rejects a forged principal claim that is not a base64url string (%s)", async (_, p) => {
    await rejected(boundaryAt(), retry(as(alice), sealed(envelope({ p }))));
  });
});
