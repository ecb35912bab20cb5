import type { ChildProcess } from "node:child_process";
import { PassThrough, type Readable } from "node:stream";
import { ConnectionClosedError, RoundtripError } from "../../shared/errors.js";
import type { Transport, TransportNetwork } from "../../shared/transport.js";
import type { JSONRPCMessage } from "../../types/index.js";
import { droppedRequestAnswer, droppedResponse } from "./dropped.js";
import { defaultStdioEnv } from "./env.js";
import { StdioServerExitError } from "./exit-error.js";
import { LineSplitter, LineWriter, messageOfLine, StreamClosedError } from "./lines.js";
import { lineBoundOf, waitOf } from "./options.js";
import type { StdioServerParameters } from "./parameters.js";
import { endGroupLeftovers, groupGoneWithin, signalServer, within } from "./shutdown.js";
import { serverSpawnOptions, spawnerFor, spawnFailure, spawnRefused } from "./spawn.js";

export { StdioServerExitError } from "./exit-error.js";
export type { StdioServerParameters } from "./parameters.js";

/**
 * Default wait at each step of the shutdown escalation (2 s).
 *
 * @example
 * new StdioClientTransport({ command: "srv", closeTimeoutMs: DEFAULT_CLOSE_TIMEOUT_MS * 2 });
 */
export const DEFAULT_CLOSE_TIMEOUT_MS = 2_000;

/**
 * Default bound on one line from the server (32 MiB: results may carry large resources, and the
 * client chose to run this server, so the bound only stops a runaway).
 *
 * @example
 * new StdioClientTransport({ command: "srv", maxLineBytes: DEFAULT_CLIENT_MAX_LINE_BYTES * 4 });
 */
export const DEFAULT_CLIENT_MAX_LINE_BYTES = 32 * 1024 * 1024;

/**
 * Bound on the output waiting for a server that does not read its stdin (32 MiB): past it, sends
 * are refused rather than queued, so a stuck server cannot make the host's memory grow forever.
 */
const MAX_QUEUED_BYTES = 32 * 1024 * 1024;

/** How long to wait for the stdio pipes to close after the process exited (a grandchild may hold them). */
const PIPE_CLOSE_GRACE_MS = 1_000;

/**
 * How long a closed stdout waits for the process's exit before counting as a lost connection: an
 * exiting server's stdout closes a moment before its exit is reported, and that exit is the better
 * report.
 */
const EXIT_AFTER_STDOUT_GRACE_MS = 500;

type State = "new" | "starting" | "open" | "closing" | "closed";

/**
 * Spawns an MCP server and talks to it over its stdin/stdout, one JSON-RPC message per line.
 * It has no `cancel`: the connection's `notifications/cancelled` is the stdio cancellation.
 * `close()` follows the spec's shutdown: close stdin, wait, SIGTERM, wait, SIGKILL. Off Windows the
 * server runs in a process group of its own, which the signals reach whole, as in the Python SDK.
 * The terminal's Ctrl-C (SIGINT) then no longer reaches the server: it ends at `close()`, or at the
 * stdin EOF the host's exit causes.
 *
 * @example
 * const session = await ClientSession.connect(
 *   new StdioClientTransport({ command: "node", args: ["server.js"], env: { LOG_LEVEL: "debug" } }),
 * );
 * const tools = await session.listTools();
 * await session.close();
 */
export class StdioClientTransport implements Transport {
  readonly network: TransportNetwork = { transport: "pipe" };
  readonly #params: StdioServerParameters;
  readonly #maxLineBytes: number;
  readonly #closeTimeoutMs: number;
  readonly #stderr: PassThrough | undefined;
  #child: ChildProcess | undefined;
  /** Whether the server leads a process group of its own (everywhere but Windows). */
  #grouped = false;
  #writer: LineWriter | undefined;
  #state: State = "new";
  #exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  #graceTimer: ReturnType<typeof setTimeout> | undefined;
  #stdoutLostTimer: ReturnType<typeof setTimeout> | undefined;
  #closeReported = false;
  #unexpectedExit: StdioServerExitError | undefined;
  readonly #exited: Promise<void>;
  #markExited: () => void = () => {};
  readonly #finalized: Promise<void>;
  #markFinalized: () => void = () => {};
  /** Ending what was left of the server's group after it exited on its own (see #pipesHeld). */
  #leftovers: Promise<void> = Promise.resolve();
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: (reason?: Error) => void;
  onerror?: (error: Error) => void;

