/**
 * A 2025 server calls the client back: `ping`, and `elicitation/create`, `sampling/createMessage`
 * and `roots/list` — answered by the very callbacks that answer a 2026 `InputRequiredResult`.
 */

import {
  describeFailure,
  describeToolLoopProblem,
  ErrorCode,
  McpError,
  NotificationMethod,
  validInputRequest,
} from "../types/core.js";
import type {
  CreateMessageRequest,
  Implementation,
  InputRequest,
  RequestId,
  ResultObject,
} from "../types/index.js";
import { type ClientCallbacks, dispatchInputRequest, embeddedMeta } from "./callbacks.js";
import type { ClientSession } from "./session.js";

const BACK_CHANNEL_METHODS: ReadonlySet<string> = new Set([
  "elicitation/create",
  "sampling/createMessage",
  "roots/list",
]);

/** Most server requests waiting on the callbacks at once (as many as a legacy SSE stream may send us). */
const MAX_IN_FLIGHT = 100;

/**
 * Answers the server → client requests of a legacy session on `session`'s connection. Each
 * callback gets `requestId` = the request's JSON-RPC id and a signal that fires when the server
 * cancels it (`notifications/cancelled`) or the connection closes.
 *
 * @example
 * answerServerRequests(session, { elicitation }, () => serverInfo);
 */
export function answerServerRequests(
  session: ClientSession,
  callbacks: ClientCallbacks,
  serverInfo: () => Implementation | undefined,
): void {
  const connection = session.connection;
  const running = new Map<RequestId, AbortController>();
  connection.onRequest = async (method, params, id) => {
    if (method === "ping") return {};
    if (!BACK_CHANNEL_METHODS.has(method)) {
      throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    }
    const request = method === "roots/list" && params === undefined ? { method } : { method, params };
    // A broken tool loop is refused as the 2026 path refuses it: the sampling callback never sees it.
    const problem = !validInputRequest(request)
      ? describeFailure(validInputRequest, request)
      : method === "sampling/createMessage"
        ? describeToolLoopProblem((request as CreateMessageRequest).params.messages)
        : undefined;
    if (problem) throw new McpError(ErrorCode.InvalidParams, `Invalid params for ${method}: ${problem}`);
    // A dialog or a model call each: a server flooding them would pile up callbacks without bound.
    if (running.size >= MAX_IN_FLIGHT) {
      throw new McpError(
        ErrorCode.InternalError,
        `Too many requests: ${MAX_IN_FLIGHT} server requests are waiting on the client`,
      );
    }
    const controller = new AbortController();
    running.set(id, controller);
    try {
      const ctx = {
        requestId: id,
        signal: controller.signal,
        meta: embeddedMeta(request as InputRequest),
        serverInfo: serverInfo(),
      };
      return (await dispatchInputRequest(callbacks, ctx, request as InputRequest)) as ResultObject;
    } finally {
      if (running.get(id) === controller) running.delete(id);
    }
  };
  const previousNotification = connection.onNotification;
  connection.onNotification = (notification) => {
    if (notification.method === NotificationMethod.Cancelled) {
      const requestId = (notification.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof requestId === "string" || typeof requestId === "number") {
        running.get(requestId)?.abort("cancelled by the server");
      }
    }
    previousNotification?.(notification);
  };
  const previousClose = connection.onClose;
  connection.onClose = () => {
    for (const controller of running.values()) controller.abort("connection closed");
    running.clear();
    previousClose?.();
  };
}
