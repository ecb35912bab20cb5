// The folder rules of design.md, checked on every relative import of src/: src/types imports nothing
// of ours, shared/ only types/, server/ and client/ never import each other, and the core (types,
// shared, server) never imports a transport or an integration.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "..", "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Top-level folder of src/ a file is in ("types", "server", …). */
const areaOf = (path: string) => relative(SRC, path).split("/")[0] ?? "";

/** Every (importer area, imported area, where) of the relative imports in src/. */
function edges(): { from: string; to: string; where: string }[] {
  const found: { from: string; to: string; where: string }[] = [];
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*"(\.[^"]+)"/g)) {
      const target = resolve(dirname(file), match[1] as string);
      found.push({ from: areaOf(file), to: areaOf(target), where: `${relative(SRC, file)} → ${match[1]}` });
    }
  }
  return found;
}

const ALLOWED: Record<string, readonly string[]> = {
  types: ["types"],
  shared: ["types", "shared"],
  server: ["types", "shared", "server"],
  client: ["types", "shared", "client", "transports"],
  transports: ["types", "shared", "server", "transports"],
  otel: ["types", "shared", "server", "client", "otel"],
  cli: ["types", "shared", "server", "client", "transports", "cli"],
};

describe("architecture", () => {
  const all = edges();

  it("finds the imports it checks", () => {
    expect(all.length).toBeGreaterThan(300);
    expect(new Set(all.map((edge) => edge.from))).toEqual(new Set([...Object.keys(ALLOWED), "index.ts"]));
  });

  for (const [area, allowed] of Object.entries(ALLOWED)) {
    it(`${area}/ imports only ${allowed.join(", ")}`, () => {
      const broken = all.filter((edge) => edge.from === area && !allowed.includes(edge.to));
      expect(broken.map((edge) => edge.where)).toEqual([]);
    });
  }

  it("server/ and client/ never import each other", () => {
    const crossing = all.filter(
      (edge) =>
        (edge.from === "server" && edge.to === "client") || (edge.from === "client" && edge.to === "server"),
    );
    expect(crossing).toEqual([]);
  });
});
