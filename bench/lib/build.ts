/**
 * Compiles `src/` and `bench/` file-by-file (no bundling: the shape a published `dist/` has) into
 * `node_modules/.cache/roundtrip-bench/`, so measuring children run plain JavaScript for both SDKs:
 * no TypeScript loader in the process, and profiles that name our functions.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

/** The repository root (bench/lib/../..). */
export const ROOT = join(import.meta.dirname, "..", "..");
/** Where the compiled tree goes (inside node_modules so that `zod` and the official SDK resolve). */
export const OUT = join(ROOT, "node_modules", ".cache", "roundtrip-bench");

function tsFiles(dir: string): string[] {
  return (readdirSync(join(ROOT, dir), { recursive: true }) as string[])
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
    .map((file) => join(ROOT, dir, file))
    .filter((file) => !relative(ROOT, file).split("/").includes("_tmp"));
}

/**
 * Builds the tree and returns the compiled path of a bench file.
 *
 * @example
 * const worker = await buildBenchTree(); // …/roundtrip-bench
 */
export async function buildBenchTree(): Promise<string> {
  const esbuild = await import("esbuild");
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  // Outside any package scope Node would read .js as CommonJS.
  writeFileSync(join(OUT, "package.json"), `${JSON.stringify({ type: "module", private: true })}\n`);
  await esbuild.build({
    entryPoints: [...tsFiles("src"), ...tsFiles("bench")],
    outbase: ROOT,
    outdir: OUT,
    bundle: false,
    format: "esm",
    platform: "node",
    target: "node20",
    sourcemap: "linked",
    logLevel: "error",
  });
  return OUT;
}

/** The compiled path of a file given relative to the repository root (`bench/worker.ts`). */
export function compiled(path: string): string {
  return join(OUT, path.replace(/\.ts$/, ".js"));
}
