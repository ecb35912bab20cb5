import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const pages = readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md"));

/** Every TypeScript block of every docs page names its example and is a verbatim excerpt of it. */
describe("docs code comes from examples", () => {
  it("has pages and code blocks to check", () => {
    expect(pages.length).toBeGreaterThan(0);
    const blocks = pages.flatMap((page) => [
      ...readFileSync(join(root, "docs", page), "utf8").matchAll(/```ts\n/g),
    ]);
    expect(blocks.length).toBeGreaterThan(10);
  });

  for (const page of pages) {
    const text = readFileSync(join(root, "docs", page), "utf8");
    const blocks = [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string);
    it(`${page}: every ts block is an excerpt of the example it names`, () => {
      for (const block of blocks) {
        const [first, ...rest] = block.split("\n");
        const source = /^\/\/ (examples\/[\w./-]+\.ts)$/.exec(first ?? "");
        expect(source, `block in ${page} must start with "// examples/<file>.ts"`).not.toBeNull();
        // Compared without whitespace and trailing commas, so the formatter may rewrap either side.
        const squash = (code: string) =>
          code
            .replace(/,(\s*([}\])]|$))/g, "$1")
            .replace(/\s+/g, "")
            .trim();
        const example = readFileSync(join(root, source?.[1] ?? ""), "utf8");
        expect(squash(example)).toContain(squash(rest.join("\n")));
      }
    });
  }
});
