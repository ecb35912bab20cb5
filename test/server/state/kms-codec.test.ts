import { describe, expect, it } from "vitest";
import { createDeployerSecurity, EnvelopeCodec, unwrapDataKey } from "../../../examples/kms-codec.js";
import { InvalidRequestState, RequestStateBoundary } from "../../../src/server/state/index.js";
import { accepted, makeCtx, mint, rejected, retry } from "./helpers.js";

const enc = (text: string) => new TextEncoder().encode(text);

describe("examples/kms-codec.ts", () => {
  const codec = new EnvelopeCodec(unwrapDataKey());

  it("round-trips what it sealed, also behind the boundary", async () => {
    for (const payload of [
      new Uint8Array(0),
      enc("provision-v1"),
      enc("東京 🌍"),
      new Uint8Array([0, 255, 7]),
    ]) {
      const token = codec.seal(payload);
      expect(token).toMatch(/^kms1\.[0-9a-f]+$/);
      expect(Buffer.from(codec.unseal(token)).equals(Buffer.from(payload))).toBe(true);
    }
    const security = createDeployerSecurity();
    expect(security.codec).toBeInstanceOf(EnvelopeCodec);
    const boundary = new RequestStateBoundary(security, { defaultAudience: "Deployer" });
    const token = await mint(boundary, makeCtx(), "deploy-step-1");
    expect(token.startsWith("kms1.")).toBe(true);
    expect(await accepted(boundary, retry(makeCtx(), token))).toBe("deploy-step-1");
    await rejected(boundary, retry(makeCtx(), `${token.slice(0, -1)}${token.endsWith("0") ? "1" : "0"}`));
  });

  it("throws InvalidRequestState for any bad token", () => {
    const token = codec.seal(enc("p"));
    const flipped = `${token.slice(0, 20)}${token[20] === "a" ? "b" : "a"}${token.slice(21)}`;
    const bad = [
      "",
      "kms1.",
      "kms2.00",
      token.slice(5),
      `kms1.${"zz".repeat(40)}`,
      token.slice(0, -2), // truncated tag
      `kms1.${"00".repeat(27)}`, // below nonce + tag
      flipped,
      new EnvelopeCodec(unwrapDataKey()).seal(enc("p")), // another data key
      "v1.AAAA", // another codec's format
    ];
    for (const candidate of bad) expect(() => codec.unseal(candidate)).toThrow(InvalidRequestState);
  });

  it("rejects every alias of a minted token", () => {
    const token = codec.seal(enc("alias"));
    const body = token.slice(5);
    const aliases = [
      `kms1.${body.toUpperCase()}`,
      `KMS1.${body}`,
      `${token}0`, // odd trailing digit: Buffer's decoder would drop it
      `${token}zz`, // junk: Buffer's decoder would stop there
      `${token}\n`,
      ` ${token}`,
      `kms1.0x${body}`,
      `kms1.${body.slice(0, 24)} ${body.slice(24)}`,
    ];
    for (const alias of aliases) {
      expect(alias).not.toBe(token);
      expect(() => codec.unseal(alias)).toThrow(InvalidRequestState);
    }
    expect(Buffer.from(codec.unseal(token)).toString()).toBe("alias"); // the original still verifies
  });

  it("insists on a 32-byte data key", () => {
    expect(() => new EnvelopeCodec(new Uint8Array(16))).toThrow(/32-byte/);
  });
});
