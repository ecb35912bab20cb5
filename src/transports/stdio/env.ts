/**
 * The variables a spawned server inherits by default. Just enough to find binaries, a home and a
 * locale; secrets in the parent's environment (tokens, cloud credentials) are not passed on.
 *
 * @example
 * const env = Object.fromEntries(DEFAULT_INHERITED_ENV_VARS.map((name) => [name, process.env[name]]));
 */
export const DEFAULT_INHERITED_ENV_VARS: readonly string[] =
  process.platform === "win32"
    ? [
        "APPDATA",
        "HOMEDRIVE",
        "HOMEPATH",
        "LOCALAPPDATA",
        "PATH",
        "PATHEXT",
        "PROCESSOR_ARCHITECTURE",
        "PROGRAMFILES",
        "SYSTEMDRIVE",
        "SYSTEMROOT",
        "TEMP",
        "TMP",
        "USERNAME",
        "USERPROFILE",
      ]
    : ["HOME", "LANG", "LC_ALL", "LOGNAME", "PATH", "SHELL", "TERM", "TMPDIR", "USER"];

/**
 * The default environment of a spawned server: `DEFAULT_INHERITED_ENV_VARS` taken from this
 * process. Values that look like exported shell functions (`() {`) are skipped.
 *
 * @example
 * new StdioClientTransport({ command: "my-server", env: { ...defaultStdioEnv(), API_URL: url } });
 */
export function defaultStdioEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of DEFAULT_INHERITED_ENV_VARS) {
    const value = process.env[name];
    if (value !== undefined && !value.startsWith("()")) env[name] = value;
  }
  return env;
}
