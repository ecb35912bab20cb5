import type { Dispatcher } from "../shared/dispatch.js";
import type { Transport } from "../shared/transport.js";
import { MemoryTransport } from "../transports/memory.js";
import type { HttpTargetOptions } from "./options.js";

/**
 * A server process to spawn and talk to over stdio.
 *
 * @example
 * await Client.connect({ command: "node", args: ["server.js"] });
 */
export interface StdioTarget {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}

/**
 * What `Client.connect` accepts: an in-process server (anything with `dispatch`, e.g. `Server`),
 * any `Transport`, a Streamable HTTP URL, or a stdio command.
 *
 * @example
 * const target: ClientTarget = new MemoryTransport(server, { onWire: console.log });
 */
export type ClientTarget = Dispatcher | Transport | string | URL | StdioTarget;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** Turns any target into a transport (not yet started); `http` applies to a URL only. */
export async function openTransport(target: ClientTarget, http?: HttpTargetOptions): Promise<Transport> {
  if (typeof target === "string" || target instanceof URL) return resolveTarget(target, http);
  if (http !== undefined) {
    throw new TypeError("Client.connect's http options apply to a URL target; give a transport its own");
  }
  if (isObject(target)) {
    if (typeof target.dispatch === "function") return new MemoryTransport(target as Dispatcher);
    if (typeof target.send === "function" && typeof target.start === "function") return target as Transport;
    if (typeof target.command === "string") return resolveTarget(target as StdioTarget);
  }
  throw new TypeError(
    "Client.connect needs a server (an object with dispatch), a Transport, a URL, or { command, args? }",
  );
}

/**
 * The one place that knows the network transports: a URL becomes a Streamable HTTP client
 * transport, a command a spawned stdio server. Loaded lazily so that importing the client never
 * pulls `node:child_process` (or the HTTP client) into bundles that do not use them.
 */
export async function resolveTarget(
  target: string | URL | StdioTarget,
  http?: HttpTargetOptions,
): Promise<Transport> {
  if (typeof target === "string" || target instanceof URL) {
    const { StreamableHttpClientTransport } = await import("../transports/http/client.js");
    return new StreamableHttpClientTransport(target, http);
  }
  const { StdioClientTransport } = await import("../transports/stdio/client.js");
  return new StdioClientTransport(target);
}
