// Runs a private nginx in front of the fleet: a foreground child process whose prefix, pid, logs and
// temp paths all live in one temp folder, listening on a loopback port. No root-owned path is used.
import { type ChildProcess, spawn } from "node:child_process";
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";

export const NGINX_TEMPLATE = fileURLToPath(new URL("./nginx.conf.template", import.meta.url));

/** Where Debian, Homebrew and source builds put nginx; /usr/sbin is often not on a non-root PATH. */
const WELL_KNOWN = [
  "/usr/sbin/nginx",
  "/usr/local/sbin/nginx",
  "/usr/local/nginx/sbin/nginx",
  "/usr/local/bin/nginx",
  "/opt/homebrew/bin/nginx",
  "/usr/bin/nginx",
];

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The nginx binary: `$NGINX_BIN`, else the PATH, else the well-known locations (explicitly, since
 * /usr/sbin is usually not on a non-root PATH). `undefined` when there is none.
 */
export function findNginx(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.NGINX_BIN) return isExecutable(env.NGINX_BIN) ? env.NGINX_BIN : undefined;
  const onPath = (env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => dir.length > 0)
    .map((dir) => join(dir, "nginx"));
  return [...onPath, ...WELL_KNOWN].find(isExecutable);
}

/** A free loopback port (bound then released; nginx binds it right after). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Renders the template: `upstreams` are `host:port` of the instances, all on loopback; `taskPrefixes`
 * (same order, optional) the task-id tag of each, whose `tasks/*` requests are routed to it.
 */
export function renderNginxConf(options: {
  prefix: string;
  listenPort: number;
  upstreams: readonly string[];
  taskPrefixes?: readonly string[];
}): string {
  for (const upstream of options.upstreams) {
    if (!/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}:\d{1,5}$/.test(upstream)) {
      throw new Error(`upstream ${upstream} is not a loopback host:port`);
    }
  }
  const servers = options.upstreams
    .map((upstream) => `        server ${upstream} max_fails=1 fail_timeout=1s;`)
    .join("\n");
  const prefixes = options.taskPrefixes ?? [];
  for (const tag of prefixes) {
    if (!/^[A-Za-z0-9_-]{1,31}\.$/.test(tag))
      throw new Error(`task prefix ${tag} is not a plain tag ending in "."`);
  }
  const routes = prefixes
    .map(
      (tag, index) =>
        `        "~^tasks/(get|update|cancel) ${tag.replaceAll(".", "\\.")}" fleet_task_${index};`,
    )
    .join("\n");
  const taskUpstreams = prefixes
    .map(
      (_tag, index) =>
        `    upstream fleet_task_${index} {\n        server ${options.upstreams[index]};\n        keepalive 8;\n        keepalive_timeout 4s;\n    }`,
    )
    .join("\n");
  return readFileSync(NGINX_TEMPLATE, "utf8")
    .replaceAll("{{PREFIX}}", options.prefix)
    .replaceAll("{{LISTEN}}", `127.0.0.1:${options.listenPort}`)
    .replaceAll("{{SERVERS}}", servers)
    .replaceAll("{{TASK_ROUTES}}", routes)
    .replaceAll("{{TASK_UPSTREAMS}}", taskUpstreams);
}

/** One line of the access log (see `log_format fleet`). */
export interface AccessLogEntry {
  status: number;
  /** Every instance nginx tried for this request, in order (more than one: nginx moved on). */
  upstreams: string[];
  upstreamStatuses: string[];
  /** The request's `Mcp-Method` header ("" when it had none). */
  method: string;
  /** The request's `Mcp-Name` header ("" when it had none): the task id on `tasks/*`. */
  name: string;
}

