import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    // Examples import the package by its public name; tests run them against the sources.
    alias: [
      { find: /^roundtrip-mcp$/, replacement: src("index.ts") },
      { find: /^roundtrip-mcp\/(http|stdio)$/, replacement: src("transports/$1/index.ts") },
      { find: /^roundtrip-mcp\/http\/web$/, replacement: src("transports/http/web.ts") },
      { find: /^roundtrip-mcp\/oauth$/, replacement: src("transports/http/oauth/index.ts") },
      { find: /^roundtrip-mcp\/jwt$/, replacement: src("transports/http/verifiers/jwt.ts") },
      {
        find: /^roundtrip-mcp\/introspection$/,
        replacement: src("transports/http/verifiers/introspection.ts"),
      },
      { find: /^roundtrip-mcp\/tasks$/, replacement: src("server/tasks/index.ts") },
      { find: /^roundtrip-mcp\/(.+)$/, replacement: src("$1/index.ts") },
    ],
  },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // `npm run coverage` (CI): floors just under what the suite executes in this process, so a
    // change that leaves code untested fails. The CLI and the stdio servers run in child processes,
    // which V8 coverage here does not see.
    coverage: {
      provider: "v8",
      include: ["src/**/*.ts"],
      reporter: ["text-summary"],
      thresholds: { lines: 95.5, statements: 92.5, functions: 91, branches: 88.5 },
    },
  },
});
