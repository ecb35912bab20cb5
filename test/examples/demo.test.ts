import { expect, it } from "vitest";
import { runDemo } from "../../examples/demo.js";

it("the README demo completes the two-leg flow and prints every wire message", async () => {
  const lines: string[] = [];
  const text = await runDemo((line) => lines.push(line));
  expect(text).toBe("Provisioned 'orders' in eu-west-1.");
  expect(lines.filter((l) => l.startsWith("→ "))).toHaveLength(2);
  expect(lines.filter((l) => l.startsWith("← "))).toHaveLength(2);
  expect(lines.at(-1)).toBe("\nresult: Provisioned 'orders' in eu-west-1.");
});
