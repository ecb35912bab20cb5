import { inspect } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { ClientSession } from "../../../src/client/session.js";
import { ConnectionClosedError, RequestAbortedError } from "../../../src/shared/errors.js";
import { StdioClientTransport, StdioServerExitError } from "../../../src/transports/stdio/client.js";
import { DEFAULT_INHERITED_ENV_VARS } from "../../../src/transports/stdio/env.js";
import type { JSONRPCMessage } from "../../../src/types/index.js";
import {
  collect,
  ENVELOPE,
  GRANDCHILD,
  killSpawned,
  provisionerTransport,
  REPO_ROOT,
  SERVER_INFO,
  STDOUT_CLOSING,
  STUBBORN,
  track,
  trackTransport,
  until,
} from "./helpers.js";

afterEach(killSpawned);

const textResult = (text: string) => ({
  content: [{ type: "text", text }],
  resultType: "complete",
  _meta: SERVER_INFO,
});

/** Records what the transport hands to the connection, without changing it. */
function tapIncoming(transport: StdioClientTransport): JSONRPCMessage[] {
  const seen: JSONRPCMessage[] = [];
  const deliver = transport.onmessage;
  transport.onmessage = (message) => {
    seen.push(message);
    deliver?.(message);
  };
  return seen;
}

/** One of the stdio fixtures as a server process, closed within 300 ms per step of the shutdown. */
function fixtureServer(fixture: string, stderr: "pipe" | "ignore"): StdioClientTransport {
  return trackTransport(
    new StdioClientTransport({
      command: process.execPath,
      args: ["--import", "tsx", fixture],
      cwd: REPO_ROOT,
      stderr,
      closeTimeoutMs: 300,
    }),
  );
}

