/**
 * The published build (scripts/build.ts, what `npm run build` runs), checked as a consumer sees it:
 * built into a throwaway package directory (package.json copied, so `roundtrip-mcp/…` resolves
 * through the real `exports` map by self-reference, and `zod` through the repository's node_modules),
 * then loaded by plain `node` children, with no TypeScript loader and no vitest aliases.
 */
import { execFile } from "node:child_process";
import {
  accessSync,
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { isBuiltin } from "node:module";
import { join, relative, resolve } from "node:path";
import type { Metafile } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildPackage,
  type PackageJson,
  ROOT,
  readPackageJson,
  staticBareImports,
} from "../../scripts/build.js";

const pkg: PackageJson = readPackageJson();
let dir = "";
let metafile: Metafile;

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `file args…` in the package directory; killed after 10 s. */
function run(file: string, args: readonly string[]): Promise<Run> {
  return new Promise((done) => {
    execFile(file, args, { cwd: dir, timeout: 10_000, encoding: "utf8" }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
      done({ code, stdout, stderr });
    });
  });
}

/** A path inside the built package (`./dist/server/index.js` → absolute). */
const inPackage = (path: string) => resolve(dir, path);

beforeAll(async () => {
  // Under the repository's node_modules so that the external packages (zod, …) resolve.
  const cache = join(ROOT, "node_modules", ".cache");
  mkdirSync(cache, { recursive: true });
  dir = mkdtempSync(join(cache, "roundtrip-dist-test-"));
  copyFileSync(join(ROOT, "package.json"), join(dir, "package.json"));
  metafile = await buildPackage({ outdir: join(dir, "dist") });
}, 30_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the built package", () => {
  it("has every exports and bin path, with declarations, and an executable bin", () => {
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      expect(existsSync(inPackage(target.import ?? "")), `${subpath} import`).toBe(true);
      expect(existsSync(inPackage(target.types ?? "")), `${subpath} types`).toBe(true);
      expect(existsSync(`${inPackage(target.import ?? "")}.map`), `${subpath} source map`).toBe(true);
    }
    for (const bin of Object.values(pkg.bin ?? {})) {
      expect(readFileSync(inPackage(bin), "utf8").split("\n")[0]).toBe("#!/usr/bin/env node");
      accessSync(inPackage(bin), constants.X_OK);
    }
  });

  it("imports every public entry point and runs a tool call in memory, in plain node", async () => {
    writeFileSync(
      join(dir, "flow.mjs"),
      `const pkg = JSON.parse(await (await import("node:fs/promises")).readFile(new URL("./package.json", import.meta.url), "utf8"));
const exported = {};
for (const subpath of Object.keys(pkg.exports)) {
  const specifier = subpath === "." ? pkg.name : pkg.name + subpath.slice(1);
  exported[specifier] = Object.keys(await import(specifier)).length;
}
const { MCPServer, silentLogger } = await import("roundtrip-mcp/server");
const { Client } = await import("roundtrip-mcp/client");
const { z } = await import("zod");
const mcp = new MCPServer("dist-check", { version: "1.0.0", logger: silentLogger });
mcp.tool("greet", { input: z.object({ name: z.string() }) }, ({ name }) => \`Hello, \${name}.\`);
const client = await Client.connect(mcp);
const result = await client.callTool("greet", { name: "dist" });
await client.close();
console.log(JSON.stringify({ exported, version: client.protocolVersion, text: result.content[0]?.text }));
`,
    );
    const { code, stdout, stderr } = await run(process.execPath, ["flow.mjs"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const out = JSON.parse(stdout) as { exported: Record<string, number>; version: string; text: string };
    expect(Object.keys(out.exported).sort()).toEqual(
      Object.keys(pkg.exports)
        .map((subpath) => (subpath === "." ? pkg.name : pkg.name + subpath.slice(1)))
        .sort(),
    );
    for (const [specifier, count] of Object.entries(out.exported))
      expect(count, specifier).toBeGreaterThan(0);
    expect(out.text).toBe("Hello, dist.");
    expect(out.version).toBe("2026-07-28");
  });

  it("runs the CLI: --help, --version, and a call over stdio (a lazily loaded chunk)", async () => {
    const bin = inPackage(Object.values(pkg.bin ?? {})[0] ?? "");
    const help = await run(bin, ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("roundtrip call");
    // The CLI finds package.json through `new URL("../../package.json", import.meta.url)`.
    const version = await run(bin, ["--version"]);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe(pkg.version);
    writeFileSync(
      join(dir, "stdio-server.mjs"),
      `import { MCPServer, silentLogger } from "roundtrip-mcp/server";
import { serveStdio } from "roundtrip-mcp/stdio";
const mcp = new MCPServer("dist-stdio", { version: "1.0.0", logger: silentLogger });
mcp.tool("greet", { description: "Greets" }, () => "Hello over stdio.");
serveStdio(mcp);
`,
    );
    // The stdio client transport is one of the client's dynamic imports: this loads its chunk.
    const call = await run(bin, ["call", "greet", "--", process.execPath, "stdio-server.mjs"]);
    expect(call.stderr).toBe("");
    expect(call.code).toBe(0);
    expect(call.stdout).toContain("Hello over stdio.");
  });
});

/** The server + client entry points, the pair an app loads (and the cold-start bench times). */
const SERVER_AND_CLIENT = ["./dist/server/index.js", "./dist/client/index.js"];

describe("the static import graph of the built server + client", () => {
  it("imports exactly these packages statically", () => {
    const packages = staticBareImports(SERVER_AND_CLIENT.map(inPackage)).filter((name) => !isBuiltin(name));
    // None: zod (loaded with import() on the paths that need it) or any other package entering the
    // static graph is a cold-start regression. The JSON Schema validator is our own (src/shared/json-schema).
    expect(packages).toEqual([]);
  });

  it("agrees with esbuild's metafile, and dynamic imports stay out of it as chunks of their own", () => {
    const key = (path: string) => relative(ROOT, inPackage(path));
    const staticFiles = new Set<string>();
    const externals = new Set<string>();
    const lazy = new Set<string>();
    const queue = SERVER_AND_CLIENT.map(key);
    for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
      if (staticFiles.has(file)) continue;
      staticFiles.add(file);
      for (const { path, kind, external } of metafile.outputs[file]?.imports ?? []) {
        if (kind === "dynamic-import") {
          if (!external) lazy.add(path);
        } else if (external) externals.add(path);
        else queue.push(path);
      }
    }
    expect(staticBareImports(SERVER_AND_CLIENT.map(inPackage))).toEqual([...externals].sort());
    expect(lazy.size).toBeGreaterThan(0);
    for (const chunk of lazy) {
      expect(existsSync(join(ROOT, chunk)), chunk).toBe(true);
      expect(staticFiles.has(chunk), chunk).toBe(false);
    }
  });
});

describe("staticBareImports", () => {
  it("follows static imports and re-exports through relative files, and skips import()", () => {
    const files = mkdtempSync(join(ROOT, "node_modules", ".cache", "roundtrip-imports-test-"));
    try {
      writeFileSync(
        join(files, "entry.js"),
        [
          'import {\n  a,\n  b as c\n} from "./chunks/one.js";',
          'import "./side.js";',
          'export * from "node:fs";',
          'const lazy = () => import("zod");',
          "const text = 'import x from \"not-a-statement\"';",
        ].join("\n"),
      );
      mkdirSync(join(files, "chunks"));
      writeFileSync(
        join(files, "chunks", "one.js"),
        'import x, { y } from "pkg-a";\nexport { z } from "@scope/b/sub";\n',
      );
      // lazy.js does not exist: reading it would throw.
      writeFileSync(join(files, "side.js"), 'import * as ns from "side-pkg";\nawait import("./lazy.js");\n');
      expect(staticBareImports([join(files, "entry.js")])).toEqual([
        "@scope/b/sub",
        "node:fs",
        "pkg-a",
        "side-pkg",
      ]);
    } finally {
      rmSync(files, { recursive: true, force: true });
    }
  });
});
