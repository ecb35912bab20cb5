import { describe, expect, it } from "vitest";
import { coversUri } from "../../src/shared/subscription-filter.js";
import { prng } from "../prng.js";

describe("coversUri", () => {
  it("covers the URI itself and what lies below it, never a sibling that shares a prefix", () => {
    expect(coversUri("file:///logs", "file:///logs")).toBe(true);
    expect(coversUri("file:///logs", "file:///logs/today.txt")).toBe(true);
    expect(coversUri("file:///logs/", "file:///logs/today.txt")).toBe(true);
    expect(coversUri("file:///logs", "file:///logs-old/today.txt")).toBe(false);
    expect(coversUri("file:///logs/today.txt", "file:///logs")).toBe(false);
    expect(coversUri("", "/a")).toBe(true);
    expect(coversUri("", "a")).toBe(false);
  });

  it("agrees with 'the same, or starts with it and a slash' on random URIs", () => {
    const random = prng(1203);
    const pieces = ["a", "b", "/", "//", "a/", "é"];
    const uri = () => Array.from({ length: random.int(5) }, () => random.pick(pieces)).join("");
    const spelledOut = (subscribed: string, candidate: string) =>
      candidate === subscribed ||
      candidate.startsWith(subscribed.endsWith("/") ? subscribed : `${subscribed}/`);
    for (let run = 0; run < 5_000; run++) {
      const subscribed = uri();
      const candidate = random.chance(0.5) ? subscribed + uri() : uri();
      expect(coversUri(subscribed, candidate)).toBe(spelledOut(subscribed, candidate));
    }
  });
});
