import { expect, it } from "vitest";
import { runDemo } from "../../examples/demo.js";

it("the README demo serves the Provisioner over HTTP and completes both legs, printing every POST", async () => {
  const lines: string[] = [];
  const text = await runDemo((line) => lines.push(line));
  expect(text).toBe("Provisioned 'orders' in eu-west-1.");
  const posts = lines.filter((l) => l.includes("→ POST /mcp"));
  expect(posts.map((l) => /Mcp-Method: (\S+)/.exec(l)?.[1])).toEqual([
    "server/discover",
    "tools/call",
    "tools/call",
  ]);
  expect(lines.filter((l) => l.startsWith("← 200 "))).toHaveLength(3);
  expect(lines.some((l) => l.includes('"resultType":"input_required"'))).toBe(true);
  expect(lines.at(-1)).toBe("\nprotocol: 2026-07-28\nresult: Provisioned 'orders' in eu-west-1.");
});