export interface NginxHandle {
  readonly port: number;
  /** The MCP endpoint through nginx. */
  readonly url: string;
  readonly prefix: string;
  readonly process: ChildProcess;
  /** Parsed access log so far (nginx writes each line when the request ends). */
  accessLog(): AccessLogEntry[];
  /**
   * The access log once it has stopped growing for `quietMs` (bounded by `timeoutMs`): nginx writes
   * a line just after the response leaves, so a client can hold the answer before its line exists.
   */
  settledAccessLog(quietMs?: number, timeoutMs?: number): Promise<AccessLogEntry[]>;
  errorLog(): string;
  /** Graceful stop (SIGQUIT), SIGKILL after `graceMs`; then removes the prefix folder. */
  stop(graceMs?: number): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** True once `child` has exited, false if it is still running after `ms`. */
export function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** "$upstream_addr" and "$upstream_status" separate tries with ", " (and internal redirects with " : "). */
function tries(value: string | undefined): string[] {
  return (value ?? "")
    .split(/, | : /)
    .map((part) => part.trim())
    .filter((part) => part.length > 0 && part !== "-");
}

function parseAccessLog(text: string): AccessLogEntry[] {
  const entries: AccessLogEntry[] = [];
  for (const line of text.split("\n")) {
    const match = /^\S+ (\d{3}) "([^"]*)" "([^"]*)" "([^"]*)" "([^"]*)"/.exec(line);
    if (!match) continue;
    entries.push({
      status: Number(match[1]),
      upstreams: tries(match[2]),
      upstreamStatuses: tries(match[3]),
      method: match[4] === "-" ? "" : (match[4] ?? ""),
      name: match[5] === "-" ? "" : (match[5] ?? ""),
    });
  }
  return entries;
}

/**
 * Starts nginx as a non-daemon child: `nginx -p <prefix> -c <prefix>/nginx.conf -e <prefix>/error.log
 * -g "daemon off;"`, then waits (bounded) until it accepts connections.
 */
export async function startNginx(options: {
  upstreams: readonly string[];
  /** The task-id tag of each instance, in the order of `upstreams` (see `renderNginxConf`). */
  taskPrefixes?: readonly string[];
  bin?: string;
  startTimeoutMs?: number;
}): Promise<NginxHandle> {
  const bin = options.bin ?? findNginx();
  if (bin === undefined) throw new Error("nginx not found (set NGINX_BIN or install nginx)");
  let lastError = "";
  // A freshly probed port can be taken in between: a few bounded attempts.
  for (let attempt = 0; attempt < 3; attempt++) {
    const prefix = mkdtempSync(join(tmpdir(), "roundtrip-fleet-nginx-"));
    // Run as root, nginx's workers drop to `nobody`: they must be able to traverse the prefix.
    chmodSync(prefix, 0o755);
    mkdirSync(join(prefix, "temp"));
    const port = await freePort();
    const conf = join(prefix, "nginx.conf");
    writeFileSync(
      conf,
      renderNginxConf({
        prefix,
        listenPort: port,
        upstreams: options.upstreams,
        taskPrefixes: options.taskPrefixes,
      }),
    );
    const errorLogPath = join(prefix, "error.log");
    const child = spawn(bin, ["-p", prefix, "-c", conf, "-e", errorLogPath, "-g", "daemon off;"], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      if (stderr.length < 64 * 1024) stderr += chunk;
    });
    child.once("error", (error) => {
      stderr += `spawn failed: ${String(error)}\n`;
    });
    const handle: NginxHandle = {
      port,
      url: `http://127.0.0.1:${port}/mcp`,
      prefix,
      process: child,
      accessLog: () => {
        const path = join(prefix, "access.log");
        return existsSync(path) ? parseAccessLog(readFileSync(path, "utf8")) : [];
      },
      settledAccessLog: async (quietMs = 100, timeoutMs = 3_000) => {
        const deadline = performance.now() + timeoutMs;
        let entries = handle.accessLog();
        while (performance.now() < deadline) {
          await sleep(quietMs);
          const next = handle.accessLog();
          if (next.length === entries.length) return next;
          entries = next;
        }
        return entries;
      },
      errorLog: () => {
        const path = join(prefix, "error.log");
        return (existsSync(path) ? readFileSync(path, "utf8") : "") + stderr;
      },
      stop: async (graceMs = 3_000) => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill("SIGQUIT");
          if (!(await waitForExit(child, graceMs))) {
            child.kill("SIGKILL");
            await waitForExit(child, graceMs);
          }
        }
        rmSync(prefix, { recursive: true, force: true });
      },
    };
    const deadline = Date.now() + (options.startTimeoutMs ?? 10_000);
    while (Date.now() < deadline && child.exitCode === null && child.signalCode === null) {
      if (await canConnect(port)) return handle;
      await sleep(25);
    }
    lastError = handle.errorLog();
    await handle.stop(500);
    if (!/Address already in use/i.test(lastError)) break;
  }
  throw new Error(`nginx did not start:\n${lastError}`);
}
