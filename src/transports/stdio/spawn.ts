/**
 * Which `spawn` starts a stdio server, how, and what its failures say. Windows needs cross-spawn:
 * `npx` and `uvx` are `.cmd` shims that Node's own spawn will not run without a shell, and quoting
 * arguments for `cmd.exe` is the part best left to the package the ecosystem relies on. Elsewhere
 * Node's spawn is all it takes.
 */
import { type SpawnOptions, spawn } from "node:child_process";
import { existsSync } from "node:fs";
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

/**
 * The spawn options for a stdio server on `platform`. Off Windows the server leads a process group
 * of its own (`detached`: a new session, as the Python SDK's `start_new_session`), so shutdown can
 * signal what a wrapper (`sh -c`, `npx`, `uvx`) started along with the wrapper. On Windows
 * `detached` would open a console of its own, so the server stays in ours there.
 *
 * @example
 * const options = serverSpawnOptions(process.platform, { stderr: "pipe" });
 * const child = spawnerFor(process.platform)("my-mcp-server", [], options);
 */
export function serverSpawnOptions(
  platform: NodeJS.Platform,
  { cwd, env, stderr }: { cwd?: string; env?: NodeJS.ProcessEnv; stderr: "inherit" | "pipe" | "ignore" },
): SpawnOptions {
  const options: SpawnOptions = {
    cwd,
    env,
    stdio: ["pipe", "pipe", stderr],
    shell: false,
    windowsHide: true,
  };
  if (platform !== "win32") options.detached = true;
  return options;
}

/**
 * The error a failed spawn rejects with. Node's own carries the arguments (`spawnargs`), which
 * may hold a token and would show wherever the error is logged: a copy keeps all but them. Node
 * reports a missing working directory as `spawn <command> ENOENT`, which reads as a missing
 * command, so that case names the directory.
 *
 * @example
 * child.once("error", (error) => reject(spawnFailure(error, cwd)));
 */
export function spawnFailure(failure: NodeJS.ErrnoException, cwd: string | undefined): Error {
  const error: NodeJS.ErrnoException = new Error(failure.message);
  for (const key of ["code", "errno", "syscall", "path"] as const) {
    if (failure[key] !== undefined) Object.assign(error, { [key]: failure[key] });
  }
  if (error.code !== "ENOENT" || cwd === undefined || existsSync(cwd)) return error;
  const missing: NodeJS.ErrnoException = new Error(
    `The MCP server's working directory does not exist: ${cwd}`,
    { cause: error },
  );
  missing.code = "ENOENT";
  return missing;
}

/**
 * The error for a spawn Node refused at once. Its own messages quote the offending value, which
 * may be an environment secret, so an invalid argument is reported without it. Node gives an empty
 * command the same code as a NUL byte, so that case is told apart by the command itself.
 *
 * @example
 * try {
 *   spawn(command, args, options);
 * } catch (error) {
 *   throw spawnRefused(error as NodeJS.ErrnoException, command, cwd);
 * }
 */
export function spawnRefused(error: NodeJS.ErrnoException, command: string, cwd: string | undefined): Error {
  if (error.code === "ENOTDIR") {
    const notDirectory: NodeJS.ErrnoException = new Error(
      `The MCP server's working directory is not a directory: ${cwd}`,
    );
    notDirectory.code = "ENOTDIR";
    return notDirectory;
  }
  if (error.code === "ERR_INVALID_ARG_VALUE") {
    const invalid: NodeJS.ErrnoException = new TypeError(
      command === ""
        ? "Cannot spawn the MCP server: the command is empty"
        : "Cannot spawn the MCP server: the command, an argument, the working directory or an " +
            "environment value holds a NUL byte",
    );
    invalid.code = error.code;
    return invalid;
  }
  return error;
}
