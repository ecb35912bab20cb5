import { createHash } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import {
  argsDigest,
  canonicalJson,
  principalClaim,
  requestBinding,
  verifyPrincipalClaim,
} from "../../../src/server/state/claims.js";
import { decodeBase64UrlStrict, encodeWtf8 } from "../../../src/server/state/encoding.js";
import { InvalidRequestState } from "../../../src/server/state/index.js";
import { INPUT_REQUIRED_METHODS } from "../../../src/types/index.js";
import { prng } from "../../prng.js";

describe("canonicalJson", () => {
  it("sorts keys at every depth and writes compact JSON", () => {
    expect(canonicalJson({ b: 1, a: [{ d: null, c: true }, "x"], z: { y: { x: 1.5 } } })).toBe(
      '{"a":[{"c":true,"d":null},"x"],"b":1,"z":{"y":{"x":1.5}}}',
    );
  });

  it("escapes every non-ASCII code unit, astral characters as surrogate pairs", () => {
    expect(canonicalJson({ clé: "東京 🌍" })).toBe('{"cl\\u00e9":"\\u6771\\u4eac \\ud83c\\udf0d"}');
  });

  it("serializes lone surrogates without throwing and keeps them distinct", () => {
    expect(canonicalJson("\uD800")).toBe('"\\ud800"');
    expect(canonicalJson(["\uDC00x"])).toBe('["\\udc00x"]');
    expect(canonicalJson("\uD800")).not.toBe(canonicalJson("\uD801"));
  });

  it("escapes exactly as JSON text with every unit past ASCII as \\uXXXX, on random strings", () => {
    const random = prng(20261203);
    const units = [0x41, 0x22, 0x5c, 0x0a, 0x1f, 0x7f, 0x80, 0xe9, 0x6771, 0xd83c, 0xdf0d, 0xdc00, 0xffff];
    const asJsonText = (text: string) =>
      JSON.stringify(text).replace(
        /[\u0080-\uffff]/g,
        (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`,
      );
    for (let run = 0; run < 500; run++) {
      const length = random.int(40);
      const text = String.fromCharCode(...Array.from({ length }, () => random.pick(units)));
      expect(canonicalJson(text)).toBe(asJsonText(text));
      expect(canonicalJson({ [text]: [text] })).toBe(`{${asJsonText(text)}:[${asJsonText(text)}]}`);
    }
  });

  it("drops what JSON drops: undefined and function members; undefined array items become null", () => {
    expect(canonicalJson({ a: undefined, b: () => 1, c: [undefined] })).toBe('{"c":[null]}');
  });

  it("writes non-finite numbers by name (as Python's json.dumps), never as null", () => {
    // JSON.parse reads 1e400 as Infinity: a state minted for null must not fit it.
    const [none, huge, tiny] = JSON.parse("[null, 1e400, -1e400]") as unknown[];
    expect(canonicalJson({ limit: huge })).toBe('{"limit":Infinity}');
    expect(canonicalJson([tiny, Number.NaN])).toBe("[-Infinity,NaN]");
    const digests = new Set([none, huge, tiny, Number.NaN].map((limit) => argsDigest({ limit })));
    expect(digests.size).toBe(4);
  });

  it("applies toJSON as JSON.stringify does, so two Dates never share a digest", () => {
    const on = new Date(0);
    expect(canonicalJson({ on })).toBe(JSON.stringify({ on }));
    expect(argsDigest({ on })).not.toBe(argsDigest({ on: new Date(1) }));
  });

  it("refuses values JSON cannot hold at all", () => {
    expect(() => canonicalJson(10n)).toThrow(TypeError);
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
  });
});

describe("argsDigest", () => {
  it("is 16 bytes of base64url, independent of key order", () => {
    const digest = argsDigest({ name: "orders", region: { zone: "a", dc: 1 } });
    expect(digest).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(argsDigest({ region: { dc: 1, zone: "a" }, name: "orders" })).toBe(digest);
  });

  it("is the first 16 bytes of SHA-256 over the canonical JSON", () => {
    const args = { b: [1, "é"], a: { y: null, x: true } };
    const expected = createHash("sha256").update(canonicalJson(args), "utf8").digest().subarray(0, 16);
    expect(argsDigest(args)).toBe(expected.toString("base64url"));
  });

  it("gives the same digest where Node has no one-shot crypto.hash (before 20.12)", async () => {
    vi.resetModules();
    vi.doMock("node:crypto", async (importOriginal) => {
      const original = await importOriginal<typeof import("node:crypto")>();
      return { ...original, hash: undefined };
    });
    try {
      const fallback = await import("../../../src/server/state/claims.js");
      const args = { name: "orders", region: { zone: "a", dc: 1 } };
      expect(fallback.argsDigest(args)).toBe(argsDigest(args));
    } finally {
      vi.doUnmock("node:crypto");
      vi.resetModules();
    }
  });

  it("differs when any argument differs", () => {
    const digests = new Set([{}, { n: 1 }, { n: "1" }, { n: [1] }, { n: null }, { m: 1 }].map(argsDigest));
    expect(digests.size).toBe(6);
  });
});

describe("requestBinding", () => {
  it("has a binding rule for every input-required method", () => {
    expect(INPUT_REQUIRED_METHODS.size).toBeGreaterThan(0);
    for (const method of INPUT_REQUIRED_METHODS) {
      expect(() => requestBinding(method, { name: "n", uri: "x://n", arguments: {} })).not.toThrow();
    }
  });

  it("binds tools and prompts to their name and arguments, absent arguments as {}", () => {
    expect(requestBinding("tools/call", { name: "t" })).toEqual({ target: "t", digest: argsDigest({}) });
    expect(requestBinding("prompts/get", { name: "p", arguments: { a: "1" } })).toEqual({
      target: "p",
      digest: argsDigest({ a: "1" }),
    });
  });

  it("binds resources/read to the URI alone", () => {
    expect(requestBinding("resources/read", { uri: "x://1", arguments: { ignored: true } })).toEqual({
      target: "x://1",
      digest: argsDigest({}),
    });
  });

  it("denies a request it cannot bind", () => {
    const unbindable = new InvalidRequestState("request binding");
    expect(() => requestBinding("tools/call", { arguments: {} })).toThrow(unbindable);
    expect(() => requestBinding("resources/read", { uri: 7 })).toThrow(unbindable);
    expect(() => requestBinding("tools/call", { name: "t", arguments: { big: 1n } })).toThrow(unbindable);
    expect(() => requestBinding("custom/method", { name: "t" })).toThrow(unbindable);
  });
});

describe("principal claim", () => {
  it("is 8 salt bytes and 16 hash bytes, salted afresh on every mint", () => {
    const [one, two] = [principalClaim("alice"), principalClaim("alice")];
    expect(decodeBase64UrlStrict(one)).toHaveLength(24);
    expect(one).not.toBe(two);
    expect(one).not.toContain("alice");
  });

  it("verifies the same principal and rejects another one", () => {
    const claim = principalClaim('["c",null,"alice"]');
    expect(() => verifyPrincipalClaim(claim, '["c",null,"alice"]')).not.toThrow();
    expect(() => verifyPrincipalClaim(claim, '["c",null,"bob"]')).toThrow(
      new InvalidRequestState("principal"),
    );
  });

  it.each([
    ["not-base64", "!!!not base64!!!"],
    ["padded", `${principalClaim("alice")}=`],
    ["wrong-length", Buffer.alloc(23).toString("base64url")],
    ["number", 42],
    ["null", null],
  ])("rejects a claim that is not a canonical 24-byte base64url string (%s)", (_, claim) => {
    expect(() => verifyPrincipalClaim(claim, "alice")).toThrow(new InvalidRequestState("malformed"));
  });
});

describe("encodeWtf8", () => {
  it("is UTF-8 for well-formed text", () => {
    const text = "ascii é 東京 🌍";
    expect(encodeWtf8(text).equals(Buffer.from(text, "utf8"))).toBe(true);
  });

  it("keeps lone surrogates as distinct 3-byte sequences instead of U+FFFD", () => {
    expect([...encodeWtf8("a\uD800")]).toEqual([0x61, 0xed, 0xa0, 0x80]);
    expect(encodeWtf8("\uDC00").equals(encodeWtf8("\uFFFD"))).toBe(false);
    expect(encodeWtf8("\uD83C\uDF0D").equals(Buffer.from("🌍"))).toBe(true);
  });
});

describe("decodeBase64UrlStrict", () => {
  it("accepts only the canonical spelling", () => {
    expect(decodeBase64UrlStrict("AQID")?.equals(Buffer.from([1, 2, 3]))).toBe(true);
    for (const alias of ["AQID=", "AQ ID", "AQID\n", "AQ-ID", "+QID"])
      expect(decodeBase64UrlStrict(alias)).toBeUndefined();
    expect(decodeBase64UrlStrict("AQI")?.length).toBe(2);
    expect(decodeBase64UrlStrict("AQJ")).toBeUndefined(); // spare bits set
    expect(decodeBase64UrlStrict("+/8")).toBeUndefined(); // standard alphabet
  });
});
