import { describe, expect, it } from "vitest";
import {
  InvalidRequestState,
  RequestStateBoundary,
  type RequestStateCodec,
  RequestStateSecurity,
} from "../../../src/server/state/index.js";
import { McpError } from "../../../src/types/index.js";
import {
  auth,
  boundaryOf,
  complete,
  inputRequired,
  KEY_A,
  keyed,
  makeCtx,
  mint,
  recordingNext,
  rejected,
  retry,
  testClock,
  warnings,
} from "./helpers.js";

const builtIn = keyed().codec;
/** The built-in codec, except where a test makes one method misbehave. */
const codecWith = (overrides: Partial<RequestStateCodec>): RequestStateCodec => ({
  seal: (payload) => builtIn.seal(payload),
  unseal: (token) => builtIn.unseal(token),
  ...overrides,
});

describe("RequestStateBoundary: only the three carriers, only input_required with string state", () => {
  it.each([
    ["custom method", "acme/thing"],
    ["notification", "notifications/progress"],
    ["tools/list", "tools/list"],
  ])("passes inbound state on a non-carrier method through unverified (%s)", async (_, method) => {
    const ctx = makeCtx({ method, params: { requestState: "not-a-token" } });
    const result = inputRequired("plaintext-out");
    const { next, seen } = recordingNext(result);
    expect(await boundaryOf().handle(ctx, next)).toBe(result);
    expect(seen).toEqual([ctx]);
    expect(seen[0]).toBe(ctx);
    expect(ctx.logs).toEqual([]);
  });

  it("leaves outbound state on a non-carrier method unsealed, and input_required without state untouched", async () => {
    for (const result of [inputRequired("plaintext-out"), inputRequired()]) {
      expect(await boundaryOf().handle(makeCtx({ method: "acme/thing" }), recordingNext(result).next)).toBe(
        result,
      );
    }
  });

  it("passes a non-MRTR method with no params through untouched", async () => {
    const ctx = makeCtx({ method: "ping", params: {} });
    const result = {};
    const { next, seen } = recordingNext(result);
    expect(await boundaryOf().handle(ctx, next)).toBe(result);
    expect(seen[0]).toBe(ctx);
  });

  it.each([
    ["a complete result", complete()],
    ["input_required without requestState", inputRequired()],
    ["input_required with a non-string state", inputRequired(42)],
    ["input_required with a null state", inputRequired(null)],
  ])("returns %s on a carrier as the same object", async (_, result) => {
    const { next, seen } = recordingNext(result);
    const ctx = makeCtx();
    expect(await boundaryOf().handle(ctx, next)).toBe(result);
    expect(seen[0]).toBe(ctx); // no inbound state: the context is not copied either
  });

  it("seals a short-circuited input_required result on a copy, leaving the original object alone", async () => {
    const original = inputRequired("short-circuit");
    const sealed = await boundaryOf().handle(makeCtx(), recordingNext(original).next);
    expect(sealed).not.toBe(original);
    expect(original.requestState).toBe("short-circuit");
    expect(sealed).toEqual({ ...original, requestState: expect.stringMatching(/^v1\./) });
  });

  it("seals and restores lone-surrogate handler state exactly", async () => {
    const state = "half \uD83D and \uDE00 halves";
    const boundary = boundaryOf();
    const token = await mint(boundary, makeCtx(), state);
    const { next, seen } = recordingNext();
    await boundary.handle(retry(makeCtx(), token), next);
    expect(seen[0]?.params.requestState).toBe(state);
  });
});

describe("RequestStateBoundary: deny on error, nothing leaks", () => {
  it("fails closed with the frozen error when the codec throws unexpectedly", async () => {
    const boundary = boundaryOf(
      new RequestStateSecurity({
        codec: codecWith({
          unseal: () => {
            throw new TypeError("codec bug");
          },
        }),
      }),
    );
    const ctx = retry(makeCtx(), await mint(boundaryOf(), makeCtx()));
    await rejected(boundary, ctx);
    expect(warnings(ctx)).toEqual(["requestState rejected on tools/call: codec error"]);
  });

  it("logs a codec's reject reason but never puts it on the wire", async () => {
    const codec = codecWith({
      unseal: () => {
        throw new InvalidRequestState("kms-specific reason\nwith a newline");
      },
    });
    const ctx = retry(makeCtx(), "kms1.abc");
    const error = await rejected(boundaryOf(new RequestStateSecurity({ codec })), ctx);
    expect(warnings(ctx)).toEqual([
      "requestState rejected on tools/call: kms-specific reason with a newline",
    ]);
    expect(JSON.stringify(error.toErrorObject())).not.toContain("kms-specific");
  });

  it("answers tampered, expired and rebound state identically, and logs no secret", async () => {
    const clock = testClock();
    const security = new RequestStateSecurity({ keys: [KEY_A] }, { ttl: 60 });
    const boundary = new RequestStateBoundary(security, { defaultAudience: "fleet", now: clock.now });
    const authInfo = auth("client-secret-id", { subject: "subject-secret" });
    const token = await mint(boundary, makeCtx({ authInfo }), "PLAINTEXT-SECRET");
    const tampered = retry(makeCtx({ authInfo }), `${token}-TAMPERED`);
    const rebound = retry(makeCtx({ authInfo }), token, { params: { name: "other" } });
    const wrongUser = retry(makeCtx({ authInfo: auth("client-secret-id", { subject: "other" }) }), token);
    const errors = [await rejected(boundary, tampered), await rejected(boundary, rebound)];
    errors.push(await rejected(boundary, wrongUser));
    clock.t += 61;
    const expired = retry(makeCtx({ authInfo }), token);
    errors.push(await rejected(boundary, expired));
    const wire = new Set(errors.map((e) => JSON.stringify(e.toErrorObject())));
    expect(wire.size).toBe(1);
    const logged = [tampered, rebound, wrongUser, expired].flatMap(warnings);
    expect(logged).toEqual([
      "requestState rejected on tools/call: malformed",
      "requestState rejected on tools/call: request binding",
      "requestState rejected on tools/call: principal",
      "requestState rejected on tools/call: expired",
    ]);
    for (const secret of [token, "PLAINTEXT-SECRET", KEY_A, "client-secret-id", "subject-secret"]) {
      expect(logged.join("\n")).not.toContain(secret);
      expect([...wire].join()).not.toContain(secret);
    }
  });

  it.each([
    [
      "throws",
      () => {
        throw new Error("KMS credentials expired for arn:secret");
      },
    ],
    ["returns a non-string", () => 42 as unknown as string],
  ])("turns a codec that %s during seal into a sanitized internal error", async (_, seal) => {
    const ctx = makeCtx();
    const boundary = boundaryOf(new RequestStateSecurity({ codec: codecWith({ seal }) }));
    const error = await boundary.handle(ctx, recordingNext(inputRequired("plain")).next).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).toErrorObject()).toEqual({ code: -32603, message: "Internal error" });
    expect(ctx.logs.map((l) => l.level)).toEqual(["error"]);
    expect(ctx.logs[0]?.message).toMatch(/^requestState seal failed on tools\/call: codec/);
    expect(ctx.logs[0]?.message).not.toContain("arn:secret");
  });

  it("can be passed around as a detached middleware function", async () => {
    const { handle } = boundaryOf();
    const sealed = await handle(makeCtx(), recordingNext(inputRequired("p")).next);
    expect(sealed.requestState).toMatch(/^v1\./);
  });
});
