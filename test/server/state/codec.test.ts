import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  AesGcmRequestStateCodec,
  InvalidRequestState,
  RequestStateSecurity,
} from "../../../src/server/state/index.js";
import { KEY_A, KEY_B, KEY_C } from "./helpers.js";

const enc = (text: string) => new TextEncoder().encode(text);
const body = (token: string) => Buffer.from(token.slice(3), "base64url");
const reencode = (raw: Uint8Array) => `v1.${Buffer.from(raw).toString("base64url")}`;

function reasonOf(codec: AesGcmRequestStateCodec, token: string): string {
  try {
    codec.unseal(token);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRequestState);
    return (error as InvalidRequestState).message;
  }
  throw new Error("the token was accepted");
}

describe("AesGcmRequestStateCodec", () => {
  const codec = new AesGcmRequestStateCodec([KEY_A]);

  it.each([
    ["empty", new Uint8Array(0)],
    ["ascii", enc("provision-v1")],
    ["multi-byte-utf8", enc("région: 東京 🌍")],
    ["raw-binary", new Uint8Array(256).map((_, i) => i)],
    ["64KiB", randomBytes(64 * 1024)],
  ])("round-trips any payload byte for byte (%s)", (_, payload) => {
    expect(Buffer.from(codec.unseal(codec.seal(payload))).equals(Buffer.from(payload))).toBe(true);
  });

  it("mints v1. + unpadded base64url over kid, nonce, ciphertext and tag", () => {
    const payload = enc("x".repeat(37));
    const token = codec.seal(payload);
    expect(token).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(body(token)).toHaveLength(4 + 12 + payload.length + 16);
  });

  it("never repeats a nonce across 2,000 seals (several refills of the nonce pool)", () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 2000; i++)
      nonces.add(
        body(codec.seal(enc("same")))
          .subarray(4, 16)
          .toString("hex"),
      );
    expect(nonces.size).toBe(2000);
  });

  it("produces distinct tokens for two seals of one payload, and both unseal", () => {
    const [one, two] = [codec.seal(enc("same")), codec.seal(enc("same"))];
    expect(one).not.toBe(two);
    expect(Buffer.from(codec.unseal(one)).toString()).toBe("same");
    expect(Buffer.from(codec.unseal(two)).toString()).toBe("same");
  });

  const payloadText = "secret-plaintext-payload";
  it.each([
    ["prefix-char", (t: string) => `w${t.slice(1)}`],
    ["kid-byte", (t: string) => flip(t, 1)],
    ["nonce-byte", (t: string) => flip(t, 4 + 5)],
    ["ciphertext-byte", (t: string) => flip(t, 4 + 12 + 3)],
    ["tag-byte", (t: string) => flip(t, -1)],
  ])("rejects a token corrupted in any region without echoing the payload (%s)", (_, corrupt) => {
    const reason = reasonOf(codec, corrupt(codec.seal(enc(payloadText))));
    expect(reason.length).toBeLessThanOrEqual(40);
    expect(reason).not.toContain(payloadText);
  });

  it.each([
    ["empty-string", ""],
    ["missing-prefix", new AesGcmRequestStateCodec([KEY_A]).seal(enc("p")).slice(3)],
    ["garbage-after-prefix", "v1.!!!not-base64!!!"],
    ["below-floor", `v1.${randomBytes(4 + 12 + 15).toString("base64url")}`],
  ])("rejects a structurally malformed token as malformed (%s)", (_, token) => {
    expect(reasonOf(codec, token)).toBe("malformed");
  });

  it("rejects a token minted under a key outside the ring as exactly 'unknown key'", () => {
    const token = new AesGcmRequestStateCodec([KEY_B]).seal(enc("p"));
    expect(reasonOf(codec, token)).toBe("unknown key");
  });

  it.each([
    ["rotation-phase-1", [KEY_A, KEY_B]],
    ["rotation-phase-2", [KEY_B, KEY_A]],
  ])("unseals a token minted under the old key under any ring containing it (%s)", (_, ring) => {
    const token = new AesGcmRequestStateCodec([KEY_A]).seal(enc("in-flight"));
    expect(Buffer.from(new AesGcmRequestStateCodec(ring).unseal(token)).toString()).toBe("in-flight");
  });

  it("mints with the first ring key while later keys only verify", () => {
    const token = new AesGcmRequestStateCodec([KEY_B, KEY_A]).seal(enc("p"));
    expect(Buffer.from(new AesGcmRequestStateCodec([KEY_B]).unseal(token)).toString()).toBe("p");
    expect(reasonOf(new AesGcmRequestStateCodec([KEY_A]), token)).toBe("unknown key");
  });

  it("rejects a token minted under a retired key", () => {
    const token = new AesGcmRequestStateCodec([KEY_A]).seal(enc("p"));
    expect(reasonOf(new AesGcmRequestStateCodec([KEY_B]), token)).toBe("unknown key");
  });

  it("rejects an empty key ring at construction", () => {
    expect(() => new AesGcmRequestStateCodec([])).toThrow(
      new Error("keys must hold at least one key: keys[0] mints new request state"),
    );
    expect(() => new RequestStateSecurity({ keys: [] })).toThrow(/at least one key/);
  });

  it("rejects a key shorter than 32 bytes with generation guidance", () => {
    expect(() => new AesGcmRequestStateCodec([KEY_A, "short"])).toThrow(
      new Error(
        "keys[1] is 5 bytes; request-state keys need at least 32. Generate one with: " +
          `node -e "console.log(require('crypto').randomBytes(32).toString('base64url'))"`,
      ),
    );
    // UTF-8 bytes count, not characters: 16 × "é" is 32 bytes and is accepted.
    expect(() => new AesGcmRequestStateCodec(["é".repeat(16)])).not.toThrow();
    expect(() => new AesGcmRequestStateCodec([new Uint8Array(31)])).toThrow(/keys\[0\] is 31 bytes/);
  });

  it("rejects a duplicate key in the ring at construction, whatever its form", () => {
    expect(() => new AesGcmRequestStateCodec([KEY_A, KEY_A])).toThrow(
      new Error("keys[1] duplicates an earlier ring key"),
    );
    expect(() => new AesGcmRequestStateCodec([KEY_A, Buffer.from(KEY_A)])).toThrow(
      new Error("keys[1] duplicates an earlier ring key"),
    );
  });

  it.each([
    ["number", 42],
    ["null", null],
    ["array", [1, 2, 3]],
    ["ArrayBuffer", new ArrayBuffer(32)],
    ["undefined", undefined],
  ])("rejects a non-key typed ring entry naming its index and type (%s)", (type, entry) => {
    const keys = [KEY_A, entry] as unknown as string[];
    const message = `keys[1] must be a Uint8Array or a string, got ${type}`;
    expect(() => new AesGcmRequestStateCodec(keys)).toThrow(new TypeError(message));
    expect(() => new RequestStateSecurity({ keys })).toThrow(new TypeError(message));
  });

  it("rejects a hole in the ring as an undefined entry, rather than skipping it", () => {
    const hole = new Array<string>(2);
    hole[1] = KEY_A;
    const message = "keys[0] must be a Uint8Array or a string, got undefined";
    expect(() => new AesGcmRequestStateCodec(hole)).toThrow(new TypeError(message));
    expect(() => new RequestStateSecurity({ keys: hole })).toThrow(new TypeError(message));
    expect(() => new AesGcmRequestStateCodec(new Array<string>(1))).toThrow(new TypeError(message));
  });

  it("works with a mixed ring of Buffer, Uint8Array and string entries", () => {
    const entries = [Buffer.from(KEY_A), new Uint8Array(Buffer.from(KEY_B)), KEY_C];
    const ring = new AesGcmRequestStateCodec(entries);
    for (const entry of entries) {
      const token = new AesGcmRequestStateCodec([entry]).seal(enc("mixed"));
      expect(Buffer.from(ring.unseal(token)).toString()).toBe("mixed");
    }
  });

  it("treats a string key as its UTF-8 bytes", () => {
    const text = "clé-partagée-".repeat(3);
    const token = new AesGcmRequestStateCodec([text]).seal(enc("p"));
    expect(
      Buffer.from(new AesGcmRequestStateCodec([Buffer.from(text, "utf8")]).unseal(token)).toString(),
    ).toBe("p");
  });

  // Regression: UTF-8 encoding turned each lone surrogate into U+FFFD, so a string of 32 lone
  // surrogates passed the length check as a 96-byte key that every such string shares (a public
  // constant), and two distinct strings minted for each other.
  it("rejects a string key with lone surrogates instead of collapsing it to U+FFFD", () => {
    const message = "keys[1] is a string with lone UTF-16 surrogates; pass its bytes as a Uint8Array";
    expect(() => new AesGcmRequestStateCodec([KEY_A, "\uD800".repeat(32)])).toThrow(new Error(message));
    expect(() => new RequestStateSecurity({ keys: [KEY_A, `${KEY_B}\uDFFF`] })).toThrow(new Error(message));
    // Surrogate pairs are well-formed: 8 emoji are 32 UTF-8 bytes and make a key.
    expect(() => new AesGcmRequestStateCodec(["🌍".repeat(8)])).not.toThrow();
  });

  it("copies key material at construction", () => {
    const material = new Uint8Array(Buffer.from(KEY_A));
    const ring = new AesGcmRequestStateCodec([material]);
    material.fill(0);
    const token = ring.seal(enc("p"));
    expect(Buffer.from(new AesGcmRequestStateCodec([KEY_A]).unseal(token)).toString()).toBe("p");
    expect(Buffer.from(ring.unseal(new AesGcmRequestStateCodec([KEY_A]).seal(enc("q")))).toString()).toBe(
      "q",
    );
  });

  it("reveals the payload neither in the token text nor in its decoded bytes", () => {
    const secret = "TOP-SECRET-PLAINTEXT-0123456789";
    const token = codec.seal(enc(secret));
    expect(token).not.toContain(secret);
    expect(token).not.toContain(Buffer.from(secret).toString("base64url").slice(0, 12));
    expect(body(token).includes(Buffer.from(secret))).toBe(false);
  });

  it("rejects every substitution of the final token character", () => {
    const token = codec.seal(enc("final-char"));
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const substitutes = [...alphabet].filter((c) => c !== token.at(-1));
    expect(substitutes).toHaveLength(63);
    for (const c of substitutes)
      expect(() => codec.unseal(token.slice(0, -1) + c)).toThrow(InvalidRequestState);
  });

  it.each([
    ["junk-chars-injected", (t: string) => `${t.slice(0, 10)}!*${t.slice(10)}`],
    ["newline-appended", (t: string) => `${t}\n`],
    ["padding-appended", (t: string) => `${t}=`],
    ["double-padding-appended", (t: string) => `${t}==`],
    ["standard-alphabet", (t: string) => `v1.${body(t).toString("base64")}`],
  ])("rejects a non-canonical token body (%s)", (_, alias) => {
    // A body holding "-" or "_" makes the standard-alphabet alias differ from the original too.
    let token = codec.seal(enc("alias"));
    while (!/[-_]/.test(token.slice(3))) token = codec.seal(enc("alias"));
    const variant = alias(token);
    expect(variant).not.toBe(token);
    expect(Buffer.from(variant.slice(3), "base64url").equals(body(token))).toBe(true); // same bytes, other text
    expect(reasonOf(codec, variant)).toBe("malformed");
  });

  it("rejects a token re-prefixed to a future format version", () => {
    const token = codec.seal(enc("p"));
    expect(reasonOf(codec, `v2.${token.slice(3)}`)).toBe("malformed");
  });

  it("rejects a kid transplanted onto another token's body", () => {
    const ring = new AesGcmRequestStateCodec([KEY_A, KEY_B]);
    const kidB = body(new AesGcmRequestStateCodec([KEY_B]).seal(enc("x"))).subarray(0, 4);
    const raw = body(ring.seal(enc("p")));
    expect(raw.subarray(0, 4).equals(kidB)).toBe(false);
    kidB.copy(raw, 0);
    expect(reasonOf(ring, reencode(raw))).toBe("seal");
  });
});

/** Flips one bit of the decoded byte at `index` (negative: from the end) and re-encodes canonically. */
function flip(token: string, index: number): string {
  const raw = body(token);
  const at = index < 0 ? raw.length + index : index;
  raw[at] = (raw[at] ?? 0) ^ 0x01;
  return reencode(raw);
}
