import { describe, expect, it } from "vitest";
import {
  isKnownProtocolVersion,
  isLegacyProtocolVersion,
  isModernProtocolVersion,
  KNOWN_PROTOCOL_VERSIONS,
  LATEST_LEGACY_PROTOCOL_VERSION,
  LATEST_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSIONS,
  protocolVersionAtLeast,
} from "../../src/types/index.js";

const UNKNOWN_STRINGS = [
  "2026-07-29",
  "2099-01-01",
  "1900-01-01",
  "2024-10-07",
  "",
  " 2026-07-28",
  "2026-07-28 ",
];
const NON_STRINGS: unknown[] = [undefined, null, 20260728, {}, [], true, ["2026-07-28"]];

describe("protocol version registry", () => {
  it("names the latest modern and legacy revisions", () => {
    expect(LATEST_PROTOCOL_VERSION).toBe("2026-07-28");
    expect(LATEST_LEGACY_PROTOCOL_VERSION).toBe("2025-11-25");
  });

  it("lists the modern and legacy revisions newest first", () => {
    expect(MODERN_PROTOCOL_VERSIONS).toEqual(["2026-07-28"]);
    expect(LEGACY_PROTOCOL_VERSIONS).toEqual(["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]);
    expect(MODERN_PROTOCOL_VERSIONS[0]).toBe(LATEST_PROTOCOL_VERSION);
    expect(LEGACY_PROTOCOL_VERSIONS[0]).toBe(LATEST_LEGACY_PROTOCOL_VERSION);
  });

  it("orders the known registry oldest first, ending with the latest revision", () => {
    expect(KNOWN_PROTOCOL_VERSIONS).toEqual([
      "2024-11-05",
      "2025-03-26",
      "2025-06-18",
      "2025-11-25",
      "2026-07-28",
    ]);
    expect(KNOWN_PROTOCOL_VERSIONS.at(-1)).toBe(LATEST_PROTOCOL_VERSION);
  });

  it("is strictly ordered (every revision is a later date than the one before)", () => {
    for (let i = 1; i < KNOWN_PROTOCOL_VERSIONS.length; i++) {
      const previous = KNOWN_PROTOCOL_VERSIONS[i - 1] ?? "";
      const current = KNOWN_PROTOCOL_VERSIONS[i] ?? "";
      expect(current > previous, `${current} after ${previous}`).toBe(true);
    }
  });

  it("has no duplicates", () => {
    expect(new Set(KNOWN_PROTOCOL_VERSIONS).size).toBe(KNOWN_PROTOCOL_VERSIONS.length);
    expect(new Set(MODERN_PROTOCOL_VERSIONS).size).toBe(MODERN_PROTOCOL_VERSIONS.length);
    expect(new Set(LEGACY_PROTOCOL_VERSIONS).size).toBe(LEGACY_PROTOCOL_VERSIONS.length);
  });

  it("modern ∪ legacy = known, and modern ∩ legacy = ∅", () => {
    const union = new Set([...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS]);
    expect(union).toEqual(new Set(KNOWN_PROTOCOL_VERSIONS));
    expect(KNOWN_PROTOCOL_VERSIONS.length).toBe(
      MODERN_PROTOCOL_VERSIONS.length + LEGACY_PROTOCOL_VERSIONS.length,
    );
    expect(MODERN_PROTOCOL_VERSIONS.filter((v) => LEGACY_PROTOCOL_VERSIONS.includes(v))).toEqual([]);
  });

  it("places every legacy revision before every modern one", () => {
    const lastLegacy = Math.max(...LEGACY_PROTOCOL_VERSIONS.map((v) => KNOWN_PROTOCOL_VERSIONS.indexOf(v)));
    const firstModern = Math.min(...MODERN_PROTOCOL_VERSIONS.map((v) => KNOWN_PROTOCOL_VERSIONS.indexOf(v)));
    expect(lastLegacy).toBeLessThan(firstModern);
  });

  it("uses YYYY-MM-DD revision names", () => {
    for (const version of KNOWN_PROTOCOL_VERSIONS) expect(version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("freezes the lists", () => {
    expect(Object.isFrozen(KNOWN_PROTOCOL_VERSIONS)).toBe(true);
    expect(Object.isFrozen(MODERN_PROTOCOL_VERSIONS)).toBe(true);
    expect(Object.isFrozen(LEGACY_PROTOCOL_VERSIONS)).toBe(true);
  });
});

describe("isKnownProtocolVersion / isModernProtocolVersion / isLegacyProtocolVersion", () => {
  it.each(MODERN_PROTOCOL_VERSIONS.map((v) => [v]))("%s is known and modern, not legacy", (version) => {
    expect(isKnownProtocolVersion(version)).toBe(true);
    expect(isModernProtocolVersion(version)).toBe(true);
    expect(isLegacyProtocolVersion(version)).toBe(false);
  });

  it.each(LEGACY_PROTOCOL_VERSIONS.map((v) => [v]))("%s is known and legacy, not modern", (version) => {
    expect(isKnownProtocolVersion(version)).toBe(true);
    expect(isLegacyProtocolVersion(version)).toBe(true);
    expect(isModernProtocolVersion(version)).toBe(false);
  });

  it.each(UNKNOWN_STRINGS.map((v) => [v]))("%j is neither known, modern nor legacy", (version) => {
    expect(isKnownProtocolVersion(version)).toBe(false);
    expect(isModernProtocolVersion(version)).toBe(false);
    expect(isLegacyProtocolVersion(version)).toBe(false);
  });

  it.each(NON_STRINGS.map((v) => [v]))("non-string %j is rejected by every predicate", (value) => {
    expect(isKnownProtocolVersion(value)).toBe(false);
    expect(isModernProtocolVersion(value)).toBe(false);
    expect(isLegacyProtocolVersion(value)).toBe(false);
  });

  it("every known version is exactly one of modern or legacy", () => {
    for (const version of KNOWN_PROTOCOL_VERSIONS) {
      expect(isModernProtocolVersion(version) !== isLegacyProtocolVersion(version), version).toBe(true);
    }
  });
});

describe("protocolVersionAtLeast", () => {
  it("agrees with registry order for every pair of known versions", () => {
    for (const [i, version] of KNOWN_PROTOCOL_VERSIONS.entries()) {
      for (const [j, minimum] of KNOWN_PROTOCOL_VERSIONS.entries()) {
        expect(protocolVersionAtLeast(version, minimum), `${version} >= ${minimum}`).toBe(i >= j);
      }
    }
  });

  it("is reflexive", () => {
    for (const version of KNOWN_PROTOCOL_VERSIONS)
      expect(protocolVersionAtLeast(version, version)).toBe(true);
  });

  it("orders modern above legacy", () => {
    expect(protocolVersionAtLeast("2026-07-28", "2025-11-25")).toBe(true);
    expect(protocolVersionAtLeast("2025-11-25", "2026-07-28")).toBe(false);
    expect(protocolVersionAtLeast("2024-11-05", "2025-03-26")).toBe(false);
  });

  it("is false for an unknown version, even one that sorts later as a string", () => {
    expect(protocolVersionAtLeast("2099-01-01", "2024-11-05")).toBe(false);
    expect(protocolVersionAtLeast("2026-07-29", "2026-07-28")).toBe(false);
    expect(protocolVersionAtLeast("", "2024-11-05")).toBe(false);
    expect(protocolVersionAtLeast("garbage", "2024-11-05")).toBe(false);
  });

  it("is false for an undefined version", () => {
    expect(protocolVersionAtLeast(undefined, "2024-11-05")).toBe(false);
    expect(protocolVersionAtLeast(undefined, "2026-07-28")).toBe(false);
  });

  it("throws for an unknown minimum (a programming error)", () => {
    expect(() => protocolVersionAtLeast("2026-07-28", "2099-01-01")).toThrow(/2099-01-01/);
    expect(() => protocolVersionAtLeast("2026-07-28", "")).toThrow();
    expect(() => protocolVersionAtLeast("bogus", "also-bogus")).toThrow();
  });

  it("checks the minimum before the version: an unknown minimum throws even for an undefined version", () => {
    expect(() => protocolVersionAtLeast(undefined, "nope")).toThrow(/Unknown minimum protocol version/);
  });
});
