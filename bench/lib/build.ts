/**
 * Compiles the bench's JavaScript into node_modules/.cache (inside node_modules so that `zod` and the
 * official SDK resolve), so measuring children run plain JavaScript for both SDKs: no TypeScript
 * loader in the process, and profiles that name our functions.
 *
 * - `buildBenchTree` (roundtrip-bench/): `src/` and `bench/` file by file, for the throughput, memory
 *   and state children, whose profiles should name our source files.
 * - `buildColdTree` (roundtrip-bench-cold/): our package exactly as `npm run build` bundles it
 *   (scripts/build.ts), for the cold-start child, where the published shape is what is measured.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

/** The repository root (bench/lib/../..). */
export const ROOT = join(import.meta.dirname, "..", "..");
/** Where the file-by-file tree goes. */
export const OUT = join(ROOT, "node_modules", ".cache", "roundtrip-bench");
/** Where the cold-start tree (bundled package + bench/) goes. */
export const COLD_OUT = join(ROOT, "node_modules", ".cache", "roundtrip-bench-cold");

function tsFiles(dir: string): string[] {
  return (readdirSync(join(ROOT, dir), { recursive: true }) as string[])
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
    .map((file) => join(ROOT, dir, file))
    .filter((file) => !relative(ROOT, file).split("/").includes("_tmp"));
}

/** Empties `out` and compiles `files` one to one into it (no bundling), keeping their paths. */
async function compileFiles(out: string, files: string[]): Promise<void> {
  const esbuild = await import("esbuild");
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  // Outside any package scope Node would read .js as CommonJS.
  writeFileSync(join(out, "package.json"), `${JSON.stringify({ type: "module", private: true })}\n`);
  await esbuild.build({
    entryPoints: files,
    outbase: ROOT,
    outdir: out,
    bundle: false,
    format: "esm",
    platform: "node",
    target: "node20",
    sourcemap: "linked",
    logLevel: "error",
  });
}

/**
 * Builds the file-by-file tree of `src/` and `bench/`.
 *
 * @example
 * await buildBenchTree(); // …/roundtrip-bench
 */
export async function buildBenchTree(): Promise<string> {
  await compileFiles(OUT, [...tsFiles("src"), ...tsFiles("bench")]);
  return OUT;
}

/**
 * Builds the cold-start tree: `bench/` file by file, and in place of `src/` the package build's
 * output (what `dist/` holds), whose entry points have the same relative paths as their sources
 * (`src/server/index.js` is `dist/server/index.js`). The cold child and bench/lib/ours.ts import only
 * those entry points, so they load the bundle and nothing else of ours; a bench file that reached
 * into another module of `src/` would fail there with ERR_MODULE_NOT_FOUND instead of measuring a mix.
 *
 * @example
 * await buildColdTree(); // …/roundtrip-bench-cold
 */
export async function buildColdTree(): Promise<string> {
  await compileFiles(COLD_OUT, tsFiles("bench"));
  await (await import("../../scripts/build.js")).bundlePackage(join(COLD_OUT, "src"));
  return COLD_OUT;
}

/** The compiled path of a file given relative to the repository root (`bench/worker.ts`). */
export function compiled(path: string, tree: string = OUT): string {
  return join(tree, path.replace(/\.ts$/, ".js"));
}
