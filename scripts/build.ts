/**
 * The package build (`npm run build`, `tsx scripts/build.ts [outdir]`): declarations from tsc
 * (tsconfig.build.json, declarations only), JavaScript from esbuild as one bundled ESM graph.
 * Importing one bundled file is much cheaper than resolving and loading ~130 small modules
 * (bench/PROFILE.md §4: 122 ms → 75 ms), which is what issue 10's cold start asks for.
 *
 * - Entry points are exactly the package.json `exports` and `bin` targets, so the published paths keep
 *   resolving; code shared between them goes to `chunks/` once (`splitting`), and every dynamic
 *   `import()` becomes its own chunk, loaded only when that path runs.
 * - `dependencies` and `peerDependencies` stay external: the consumer's copy is used, deduplicated.
 * - Not minified (stack traces stay readable), tree-shaken, with linked source maps.
 *
 * The bench (bench/lib/build.ts) and test/build reuse `buildPackage` with another output directory.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Metafile } from "esbuild";

/** The repository root (scripts/..). */
export const ROOT = join(import.meta.dirname, "..");

/** The parts of package.json the build reads. */
export interface PackageJson {
  readonly name: string;
  readonly version: string;
  readonly exports: Record<string, { readonly types?: string; readonly import?: string }>;
  readonly bin?: Record<string, string>;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
}

export function readPackageJson(root: string = ROOT): PackageJson {
  return JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as PackageJson;
}

/**
 * The esbuild entry points: output name (relative to the output directory, no extension) → source
 * file, one per `exports` subpath and `bin` command. `./dist/server/index.js` is built from
 * `src/server/index.ts` into `<outdir>/server/index.js`.
 *
 * @example
 * entryPoints()["server/index"]; // "/…/src/server/index.ts"
 */
export function entryPoints(root: string = ROOT): Record<string, string> {
  const pkg = readPackageJson(root);
  const targets = [
    ...Object.values(pkg.exports).map((target) => target.import),
    ...Object.values(pkg.bin ?? {}),
  ];
  const entries: Record<string, string> = {};
  for (const target of targets) {
    const match = target === undefined ? null : /^\.\/dist\/(.+)\.js$/.exec(target);
    if (!match?.[1]) throw new Error(`package.json target ${JSON.stringify(target)} is not ./dist/….js`);
    const source = join(root, "src", `${match[1]}.ts`);
    if (!existsSync(source)) throw new Error(`package.json target ${target} has no source ${source}`);
    entries[match[1]] = source;
  }
  return entries;
}

/** Every package the bundle must leave to the consumer's node_modules (with its subpaths). */
export function externalPackages(root: string = ROOT): string[] {
  const pkg = readPackageJson(root);
  const names = Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies });
  return names.flatMap((name) => [name, `${name}/*`]);
}

/** The built JavaScript files of the `bin` commands (relative to the output directory). */
function binOutputs(root: string): string[] {
  return Object.values(readPackageJson(root).bin ?? {}).map((target) => target.replace(/^\.\/dist\//, ""));
}

/**
 * Bundles the entry points into `outdir` (which is not emptied; `buildPackage` does that) and
 * returns esbuild's metafile.
 */
export async function bundlePackage(outdir: string, root: string = ROOT): Promise<Metafile> {
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: entryPoints(root),
    outdir,
    // Chunks sit two levels below the package root, like `cli/main.js`: code that finds package.json
    // by `new URL("../../package.json", import.meta.url)` (the CLI's --version) keeps working
    // whichever output file esbuild puts it in.
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: externalPackages(root),
    treeShaking: true,
    minify: false,
    sourcemap: "linked",
    metafile: true,
    logLevel: "warning",
  });
  for (const bin of binOutputs(root)) chmodSync(join(outdir, bin), 0o755);
  return result.metafile;
}

/** Emits the `.d.ts` files of `src/` into `outdir` (tsconfig.build.json is declarations-only). */
export function emitDeclarations(outdir: string, root: string = ROOT): void {
  execFileSync(
    process.execPath,
    [
      join(root, "node_modules", "typescript", "bin", "tsc"),
      "-p",
      join(root, "tsconfig.build.json"),
      "--emitDeclarationOnly",
      "--outDir",
      outdir,
    ],
    { cwd: root, stdio: "inherit" },
  );
}

/** Options of one package build. */
export interface BuildOptions {
  /** The output directory; emptied first. Default `<root>/dist`. */
  readonly outdir?: string;
  readonly root?: string;
}

/**
 * The whole build: empties the output directory (no stale file-by-file modules left to publish),
 * then declarations, then the bundle.
 */
export async function buildPackage(options: BuildOptions = {}): Promise<Metafile> {
  const root = options.root ?? ROOT;
  const outdir = resolve(root, options.outdir ?? "dist");
  rmSync(outdir, { recursive: true, force: true });
  emitDeclarations(outdir, root);
  return bundlePackage(outdir, root);
}

// esbuild prints every top-level import/export statement at the start of a line; `import(` (a
// dynamic import) never matches because a clause or a quote must follow the keyword.
const STATIC_IMPORT = /^(?:import|export)\s*(?:[\w$*{}\s,]*?\s*from\s*)?["']([^"']+)["']/gm;

/**
 * The bare specifiers (packages and `node:` builtins) reachable from `entries` through static
 * `import … from` / `import "…"` / `export … from` statements only, following the relative ones
 * through the built chunks. What `import("…")` loads lazily is not part of it. Sorted.
 *
 * @example
 * staticBareImports(["dist/server/index.js", "dist/client/index.js"]); // ["node:crypto", "node:events", …]
 */
export function staticBareImports(entries: readonly string[]): string[] {
  const bare = new Set<string>();
  const seen = new Set<string>();
  const queue = entries.map((entry) => resolve(entry));
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const match of readFileSync(file, "utf8").matchAll(STATIC_IMPORT)) {
      const specifier = match[1] as string;
      if (specifier.startsWith("./") || specifier.startsWith("../"))
        queue.push(resolve(dirname(file), specifier));
      else if (/^(\/|[a-z][a-z0-9+.-]*:\/\/|file:|data:)/i.test(specifier))
        throw new Error(`${file}: unexpected import specifier ${specifier}`);
      else bare.add(specifier);
    }
  }
  return [...bare].sort();
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const outdir = resolve(process.argv[2] ?? join(ROOT, "dist"));
  const started = performance.now();
  const metafile = await buildPackage({ outdir });
  const js = Object.keys(metafile.outputs).filter((path) => path.endsWith(".js"));
  const bytes = js.reduce((sum, path) => sum + (metafile.outputs[path]?.bytes ?? 0), 0);
  console.log(
    `built ${relative(process.cwd(), outdir) || "."}: ${js.length} JavaScript files (${(bytes / 1024).toFixed(1)} KiB) ` +
      `+ declarations in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}
