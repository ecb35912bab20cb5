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
import type { Plugin } from "esbuild";
import { ROOT } from "../lib/build.js";
import { lowerIsBetter, type RunContext, type Scenario } from "../lib/scenario.js";
import { fmtBytes, summarize } from "../lib/stats.js";
import { DB_NAME, EXPECTED_TEXT, expectEqual, firstText, TOOL_MRTR } from "../lib/workload.js";

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

/** How the entry's app describes the tool input: with zod (the workload) or as a raw JSON Schema. */
type InputSchema = "zod" | "json";

/** Swaps each side's zod provisioner for its raw-JSON-Schema twin (`*-provisioner-json.ts`). */
const rawJsonSchemaApp: Plugin = {
  name: "raw-json-schema-app",
  setup(build) {
    build.onResolve({ filter: /^\.\/(ours|theirs)-provisioner\.js$/ }, (args) => ({
      path: join(args.resolveDir, args.path.replace(/\.js$/, "-json.ts")),
    }));
  },
};

async function bundleSize(entry: string, platform: Platform, input: InputSchema): Promise<BundleSize> {
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
    plugins: input === "json" ? [rawJsonSchemaApp] : [],
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

/** The bundles measured: entry file under bench/bundle/, per platform and app input schema. */
const BUNDLES: readonly {
  kind: string;
  platform: Platform;
  input: InputSchema;
  ours: string;
  theirs: string;
  what: string;
}[] = [
  {
    kind: "server",
    platform: "node",
    input: "zod",
    ours: "ours-server.ts",
    theirs: "theirs-server.ts",
    what: "stdio",
  },
  {
    kind: "client",
    platform: "node",
    input: "zod",
    ours: "ours-client.ts",
    theirs: "theirs-client.ts",
    what: "stdio",
  },
  {
    kind: "web server",
    platform: "browser",
    input: "zod",
    ours: "ours-web-server.ts",
    theirs: "theirs-web-server.ts",
    what: "fetch handler",
  },
  {
    kind: "web client",
    platform: "browser",
    input: "zod",
    ours: "ours-web-client.ts",
    theirs: "theirs-web-client.ts",
    what: "Streamable HTTP over fetch",
  },
  {
    kind: "server",
    platform: "node",
    input: "json",
    ours: "ours-server.ts",
    theirs: "theirs-server.ts",
    what: "stdio",
  },
  {
    kind: "web server",
    platform: "browser",
    input: "json",
    ours: "ours-web-server.ts",
    theirs: "theirs-web-server.ts",
    what: "fetch handler",
  },
];

function label(entry: string, input: InputSchema): string {
  const name = entry.replace(".ts", "").replace("ours", "roundtrip").replace("theirs", "official");
  return input === "json" ? `${name} (raw JSON Schema)` : name;
}

function rowTitle(bundle: (typeof BUNDLES)[number]): string {
  const app =
    bundle.input === "json" ? ", tool input as a raw JSON Schema (no schema library in the app)" : "";
  return `Bundle, minimal ${bundle.kind}${app} (${bundle.what}, platform ${bundle.platform}; min + gzip)`;
}

/**
 * The raw-JSON-Schema apps are not the harness's workload, so each is run once here: a two-round
 * flow must finish with the expected text, and arguments the schema refuses must be refused.
 */
async function checkRawJsonSchemaApps(): Promise<void> {
  const ours = await import("../bundle/ours-provisioner-json.js");
  const { connectOurs } = await import("../lib/ours.js");
  const client = await connectOurs(ours.provisioner());
  try {
    expectEqual(
      "raw JSON Schema app (ours)",
      firstText(await client.callTool(TOOL_MRTR, { name: DB_NAME })),
      EXPECTED_TEXT,
    );
    const refused = await client.callTool(TOOL_MRTR, { name: 7 }).then(
      (result) => (result as { isError?: boolean }).isError === true,
      () => true,
    );
    expectEqual("raw JSON Schema app (ours) refuses a non-string name", refused, true);
  } finally {
    await client.close();
  }
  const theirs = await import("../bundle/theirs-provisioner-json.js");
  const { connectTheirFactoryInMemory } = await import("../lib/theirs.js");
  const pair = await connectTheirFactoryInMemory(theirs.provisioner);
  try {
    const result = await pair.client.callTool({ name: TOOL_MRTR, arguments: { name: DB_NAME } });
    expectEqual("raw JSON Schema app (theirs)", firstText(result), EXPECTED_TEXT);
    const refused = await pair.client.callTool({ name: TOOL_MRTR, arguments: { name: 7 } }).then(
      (r) => (r as { isError?: boolean }).isError === true,
      () => true,
    );
    expectEqual("raw JSON Schema app (theirs) refuses a non-string name", refused, true);
  } finally {
    await pair.close();
  }
}

export const scenario: Scenario = {
  id: "bundle",
  title: "Bundle size (esbuild, minified + gzip; node and browser platforms)",
  async run(ctx: RunContext) {
    ctx.log("bundle: running the raw-JSON-Schema apps once");
    await checkRawJsonSchemaApps();
    const sizes: Record<string, BundleSize> = {};
    const key = (entry: string, input: InputSchema) =>
      input === "json" ? `${entry} (raw JSON Schema)` : entry;
    for (const bundle of BUNDLES) {
      for (const entry of [bundle.ours, bundle.theirs]) {
        ctx.log(`bundle: ${entry} (${bundle.platform}, ${bundle.input} input)`);
        sizes[key(entry, bundle.input)] = await bundleSize(entry, bundle.platform, bundle.input);
      }
    }
    const s = (entry: string, input: InputSchema) => sizes[key(entry, input)] as BundleSize;
    const bytes = (n: number) => summarize([n]);
    const fmtGz = (x: { median: number }) => fmtBytes(x.median);
    const rows = BUNDLES.map((bundle) =>
      lowerIsBetter(
        rowTitle(bundle),
        bytes(s(bundle.ours, bundle.input).gzip),
        bytes(s(bundle.theirs, bundle.input).gzip),
        1 / 2,
        fmtGz,
        "≤ 1/2 (0.5×)",
      ),
    );
    const details = [
      "Entries: bench/bundle/*.ts. Platform node: the `provision` tool served over stdio, and a client that spawns a stdio server and makes one MRTR call. Platform browser: the same tool as a web fetch handler (`export default { fetch }`), and a client over Streamable HTTP with `fetch`; `node:*` imports are left to the runtime for both SDKs. The servers are measured twice: with the tool input described in zod, as the workload's app does (the app's zod counts, and only ours pays for it: theirs loads zod itself), and as a raw JSON Schema, with no schema library in the app (ours takes the object as it is; theirs through its `fromJsonSchema`). Each raw-JSON-Schema app is run once per run: a two-round flow, and a refused non-string `name`.",
      "",
      "| bundle | platform | minified | gzip | largest parts of the minified output |",
      "| --- | --- | --- | --- | --- |",
      ...BUNDLES.flatMap((bundle) =>
        [bundle.ours, bundle.theirs].map((entry) => {
          const size = s(entry, bundle.input);
          return `| ${label(entry, bundle.input)} | ${bundle.platform} | ${fmtBytes(size.minified)} | ${fmtBytes(size.gzip)} | ${breakdown(size)} |`;
        }),
      ),
    ].join("\n");
    return { rows, details, data: sizes };
  },
};
