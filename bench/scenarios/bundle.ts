/**
 * Bundle size per SDK, esbuild `--bundle --minify --format=esm`, then gzip (zlib default level); the
 * metafile gives the share of each package in the output. Two platforms:
 * - node: a minimal MRTR server over stdio and a minimal client (spawns a stdio server, one call);
 * - browser: the same server as a web fetch handler (Workers, Deno, Bun) and a client over
 *   Streamable HTTP with fetch. `node:*` imports stay external there (those runtimes provide them:
 *   our sealing uses `node:crypto`), for both SDKs alike.
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

type Platform = "node" | "browser";

async function bundleSize(entry: string, platform: Platform): Promise<BundleSize> {
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    entryPoints: [join(ROOT, "bench", "bundle", entry)],
    absWorkingDir: ROOT,
    bundle: true,
    minify: true,
    format: "esm",
    platform,
    target: platform === "node" ? "node20" : "es2022",
    external: platform === "node" ? [] : ["node:*"],
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

/** The bundles measured: entry file under bench/bundle/, per platform. */
const BUNDLES: readonly { kind: string; platform: Platform; ours: string; theirs: string; what: string }[] = [
  { kind: "server", platform: "node", ours: "ours-server.ts", theirs: "theirs-server.ts", what: "stdio" },
  { kind: "client", platform: "node", ours: "ours-client.ts", theirs: "theirs-client.ts", what: "stdio" },
  {
    kind: "web server",
    platform: "browser",
    ours: "ours-web-server.ts",
    theirs: "theirs-web-server.ts",
    what: "fetch handler",
  },
  {
    kind: "web client",
    platform: "browser",
    ours: "ours-web-client.ts",
    theirs: "theirs-web-client.ts",
    what: "Streamable HTTP over fetch",
  },
];

function label(entry: string): string {
  return entry.replace(".ts", "").replace("ours", "roundtrip").replace("theirs", "official");
}

export const scenario: Scenario = {
  id: "bundle",
  title: "Bundle size (esbuild, minified + gzip; node and browser platforms)",
  async run(ctx: RunContext) {
    const sizes: Record<string, BundleSize> = {};
    for (const bundle of BUNDLES) {
      for (const entry of [bundle.ours, bundle.theirs]) {
        ctx.log(`bundle: ${entry} (${bundle.platform})`);
        sizes[entry] = await bundleSize(entry, bundle.platform);
      }
    }
    const s = (key: string) => sizes[key] as BundleSize;
    const bytes = (n: number) => summarize([n]);
    const fmtGz = (x: { median: number }) => fmtBytes(x.median);
    const rows = BUNDLES.map((bundle) =>
      lowerIsBetter(
        `Bundle, minimal ${bundle.kind} (${bundle.what}, platform ${bundle.platform}; min + gzip)`,
        bytes(s(bundle.ours).gzip),
        bytes(s(bundle.theirs).gzip),
        1 / 2,
        fmtGz,
        "≤ 1/2 (0.5×)",
      ),
    );
    const details = [
      "Entries: bench/bundle/*.ts. Platform node: the `provision` tool served over stdio, and a client that spawns a stdio server and makes one MRTR call. Platform browser: the same tool as a web fetch handler (`export default { fetch }`), and a client over Streamable HTTP with `fetch`; `node:*` imports are left to the runtime for both SDKs.",
      "",
      "| bundle | platform | minified | gzip | largest parts of the minified output |",
      "| --- | --- | --- | --- | --- |",
      ...BUNDLES.flatMap((bundle) =>
        [bundle.ours, bundle.theirs].map(
          (key) =>
            `| ${label(key)} | ${bundle.platform} | ${fmtBytes(s(key).minified)} | ${fmtBytes(s(key).gzip)} | ${breakdown(s(key))} |`,
        ),
      ),
    ].join("\n");
    return { rows, details, data: sizes };
  },
};
