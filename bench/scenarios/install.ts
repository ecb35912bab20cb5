/**
 * Install footprint (reference plan §5.1 H): the bytes `npm install` puts on disk for each SDK's
 * production closure. Ours: the package as `npm run build` makes it (the `files` of package.json:
 * dist/, declarations and source maps included) plus its `dependencies`; theirs: the installed
 * `@modelcontextprotocol/server` and `/client` folders plus their `dependencies`. Dependencies are
 * followed recursively through node_modules and each package folder counts once (apparent size of
 * every file, nested node_modules included). Offline: nothing is downloaded.
 */
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ROOT } from "../lib/build.js";
import type { RunContext, Scenario } from "../lib/scenario.js";
import { fmtBytes, fmtRatio } from "../lib/stats.js";

interface Footprint {
  readonly bytes: number;
  /** Bytes per package of the closure (the SDK's own first). */
  readonly packages: Record<string, number>;
}

/** Apparent size of every file under `path` (symlinks not followed). */
function treeBytes(path: string): number {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.isFile() ? stat.size : 0;
  let total = 0;
  for (const name of readdirSync(path)) total += treeBytes(join(path, name));
  return total;
}

function dependenciesOf(packageDir: string): string[] {
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  return Object.keys(manifest.dependencies ?? {});
}

/** Where Node would find `name` from `fromDir`: the nearest node_modules up the tree. */
function locate(name: string, fromDir: string): string {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) throw new Error(`${name} is not installed (looked up from ${fromDir})`);
  }
}

/** The closure of `roots` (name → folder) through `dependencies`, each folder counted once. */
function closure(roots: Record<string, string>): Footprint {
  const packages: Record<string, number> = {};
  const seen = new Set<string>();
  const visit = (name: string, dir: string, counted: boolean) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    if (counted) packages[name] = (packages[name] ?? 0) + treeBytes(dir);
    for (const dependency of dependenciesOf(dir)) visit(dependency, locate(dependency, dir), true);
  };
  for (const [name, dir] of Object.entries(roots)) visit(name, dir, true);
  const bytes = Object.values(packages).reduce((sum, n) => sum + n, 0);
  return { bytes, packages };
}

/** Our package as published: built into a temporary folder next to our package.json's dependencies. */
async function ours(): Promise<Footprint> {
  const { buildPackage } = await import("../../scripts/build.js");
  const out = mkdtempSync(join(tmpdir(), "roundtrip-install-"));
  try {
    await buildPackage({ outdir: join(out, "dist") });
    const own = treeBytes(join(out, "dist")) + treeBytes(join(ROOT, "package.json"));
    const deps = closure(Object.fromEntries(dependenciesOf(ROOT).map((name) => [name, locate(name, ROOT)])));
    return { bytes: own + deps.bytes, packages: { "roundtrip-mcp": own, ...deps.packages } };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

function theirs(): Footprint {
  const roots = ["@modelcontextprotocol/server", "@modelcontextprotocol/client"];
  return closure(Object.fromEntries(roots.map((name) => [name, locate(name, ROOT)])));
}

function breakdown(footprint: Footprint): string {
  return Object.entries(footprint.packages)
    .sort((a, b) => b[1] - a[1])
    .map(([name, bytes]) => `${name} ${fmtBytes(bytes)}`)
    .join(", ");
}

export const scenario: Scenario = {
  id: "install",
  title: "Install footprint (production dependencies on disk)",
  async run(ctx: RunContext) {
    ctx.log("install: building our package and walking both dependency closures");
    const mine = await ours();
    const other = theirs();
    const rows = [
      {
        scenario: "Install footprint: the SDK and its production dependencies on disk",
        ours: fmtBytes(mine.bytes),
        theirs: `${fmtBytes(other.bytes)} (server + client)`,
        ratio: fmtRatio(mine.bytes / other.bytes),
        target: "— (report)",
        status: "info" as const,
      },
    ];
    const details = [
      "Apparent size of every file `npm install` would put on disk for each SDK, dependencies followed through `dependencies` (not dev or peer) and each package counted once. Ours is the package as `npm run build` makes it (dist/ with declarations and source maps, and package.json); theirs is the installed server and client packages.",
      "",
      "| SDK | on disk | packages |",
      "| --- | --- | --- |",
      `| roundtrip | ${fmtBytes(mine.bytes)} | ${breakdown(mine)} |`,
      `| official | ${fmtBytes(other.bytes)} | ${breakdown(other)} |`,
    ].join("\n");
    return { rows, details, data: { ours: mine, theirs: other } };
  },
};
