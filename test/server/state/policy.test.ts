import { describe, expect, it } from "vitest";
import type { ServerRequestContext } from "../../../src/server/context.js";
import {
  AesGcmRequestStateCodec,
  authenticatedPrincipal,
  InvalidRequestState,
  type RequestStateCodec,
  RequestStateSecurity,
  type RequestStateSource,
} from "../../../src/server/state/index.js";
import { KEY_A } from "./helpers.js";

const EXACTLY_ONE = new Error("RequestStateSecurity takes exactly one of keys or codec");
const plainCodec: RequestStateCodec = {
  seal: (payload) => Buffer.from(payload).toString("base64url"),
  unseal: (token) => Buffer.from(token, "base64url"),
};
const enc = (text: string) => new TextEncoder().encode(text);

describe("RequestStateSecurity", () => {
  it("rejects keys and codec together at construction", () => {
    const both = { keys: [KEY_A], codec: plainCodec } as unknown as RequestStateSource;
    expect(() => new RequestStateSecurity(both)).toThrow(EXACTLY_ONE);
  });

  it.each([
    ["empty-source", {}],
    ["undefined-source", undefined],
    ["explicit-undefineds", { keys: undefined, codec: undefined }],
    ["null-codec", { codec: null }],
    ["null-keys", { keys: null }],
    ["explicit-nulls", { keys: null, codec: null }],
  ])("rejects a policy with neither keys nor codec (%s)", (_, source) => {
    expect(() => new RequestStateSecurity(source as unknown as RequestStateSource)).toThrow(EXACTLY_ONE);
  });

  it("treats a null keys or codec as absent, as Python's None", () => {
    const keyed = new RequestStateSecurity({ keys: [KEY_A], codec: null } as unknown as RequestStateSource);
    expect(keyed.codec).toBeInstanceOf(AesGcmRequestStateCodec);
    const coded = new RequestStateSecurity({
      codec: plainCodec,
      keys: null,
    } as unknown as RequestStateSource);
    expect(coded.codec).toBe(plainCodec);
  });

  it.each([
    ["zero", 0],
    ["negative", -5],
    ["nan", Number.NaN],
    ["inf", Number.POSITIVE_INFINITY],
    ["negative-inf", Number.NEGATIVE_INFINITY],
    ["string", "600" as unknown as number],
  ])("rejects a non-positive or non-finite ttl, for keys and ephemeral() (%s)", (_, ttl) => {
    expect(() => new RequestStateSecurity({ keys: [KEY_A] }, { ttl })).toThrow(RangeError);
    expect(() => RequestStateSecurity.ephemeral({ ttl })).toThrow(RangeError);
    expect(() => new RequestStateSecurity({ codec: plainCodec }, { ttl })).toThrow(RangeError);
  });

  it("defaults the ttl to 600 seconds and stores an explicit one", () => {
    expect(new RequestStateSecurity({ keys: [KEY_A] }).ttl).toBe(600);
    expect(new RequestStateSecurity({ keys: [KEY_A] }, { ttl: 0.5 }).ttl).toBe(0.5);
    expect(RequestStateSecurity.ephemeral({ ttl: 30 }).ttl).toBe(30);
  });

  it("builds a working built-in codec from keys", () => {
    const security = new RequestStateSecurity({ keys: [KEY_A] });
    expect(security.codec).toBeInstanceOf(AesGcmRequestStateCodec);
    const token = security.codec.seal(enc("p"));
    expect(Buffer.from(new AesGcmRequestStateCodec([KEY_A]).unseal(token)).toString()).toBe("p");
  });

  it("stores a custom codec as is, and refuses an object that is not one", () => {
    expect(new RequestStateSecurity({ codec: plainCodec }).codec).toBe(plainCodec);
    const notACodec = { codec: { seal: () => "x" } } as unknown as RequestStateSource;
    expect(() => new RequestStateSecurity(notACodec)).toThrow(TypeError);
  });

  it("gives ephemeral policies protected, mutually unintelligible keys", () => {
    const [one, two] = [RequestStateSecurity.ephemeral(), RequestStateSecurity.ephemeral()];
    expect(one.codec).toBeInstanceOf(AesGcmRequestStateCodec);
    const token = one.codec.seal(enc("mine"));
    expect(Buffer.from(one.codec.unseal(token)).toString()).toBe("mine");
    expect(() => two.codec.unseal(token)).toThrow(new InvalidRequestState("unknown key"));
  });

  it("stores an explicit audience and defaults it to undefined", () => {
    expect(new RequestStateSecurity({ keys: [KEY_A] }).audience).toBeUndefined();
    expect(new RequestStateSecurity({ keys: [KEY_A] }, { audience: "billing" }).audience).toBe("billing");
    expect(RequestStateSecurity.ephemeral({ audience: "billing" }).audience).toBe("billing");
    const badAudience = { audience: 7 as unknown as string };
    expect(() => new RequestStateSecurity({ keys: [KEY_A] }, badAudience)).toThrow(TypeError);
  });

  it("binds the authenticated principal by default", () => {
    expect(new RequestStateSecurity({ keys: [KEY_A] }).bindPrincipal).toBe(authenticatedPrincipal);
    expect(RequestStateSecurity.ephemeral().bindPrincipal).toBe(authenticatedPrincipal);
  });

  it("stores an explicit principal binding callable, or null to disable binding", () => {
    const fromHeader = (ctx: ServerRequestContext) => String(ctx.requestId);
    expect(new RequestStateSecurity({ keys: [KEY_A] }, { bindPrincipal: fromHeader }).bindPrincipal).toBe(
      fromHeader,
    );
    expect(new RequestStateSecurity({ keys: [KEY_A] }, { bindPrincipal: null }).bindPrincipal).toBeNull();
    const notCallable = { bindPrincipal: "alice" as unknown as null };
    expect(() => new RequestStateSecurity({ keys: [KEY_A] }, notCallable)).toThrow(TypeError);
  });
});
