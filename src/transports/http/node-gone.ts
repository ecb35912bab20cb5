/**
 * When a `node:http` client has left before its response finished. A response's own "close" is not
 * enough: Node queues the responses of requests pipelined behind an unfinished one, and when the
 * connection drops it never emits "close" on those queued responses. The socket's "close" covers them.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";

const NOTHING = () => {};

/** Per connection, what to run when it closes: one socket listener however many requests it carries. */
const watchers = new WeakMap<Socket, Set<() => void>>();

function watch(socket: Socket, fire: () => void): void {
  let pending = watchers.get(socket);
  if (pending === undefined) {
    const set = new Set<() => void>();
    pending = set;
    watchers.set(socket, set);
    socket.once("close", () => {
      watchers.delete(socket);
      for (const run of set) run();
    });
  }
  pending.add(fire);
}

/**
 * Calls `listener` once when the response is over: it closed (finished or not), or its connection
 * did; at once if either already has. Returns the unsubscribe function.
 *
 * @example
 * onResponseOver(req, res, () => openResponses--);
 */
export function onResponseOver(req: IncomingMessage, res: ServerResponse, listener: () => void): () => void {
  const socket = req.socket as Socket | null;
  if (res.destroyed || socket?.destroyed === true) {
    listener();
    return NOTHING;
  }
  let active = true;
  const stop = () => {
    active = false;
    res.off("close", fire);
    watchers.get(socket as Socket)?.delete(fire);
  };
  function fire() {
    if (!active) return;
    stop();
    listener();
  }
  res.once("close", fire);
  if (socket) watch(socket, fire);
  return stop;
}

/**
 * Calls `listener` once if the client goes away (the response closes, or its connection does)
 * before the response has finished; at once if it already has. Returns the unsubscribe function;
 * a response that finishes unsubscribes by itself.
 *
 * @example
 * const controller = new AbortController();
 * const stop = onConnectionGone(req, res, () => controller.abort());
 */
export function onConnectionGone(
  req: IncomingMessage,
  res: ServerResponse,
  listener: () => void,
): () => void {
  return onResponseOver(req, res, () => {
    if (!res.writableFinished) listener();
  });
}
