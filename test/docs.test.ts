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

  for (const page of [...pages.map((name) => join("docs", name)), "README.md"]) {
    const text = readFileSync(join(root, page), "utf8");
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

/**
 * A JSON-RPC error quoted with its message (`-32602 "Task not found"`) is one a reader matches on:
 * the message must be a string literal the code sends, whole, not a part of a longer one.
 */
describe("error messages quoted in the docs are the ones sent", () => {
  const source = readdirSync(join(root, "src"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .map((file) => readFileSync(join(root, "src", file), "utf8"))
    .join("\n");
  const documents = [...pages.map((page) => join("docs", page)), "README.md", "examples/fleet/README.md"];

  it("has quoted errors to check", () => {
    const quoted = documents.flatMap((doc) => [
      ...readFileSync(join(root, doc), "utf8").matchAll(/-32\d{3} "([^"]+)"/g),
    ]);
    expect(quoted.length).toBeGreaterThan(2);
  });

  for (const doc of documents) {
    it(`${doc}: every quoted error message is a literal of src/`, () => {
      const text = readFileSync(join(root, doc), "utf8");
      for (const [, message] of text.matchAll(/-32\d{3} "([^"]+)"/g)) {
        expect(source.includes(`"${message}"`), `${doc} quotes "${message}"`).toBe(true);
      }
    });
  }
});

/** `MCPServer`'s `tasks` takes the runner `serverTasks(options)` builds, never the options themselves. */
it("TSDoc examples give MCPServer's tasks option a runner, not TaskOptions", () => {
  const examples = readdirSync(join(root, "src"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .flatMap((file) => readFileSync(join(root, "src", file), "utf8").match(/@example[\s\S]*?\*\//g) ?? []);
  expect(examples.length).toBeGreaterThan(100);
  for (const example of examples) expect(example).not.toMatch(/\btasks:\s*\{/);
});

/** An import a reader copies from a TSDoc example must resolve in their project: a public entry point. */
it("TSDoc examples import from the package's entry points, names each one exports", async () => {
  const { exports } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    exports: Record<string, { import: string }>;
  };
  const imports = readdirSync(join(root, "src"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .flatMap((file) => readFileSync(join(root, "src", file), "utf8").match(/@example[\s\S]*?\*\//g) ?? [])
    .flatMap((example) => [...example.matchAll(/import \{([^}]+)\} from "([^"]+)"/g)]);
  expect(imports.length).toBeGreaterThan(5);
  for (const [, names, specifier] of imports) {
    const subpath = /^roundtrip-mcp(\/.*)?$/.exec(specifier as string);
    const entry = subpath ? exports[`.${subpath[1] ?? ""}`] : undefined;
    if (!entry) throw new Error(`an example imports from ${specifier}, which is no entry point`);
    const module = (await import(
      join(root, entry.import.replace("./dist/", "src/").replace(/\.js$/, ".ts"))
    )) as Record<string, unknown>;
    for (const name of (names as string).split(",").map((part) => part.trim())) {
      expect(module[name], `${specifier} exports ${name}`).toBeDefined();
    }
  }
});
