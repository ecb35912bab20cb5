/**
 * Bundle size of a minimal MRTR server (stdio) and a minimal client (spawns a stdio server, one
 * call) per SDK: esbuild `--bundle --minify --format=esm --platform=node`, then gzip (zlib default
 * level). The metafile gives the share of each package in the output.
 */

import { join, relative } from "node:path";
import { gzipSync } from "node:zlib";
import { ROOT } from "../lib/build.js";
import { lowerIsBetter, type RunContext, type Scenario } from "../lib/scenario.js";
import { fmtBytes, summarize } from "../lib/stats.js";

interface BundleSize {
  readonly minified: number;
  readonly gzip: number;
  /** Bytes in the minified output per package. */
  readonly parts: Record<string, number>;
}

function owner(input: string): string {
  const path = input.replace(/\\/g, "/");
  if (path.startsWith("src/")) return "roundtrip (src/)";
  if (path.startsWith("bench/")) return "entry";
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(path);
  if (!match) return path;
  const pkg = match[1] as string;
  if (pkg.startsWith("@modelcontextprotocol/") && /ajvProvider|\/ajv/.test(match[2] ?? ""))
    return "official: vendored AJV";
  if (pkg.startsWith("@modelcontextprotocol/") && /cfWorker/.test(match[2] ?? ""))
    return "official: vendored cfworker";
  return pkg;
}

async function bundleSize(entry: string): Promise<BundleSize> {
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    entryPoints: [join(ROOT, "bench", "bundle", entry)],
    absWorkingDir: ROOT,
    bundle: true,
    minify: true,
    format: "esm",
    platform: "node",
    target: "node20",
    write: false,
    metafile: true,
    logLevel: "error",
    outfile: join(ROOT, "node_modules", ".cache", "roundtrip-bench", "bundle", entry.replace(/\.ts$/, ".js")),
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error(`esbuild produced nothing for ${entry}`);
  const parts: Record<string, number> = {};
  for (const meta of Object.values(result.metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(meta.inputs)) {
      const key = owner(relative(ROOT, join(ROOT, input)));
      parts[key] = (parts[key] ?? 0) + bytesInOutput;
    }
  }
  return { minified: output.contents.byteLength, gzip: gzipSync(output.contents).byteLength, parts };
}

function breakdown(size: BundleSize): string {
  return Object.entries(size.parts)
    .filter(([, bytes]) => bytes >= 1024)
    .sort((a, b) => b[1] - a[1])
    .map(([name, bytes]) => `${name} ${fmtBytes(bytes)}`)
    .join(", ");
}

export const scenario: Scenario = {
  id: "bundle",
  title: "Bundle size (esbuild, minified + gzip, platform node)",
  async run(ctx: RunContext) {
    const sizes: Record<string, BundleSize> = {};
    for (const entry of ["ours-server.ts", "theirs-server.ts", "ours-client.ts", "theirs-client.ts"]) {
      ctx.log(`bundle: ${entry}`);
      sizes[entry] = await bundleSize(entry);
    }
    const s = (key: string) => sizes[key] as BundleSize;
    const bytes = (n: number) => summarize([n]);
    const fmtGz = (x: { median: number }) => fmtBytes(x.median);
    const rows = ["server", "client"].map((kind) =>
      lowerIsBetter(
        `Bundle, minimal ${kind} (min + gzip)`,
        bytes(s(`ours-${kind}.ts`).gzip),
        bytes(s(`theirs-${kind}.ts`).gzip),
        1 / 2,
        fmtGz,
        "≤ 1/2 (0.5×)",
      ),
    );
    const details = [
      "Entries: bench/bundle/*.ts (the `provision` tool served over stdio; a client that spawns a stdio server and makes one MRTR call).",
      "",
      "| bundle | minified | gzip | largest parts of the minified output |",
      "| --- | --- | --- | --- |",
      ...["ours-server.ts", "theirs-server.ts", "ours-client.ts", "theirs-client.ts"].map(
        (key) =>
          `| ${key.replace(".ts", "").replace("ours", "roundtrip").replace("theirs", "official")} | ${fmtBytes(s(key).minified)} | ${fmtBytes(s(key).gzip)} | ${breakdown(s(key))} |`,
      ),
    ].join("\n");
    return { rows, details, data: sizes };
  },
};