  /** Throws a RangeError for a bound that is not one (NaN, negative; see options.ts). */
  constructor(params: StdioServerParameters) {
    this.#params = params;
    this.#maxLineBytes = lineBoundOf("maxLineBytes", params.maxLineBytes, DEFAULT_CLIENT_MAX_LINE_BYTES);
    this.#closeTimeoutMs = waitOf("closeTimeoutMs", params.closeTimeoutMs, DEFAULT_CLOSE_TIMEOUT_MS);
    // Created up front so listeners can be attached before start().
    this.#stderr = params.stderr === "pipe" ? new PassThrough() : undefined;
    this.#exited = new Promise((resolve) => {
      this.#markExited = resolve;
    });
    this.#finalized = new Promise((resolve) => {
      this.#markFinalized = resolve;
    });
  }

  /** The server's stderr when `stderr: "pipe"`, else `null`. */
  get stderr(): Readable | null {
    return this.#stderr ?? null;
  }

  /** The server's process id once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** How the server process ended (`undefined` while it runs): an exit code, or the signal that killed it. */
  get exitStatus(): { code: number | null; signal: NodeJS.Signals | null } | undefined {
    return this.#exit;
  }

  /** Spawns the server; resolves once the process is running, rejects if it cannot be spawned. */
  start(): Promise<void> {
    if (this.#state !== "new") return Promise.reject(new Error("StdioClientTransport already started"));
    this.#state = "starting";
    const { command, args = [], cwd } = this.#params;
    const env: Record<string, string> = { ...defaultStdioEnv() };
    for (const [name, value] of Object.entries(this.#params.env ?? {})) {
      if (value === undefined) delete env[name];
      else env[name] = value;
    }
    const options = serverSpawnOptions(process.platform, {
      cwd,
      env,
      stderr: this.#params.stderr ?? "inherit",
    });
    this.#grouped = options.detached === true;
    let child: ChildProcess;
    try {
      child = spawnerFor(process.platform)(command, [...args], options);
    } catch (error) {
      // Some refusals are thrown at once rather than emitted: the transport ends the same way.
      this.#state = "closed";
      this.#markExited();
      this.#markFinalized();
      return Promise.reject(spawnRefused(error as NodeJS.ErrnoException, command, cwd));
    }
    this.#child = child;
    let spawned = false;
    return new Promise<void>((resolve, reject) => {
      child.once("spawn", () => {
        spawned = true;
        if (this.#state === "starting") this.#state = "open";
        this.#wire(child);
        resolve();
      });
      child.once("error", (error) => {
        if (spawned) return; // later errors go to onerror (see #wire)
        this.#state = "closed";
        this.#markExited();
        this.#markFinalized();
        reject(spawnFailure(error, cwd));
      });
    });
  }

  /**
   * Writes one message as one line; waits while the server's stdin is full, and is refused once
   * more than 32 MiB already wait for it.
   */
  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#state !== "open" || !this.#writer) {
      throw new ConnectionClosedError("The stdio server is not running");
    }
    const writer = this.#writer;
    if (writer.queuedBytes > MAX_QUEUED_BYTES) {
      throw new RoundtripError(
        `The MCP server is not reading its stdin: over ${MAX_QUEUED_BYTES} bytes already wait for it`,
      );
    }
    try {
      await writer.write(message);
    } catch (error) {
      // A broken pipe means the server is gone: report it as the closed connection it is (its
      // exit reaches onclose/onerror separately). Other errors (unserializable message) stay as-is.
      const gone = error instanceof StreamClosedError || writer.error !== undefined || this.#state !== "open";
      if (!gone) throw error;
      // The exit that broke the pipe says more than EPIPE does, and it is known a moment later.
      await within(this.#finalized, PIPE_CLOSE_GRACE_MS);
      const exit = this.#unexpectedExit;
      if (exit) throw new ConnectionClosedError(`Connection closed: ${exit.message}`, { cause: exit });
      throw new ConnectionClosedError(`The stdio server is gone (${(error as Error).message})`);
    }
  }

  /** Shuts the server down (stdin closed → SIGTERM → SIGKILL, `closeTimeoutMs` apart) and waits for it. */
  async close(): Promise<void> {
    const child = this.#child;
    if (this.#state === "new" || !child) {
      this.#state = "closed";
      this.#reportClosed();
      return;
    }
    if (this.#state === "closed" || this.#state === "closing") {
      await this.#finalized;
      await this.#leftovers;
      return;
    }
    this.#state = "closing";
    await this.#shutDown(child);
  }

  /**
   * The spec's shutdown, `closeTimeoutMs` apart, its signals sent to the server's process group;
   * ends in #finalize even if the pipes stay held.
   */
  async #shutDown(child: ChildProcess): Promise<void> {
    const timeout = this.#closeTimeoutMs;
    // This shutdown finalizes after its own waits: an earlier exit's grace must not cut them short.
    clearTimeout(this.#graceTimer);
    // After what send() queued, so a message sent before close() is not cut off. A server that
    // does not read it never sees EOF either way; the signals below still come on time.
    if (this.#writer) this.#writer.end();
    else child.stdin?.end();
    // The Python SDK stops once the process exited; here a member of its group still holding the
    // pipes a moment later is ended too, or it would outlive close() and keep running.
    const gone = (await this.#exitedWithin(timeout)) && (await this.#goneWithin(PIPE_CLOSE_GRACE_MS));
    if (!gone) {
      this.#signal(child, "SIGTERM");
      if (!(await this.#goneWithin(timeout))) {
        this.#signal(child, "SIGKILL");
        // SIGKILL cannot be ignored; the bound only keeps close() from hanging on a stuck kernel.
        await this.#goneWithin(timeout);
      }
    }
    await within(this.#finalized, PIPE_CLOSE_GRACE_MS);
    this.#finalize();
  }

  /**
   * True once the server is gone within `ms`: its process exited, and its pipes closed (whatever
   * held them ended) or nothing is left in its group. Closed pipes are enough: a zombie holds
   * none, and where PID 1 reaps no orphans one stays in the group for good.
   */
  async #goneWithin(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    if (!(await this.#exitedWithin(ms))) return false;
    const pid = this.#child?.pid;
    if (!this.#grouped || pid === undefined) return true;
    return groupGoneWithin(pid, deadline - Date.now(), this.#finalized);
  }

  /**
   * The server exited on its own, and a second later something still holds its pipes: the
   * connection closes now, and what is left of its group gets the SIGTERM → SIGKILL steps, as at
   * close(), which waits for them. Letting go of the pipes alone would leave a member that ignores
   * EOF (a wrapper's real server) running for good.
   */
  #pipesHeld(child: ChildProcess): void {
    this.#finalize();
    const pid = child.pid;
    if (!this.#grouped || pid === undefined) return;
    this.#leftovers = endGroupLeftovers(pid, (signal) => this.#signal(child, signal), this.#closeTimeoutMs);
  }

  #signal(child: ChildProcess, signal: NodeJS.Signals): void {
    const failure = signalServer(child, this.#grouped, signal);
    if (!failure) return;
    this.#report(
      new RoundtripError(`Could not send ${signal} to the MCP server's process group: ${failure.message}`, {
        cause: failure,
      }),
    );
  }

  #wire(child: ChildProcess): void {
    const { stdin, stdout } = child;
    if (stdin) this.#writer = new LineWriter(stdin);
    const lines = new LineSplitter(
      this.#maxLineBytes,
      (line) => this.#receive(line),
      (head) => {
        const bound = this.#maxLineBytes;
        this.#report(new Error(`Dropped a line from the server longer than maxLineBytes (${bound} bytes)`));
        // The request it answered (when its head says) fails now rather than at its timeout, and
        // one it asked is refused, so its asker stops waiting too.
        const answer = droppedResponse(head, bound);
        if (answer && this.#state !== "closed") this.#deliver(answer);
        const refusal = droppedRequestAnswer(head, bound);
        if (refusal) this.send(refusal).catch(() => {});
      },
    );
    stdout?.on("data", (chunk: Buffer) => lines.push(chunk));
    stdout?.on("end", () => lines.end());
    // 'close' also covers a stdout destroyed by an error, which never emits 'end'.
    stdout?.once("close", () => {
      if (this.#state !== "open" || this.#exit) return;
      this.#stdoutLostTimer = setTimeout(() => this.#loseStdout(child), EXIT_AFTER_STDOUT_GRACE_MS);
    });
    stdout?.on("error", (error) => this.#report(error));
    if (this.#stderr) child.stderr?.on("error", (error) => this.#report(error)).pipe(this.#stderr);
    child.on("error", (error) => this.#report(error));
    child.once("exit", (code, signal) => {
      this.#exit = { code, signal };
      this.#markExited();
      // 'close' (all pipes drained) normally follows at once; a grandchild holding stdout must
      // not keep the transport open forever. A shutdown in progress finalizes on its own.
      if (this.#state !== "closing") {
        this.#graceTimer = setTimeout(() => this.#pipesHeld(child), PIPE_CLOSE_GRACE_MS);
      }
    });
    // 'close' rather than 'exit': every line the server wrote before exiting is delivered first.
    child.once("close", () => this.#finalize());
  }

  #receive(line: string): void {
    if (this.#state === "closed") return;
    const message = messageOfLine(line);
    if (message instanceof Error) this.#report(message);
    else this.#deliver(message);
  }

  /**
   * Hands a message to onmessage, which runs inside stdout's 'data' handler: a listener's throw
   * goes to onerror, rather than becoming the host's uncaught exception and losing the lines after
   * it in the same chunk.
   */
  #deliver(message: JSONRPCMessage): void {
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.#report(error);
    }
  }

  /**
   * Hands an error to onerror, from stream events, timers and background shutdowns: a throw from
   * it is ignored, as there is nowhere further to report it, and it would otherwise be the host's
   * uncaught exception (or unhandled rejection) and cut short the shutdown it interrupted.
   */
  #report(error: unknown): void {
    try {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    } catch {
      // onerror's own failure: see above.
    }
  }

  /**
   * The server closed its stdout but keeps running: no response can arrive any more, so the
   * connection is lost now, and the server is shut down as close() would, so it does not linger.
   */
  #loseStdout(child: ChildProcess): void {
    if (this.#state !== "open" || this.#exit) return;
    this.#state = "closing";
    const lost = new ConnectionClosedError("The MCP server closed its stdout while still running");
    this.#report(lost);
    this.#reportClosed(lost);
    void this.#shutDown(child);
  }

  #finalize(): void {
    if (this.#state === "closed") return;
    const unexpected = this.#state !== "closing";
    this.#state = "closed";
    if (this.#graceTimer) clearTimeout(this.#graceTimer);
    if (this.#stdoutLostTimer) clearTimeout(this.#stdoutLostTimer);
    // A grandchild may still hold the pipes; their handles would keep the host's event loop alive.
    const child = this.#child;
    child?.stdin?.destroy();
    child?.stdout?.destroy();
    child?.stderr?.destroy();
    this.#stderr?.end();
    this.#markExited();
    this.#markFinalized();
    // An unexpected exit is also the close's reason, so pending calls fail naming it.
    const exited = unexpected
      ? new StdioServerExitError(this.#exit?.code ?? null, this.#exit?.signal ?? null)
      : undefined;
    this.#unexpectedExit = exited;
    if (exited) this.#report(exited);
    this.#reportClosed(exited);
  }

  #reportClosed(reason?: Error): void {
    if (this.#closeReported) return;
    this.#closeReported = true;
    // Called from the same places as onerror: a throw goes there, as onmessage's does.
    try {
      this.onclose?.(reason);
    } catch (error) {
      this.#report(error);
    }
  }

  #exitedWithin(ms: number): Promise<boolean> {
    return this.#exit ? Promise.resolve(true) : within(this.#exited, ms);
  }
}
