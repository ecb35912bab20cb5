/**
 * Which `spawn` starts a stdio server. Windows needs cross-spawn: `npx` and `uvx` are `.cmd` shims
 * that Node's own spawn will not run without a shell, and quoting arguments for `cmd.exe` is the
 * part best left to the package the ecosystem relies on. Elsewhere Node's spawn is all it takes.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";

/**
 * The spawn for `platform`. cross-spawn is loaded with `require` when first needed, so bundlers
 * (a browser build of the client, say) never try to pull it in.
 *
 * @example
 * const child = spawnerFor(process.platform)("npx", ["-y", "some-mcp-server"], { stdio: "pipe" });
 */
export function spawnerFor(platform: NodeJS.Platform): typeof spawn {
  if (platform !== "win32") return spawn;
  return createRequire(import.meta.url)("cross-spawn") as typeof spawn;
}