describe("StdioClientTransport + ClientSession against a real child process", () => {
  it("drives the two-leg multi-round-trip flow", async () => {
    const transport = provisionerTransport();
    const session = await ClientSession.connect(transport, { capabilities: { elicitation: { form: {} } } });
    const incoming = tapIncoming(transport);
    const first = await session.callTool("provision", { name: "orders" }, { allowInputRequired: true });
    expect(first).toMatchObject({ resultType: "input_required", requestState: "provision-v1" });
    const second = await session.callTool(
      "provision",
      { name: "orders" },
      {
        inputResponses: { region: { action: "accept", content: { region: "eu-west-1" } } },
        requestState: "provision-v1",
      },
    );
    expect(second).toEqual(textResult("Provisioned 'orders' in eu-west-1."));
    expect(incoming.map((message) => (message as { id?: unknown }).id)).toEqual([1, 2]);
    expect(session.serverInfo).toEqual({ name: "Provisioner", version: "1.0.0" });
    await session.close();
  });

  it("routes progress to its call, answers concurrent calls by id, and cancels with notifications/cancelled", async () => {
    const transport = provisionerTransport({ stderr: "pipe" });
    const stderr = collect(transport.stderr);
    const sent: JSONRPCMessage[] = [];
    const session = await ClientSession.connect(transport);
    const send = transport.send.bind(transport);
    transport.send = (message) => {
      sent.push(message);
      return send(message);
    };
    const steps: number[] = [];
    const controller = new AbortController();
    const slow = session.callTool("slow", {}, { signal: controller.signal });
    const [long, short, withProgress] = await Promise.all([
      session.callTool("sleep", { ms: 300 }),
      session.callTool("sleep", { ms: 1 }),
      session.callTool("progress", {}, { onProgress: (p) => steps.push(p.progress) }),
    ]);
    expect([long, short, withProgress]).toEqual([
      textResult("slept 300"),
      textResult("slept 1"),
      textResult("done"),
    ]);
    expect(steps).toEqual([1, 2, 3]);
    controller.abort("enough");
    await expect(slow).rejects.toBeInstanceOf(RequestAbortedError);
    await expect(slow).rejects.toHaveProperty("cause", "enough");
    await until(() => stderr.text().includes("aborted 1"), "the server to see the cancellation");
    expect(sent.at(-1)).toEqual({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 1, reason: "aborted by the client" },
    });
    expect(transport).not.toHaveProperty("cancel");
    await session.close();
  });

  it("passes a minimal environment by default, merged with the caller's env", async () => {
    process.env.RT_STDIO_TEST_SECRET = "do-not-leak";
    try {
      const session = await ClientSession.connect(
        provisionerTransport({ env: { FIXTURE_EXTRA: "yes", HOME: undefined } }),
      );
      const result = await session.callTool("env");
      const seen = JSON.parse((result.content[0] as { text: string }).text) as {
        FIXTURE_EXTRA: string;
        keys: string[];
      };
      expect(seen.FIXTURE_EXTRA).toBe("yes");
      expect(seen.keys).toContain("PATH");
      expect(seen.keys).not.toContain("RT_STDIO_TEST_SECRET");
      expect(seen.keys).not.toContain("HOME");
      const allowed = new Set([...DEFAULT_INHERITED_ENV_VARS, "FIXTURE_EXTRA"]);
      // Node itself may add a few variables of its own; none of the parent's others leak.
      expect(seen.keys.filter((key) => !allowed.has(key) && key in process.env)).toEqual([]);
      await session.close();
    } finally {
      delete process.env.RT_STDIO_TEST_SECRET;
    }
  });

  it("fails pending calls with ConnectionClosedError and reports the exit through onerror when the server dies", async () => {
    const transport = provisionerTransport({ stderr: "ignore" });
    const errors: Error[] = [];
    const session = await ClientSession.connect(transport);
    session.connection.onError = (error) => errors.push(error);
    let closed = 0;
    session.connection.onClose = () => closed++;
    const pending = session.callTool("slow");
    const crash = session.callTool("crash");
    await expect(pending).rejects.toBeInstanceOf(ConnectionClosedError);
    // The pending call's error names the exit itself, not just "Connection closed".
    await expect(crash).rejects.toThrow(
      new ConnectionClosedError("Connection closed: The MCP server process exited unexpectedly (code 3)"),
    );
    expect(await crash.catch((error: Error) => error.cause)).toBeInstanceOf(StdioServerExitError);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(StdioServerExitError);
    expect(errors[0]).toMatchObject({ exitCode: 3, signal: null });
    expect(transport.exitStatus).toEqual({ code: 3, signal: null });
    await expect(session.callTool("sleep", { ms: 1 })).rejects.toBeInstanceOf(ConnectionClosedError);
    await expect(transport.send({ jsonrpc: "2.0", method: "x" })).rejects.toBeInstanceOf(
      ConnectionClosedError,
    );
    await session.close();
    expect(closed).toBe(1);
  });

  it("rejects a send the server's stdin never took: it exited without reading (EPIPE)", async () => {
    const transport = trackTransport(
      new StdioClientTransport({
        command: process.execPath,
        args: ["-e", "setTimeout(() => process.exit(0), 300)"],
        stderr: "ignore",
      }),
    );
    transport.onerror = () => {};
    await transport.start();
    // Far more than a pipe holds: the write waits for a drain that never comes.
    const big = { jsonrpc: "2.0", method: "notifications/x", params: { pad: "x".repeat(4 << 20) } } as const;
    const error = await transport.send(big).then(
      () => "sent",
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(ConnectionClosedError);
    // The exit that broke the pipe is named rather than the EPIPE it caused.
    expect((error as Error).message).toBe(
      "Connection closed: The MCP server process exited unexpectedly (code 0)",
    );
    await transport.close();
  });

  it("refuses sends once 32 MiB wait for a server that does not read its stdin, instead of queueing without bound", async () => {
    const transport = trackTransport(
      new StdioClientTransport({
        command: process.execPath,
        args: ["-e", "setInterval(() => {}, 60_000)"], // never reads stdin
        stderr: "ignore",
        closeTimeoutMs: 300,
      }),
    );
    transport.onerror = () => {};
    await transport.start();
    const mib = { jsonrpc: "2.0", method: "notifications/x", params: { pad: "x".repeat(1 << 20) } } as const;
    const outcomes: string[] = [];
    for (let i = 0; i < 40; i++) {
      transport.send(mib).then(
        () => outcomes.push("sent"),
        (error: Error) => outcomes.push(`${error.name}: ${error.message}`),
      );
    }
    await until(() => outcomes.length > 0, "the sends past the bound to be refused");
    // Each message is 1 MiB plus its JSON: the 33rd finds more than 32 MiB waiting.
    expect(outcomes).toEqual(
      Array(8).fill(
        "RoundtripError: The MCP server is not reading its stdin: over 33554432 bytes already wait for it",
      ),
    );
    await transport.close();
  });

  it("rejects a send the pipe refused because the server is exiting with that exit, not EPIPE", async () => {
    const transport = trackTransport(
      new StdioClientTransport({
        command: process.execPath,
        // Closes its stdin first, so the write fails before the exit is known.
        args: [
          "-e",
          "require('node:fs').closeSync(0); console.error('closed'); setTimeout(() => process.exit(7), 100)",
        ],
        stderr: "pipe",
      }),
    );
    const stderr = collect(transport.stderr);
    transport.onerror = () => {};
    await transport.start();
    await until(() => stderr.text() === "closed\n", "the server to close its stdin");
    const error = await transport.send({ jsonrpc: "2.0", method: "notifications/x" }).then(
      () => "sent",
      (failure: unknown) => failure,
    );
    expect(error).toEqual(
      new ConnectionClosedError("Connection closed: The MCP server process exited unexpectedly (code 7)"),
    );
    expect((error as Error).cause).toBeInstanceOf(StdioServerExitError);
    await transport.close();
  });

  it("rejects a send with EPIPE, after a bounded wait, when the server closed its stdin but keeps running", async () => {
    const transport = trackTransport(
      new StdioClientTransport({
        command: process.execPath,
        args: [
          "-e",
          "require('node:fs').closeSync(0); console.error('closed'); setInterval(() => {}, 60_000)",
        ],
        stderr: "pipe",
        closeTimeoutMs: 200,
      }),
    );
    const stderr = collect(transport.stderr);
    transport.onerror = () => {};
    await transport.start();
    await until(() => stderr.text() === "closed\n", "the server to close its stdin");
    const startedAt = Date.now();
    await expect(transport.send({ jsonrpc: "2.0", method: "notifications/x" })).rejects.toThrow(
      new ConnectionClosedError("The stdio server is gone (write EPIPE)"),
    );
    expect(Date.now() - startedAt).toBeLessThan(1_500);
    await transport.close();
  });

  it("closes a well-behaved server by closing its stdin: it exits on EOF, onclose fires once", async () => {
    const transport = provisionerTransport({ stderr: "pipe" });
    const stderr = collect(transport.stderr);
    const errors: Error[] = [];
    await transport.start();
    let closes = 0;
    transport.onclose = () => closes++;
    transport.onerror = (error) => errors.push(error);
    await transport.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: ENVELOPE } });
    // Timed from a running server: its start (tsx, about 1 s on a loaded machine) is not close()'s.
    await until(() => stderr.text().includes("ready"), "the server to start");
    const startedAt = Date.now();
    await transport.close();
    expect(Date.now() - startedAt).toBeLessThan(1_500);
    expect(transport.exitStatus).toEqual({ code: 0, signal: null });
    expect(stderr.text()).toContain("closed");
    await transport.close();
    expect(closes).toBe(1);
    expect(errors).toEqual([]);
  });

  it("escalates to SIGTERM then SIGKILL for a server that ignores both, within the bounds", async () => {
    const transport = fixtureServer(STUBBORN, "pipe");
    const stderr = collect(transport.stderr);
    await transport.start();
    await until(() => stderr.text().includes("ready"), "the stubborn server to trap SIGTERM");
    let closes = 0;
    transport.onclose = () => closes++;
    const startedAt = Date.now();
    await transport.close();
    const elapsed = Date.now() - startedAt;
    expect(elapsed).toBeGreaterThanOrEqual(550);
    expect(elapsed).toBeLessThan(2_000);
    expect(stderr.text()).toContain("ignoring EOF");
    expect(stderr.text()).toContain("ignoring SIGTERM");
    expect(transport.exitStatus).toEqual({ code: null, signal: "SIGKILL" });
    expect(closes).toBe(1);
  });

  it("treats a stdout closed by a running server as the connection lost, and shuts the server down", async () => {
    const transport = fixtureServer(STDOUT_CLOSING, "pipe");
    const stderr = collect(transport.stderr);
    const errors: Error[] = [];
    let closes = 0;
    transport.onclose = () => closes++;
    transport.onerror = (error) => errors.push(error);
    await transport.start();
    await transport.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: ENVELOPE } });
    await until(() => closes === 1, "onclose after the server closed its stdout");
    expect(transport.exitStatus).toBeUndefined();
    expect(errors).toEqual([
      new ConnectionClosedError("The MCP server closed its stdout while still running"),
    ]);
    expect(errors[0]).toBeInstanceOf(ConnectionClosedError);
    await expect(transport.send({ jsonrpc: "2.0", id: 2, method: "tools/list" })).rejects.toThrow(
      new ConnectionClosedError("The stdio server is not running"),
    );
    // The server ignores stdin EOF, so only the escalation's SIGTERM ends it.
    await until(() => transport.exitStatus !== undefined, "the server to be shut down");
    expect(transport.exitStatus).toEqual({ code: null, signal: "SIGTERM" });
    expect(stderr.text()).toBe("stdout closed\nignoring EOF\n");
    await transport.close();
    expect(closes).toBe(1);
    expect(errors).toHaveLength(1);
  });

  it("fails a pending call at once with ConnectionClosedError when the server closes its stdout", async () => {
    const transport = fixtureServer(STDOUT_CLOSING, "ignore");
    const session = await ClientSession.connect(transport);
    const startedAt = Date.now();
    const error = await session.callTool("slow").then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toEqual(
      new ConnectionClosedError("Connection closed: The MCP server closed its stdout while still running"),
    );
    expect(error).toBeInstanceOf(ConnectionClosedError);
    // Far below the request timeout (60 s): the lost stdout ends it, not the timeout.
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    await session.close();
  });

  it("lets go of the server's pipes on close() even when a grandchild still holds them", async () => {
    const openPipes = () => process.getActiveResourcesInfo().filter((name) => name === "PipeWrap").length;
    const pipesBefore = openPipes();
    const transport = fixtureServer(GRANDCHILD, "pipe");
    const stderr = collect(transport.stderr);
    let stderrEnded = false;
    transport.stderr?.on("end", () => {
      stderrEnded = true;
    });
    await transport.start();
    await until(() => /GRANDCHILD \d+\n/.test(stderr.text()), "the grandchild's pid");
    track(Number(/GRANDCHILD (\d+)/.exec(stderr.text())?.[1]));
    let closes = 0;
    transport.onclose = () => closes++;
    await transport.close();
    expect(transport.exitStatus).toEqual({ code: 0, signal: null });
    expect(closes).toBe(1);
    // At most: a previous test's pipes may still have been closing when the count was taken.
    await until(() => openPipes() <= pipesBefore, "the server's pipes to be released");
    await until(() => stderrEnded, "transport.stderr to end");
  });

  it("rejects start() when the command cannot be spawned", async () => {
    const transport = new StdioClientTransport({ command: "/nonexistent/roundtrip-server", cwd: REPO_ROOT });
    await expect(transport.start()).rejects.toMatchObject({
      code: "ENOENT",
      message: "spawn /nonexistent/roundtrip-server ENOENT",
    });
    await expect(transport.start()).rejects.toThrow("already started");
  });

  it("never shows the arguments in a spawn failure: they may carry a token", async () => {
    for (const cwd of [REPO_ROOT, "/nonexistent/roundtrip-cwd"]) {
      const transport = new StdioClientTransport({
        command: "/nonexistent/roundtrip-server",
        args: ["--token=s3cr3t-arg"],
        cwd,
      });
      const error = (await transport.start().catch((e: unknown) => e)) as NodeJS.ErrnoException;
      expect(error.code).toBe("ENOENT");
      expect(inspect(error, { depth: 5 })).not.toContain("s3cr3t-arg");
      expect(JSON.stringify(error)).not.toContain("s3cr3t-arg");
    }
  });

  it("names the working directory, not the command, when cwd does not exist; never the env", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      cwd: "/nonexistent/roundtrip-cwd",
      env: { API_TOKEN: "s3cr3t-value" },
    });
    const error = (await transport.start().catch((e: unknown) => e)) as NodeJS.ErrnoException;
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toBe(
      "The MCP server's working directory does not exist: /nonexistent/roundtrip-cwd",
    );
    expect(error.code).toBe("ENOENT");
    expect((error.cause as NodeJS.ErrnoException).code).toBe("ENOENT");
    expect(inspect(error, { depth: 5 })).not.toContain("s3cr3t-value");
    expect(transport.exitStatus).toBeUndefined();
  });

  it("rejects start() (never throws) when cwd is a file, naming it", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      cwd: `${REPO_ROOT}/package.json`,
    });
    const started = transport.start();
    await expect(started).rejects.toMatchObject({
      code: "ENOTDIR",
      message: `The MCP server's working directory is not a directory: ${REPO_ROOT}/package.json`,
    });
    await expect(transport.start()).rejects.toThrow("already started");
    await transport.close();
  });

  it("refuses an environment value with a NUL byte without quoting it", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      cwd: REPO_ROOT,
      env: { API_TOKEN: "s3cr3t\0value" },
    });
    const error = (await transport.start().catch((e: unknown) => e)) as NodeJS.ErrnoException;
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({
      code: "ERR_INVALID_ARG_VALUE",
      message:
        "Cannot spawn the MCP server: the command, an argument, the working directory or an environment " +
        "value holds a NUL byte",
    });
    expect(inspect(error, { depth: 5 })).not.toContain("s3cr3t");
  });
});
