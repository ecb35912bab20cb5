import { describe, expect, it } from "vitest";
import { withoutTrailing } from "../../src/shared/text.js";

describe("withoutTrailing", () => {
  it.each([
    ["/mcp///", "/", "/mcp"],
    ["/mcp", "/", "/mcp"],
    ["///", "/", ""],
    ["", "/", ""],
    ["YQ==", "=", "YQ"],
    ["a=b", "=", "a=b"],
  ])("%j without trailing %j is %j", (text, char, expected) => {
    expect(withoutTrailing(text, char)).toBe(expected);
  });

  it("trims a run followed by another character at once (the /=+$/ it replaced was quadratic there)", () => {
    // No timing: the old expression would not finish within the test's timeout on a megabyte.
    const hostile = `${"=".repeat(1_000_000)}x`;
    expect(withoutTrailing(hostile, "=")).toBe(hostile);
    expect(withoutTrailing(`${hostile}==`, "=")).toBe(hostile);
  });
});
