import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { StdioClientTransport } from "../../../src/transports/stdio/client.js";
import { serverSpawnOptions, spawnerFor } from "../../../src/transports/stdio/spawn.js";

/** Runs `node -e script args…` through `start` and collects its stdout. */
function run(start: typeof spawn, args: string[]): Promise<string> {
  const script = "process.stdout.write(JSON.stringify([process.argv.slice(1), process.env.ROUNDTRIP_PROBE]))";
  return new Promise((resolve, reject) => {
    const child = start(process.execPath, ["-e", script, ...args], {
      env: { ...process.env, ROUNDTRIP_PROBE: "seen" },
      stdio: ["ignore", "pipe", "inherit"],
      shell: false,
      windowsHide: true,
    });
    let out = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
    });
    child.once("error", reject);
    child.once("close", () => resolve(out));
  });
}

describe("spawnerFor", () => {
  it("is Node's own spawn off Windows", () => {
    expect(spawnerFor("linux")).toBe(spawn);
    expect(spawnerFor("darwin")).toBe(spawn);
  });

  it("is cross-spawn on Windows, loaded only then", () => {
    expect(spawnerFor("win32")).toBe(createRequire(import.meta.url)("cross-spawn"));
  });

  it("cross-spawn takes the same options and passes arguments through untouched (here, off Windows)", async () => {
    const args = ["a b", 'quote"d', "&|<>^%!", ""];
    const expected = JSON.stringify([args, "seen"]);
    expect(await run(spawnerFor("win32"), args)).toBe(expected);
    expect(await run(spawn, args)).toBe(expected);
  });
});

describe("serverSpawnOptions", () => {
  const server = { cwd: "/srv", env: { PATH: "/bin" }, stderr: "pipe" as const };

  it("puts the server in a process group of its own off Windows, so shutdown can signal all of it", () => {
    for (const platform of ["linux", "darwin", "freebsd"] as const) {
      expect(serverSpawnOptions(platform, server)).toMatchObject({ detached: true });
    }
  });

  it("leaves the options as they always were on Windows: detached would open a console of its own", () => {
    expect(serverSpawnOptions("win32", server)).toEqual({
      cwd: "/srv",
      env: { PATH: "/bin" },
      stdio: ["pipe", "pipe", "pipe"],
      shell: false,
      windowsHide: true,
    });
  });
});

describe("a command Node refuses before spawning", () => {
  it("says the command is empty, rather than blaming a NUL byte", async () => {
    const transport = new StdioClientTransport({ command: "" });
    const error = (await transport.start().catch((e: unknown) => e)) as NodeJS.ErrnoException;
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({
      code: "ERR_INVALID_ARG_VALUE",
      message: "Cannot spawn the MCP server: the command is empty",
    });
    await transport.close();
  });
});
