import { messageOf } from "../shared/errors.js";
import { coversUri, taskIdsOf } from "../shared/subscription-filter.js";
import {
  declaresTasks,
  ErrorCode,
  McpError,
  MetaKey,
  NotificationMethod,
  TASK_STATUS_NOTIFICATION,
  TASKS_REQUIRED_CAPABILITIES,
} from "../types/core.js";
import type {
  DetailedTask,
  JSONRPCNotification,
  RequestId,
  ResultObject,
  ServerCapabilities,
  SubscriptionFilter,
} from "../types/index.js";
import type { ServerRequestContext } from "./context.js";
import type { PrincipalBinder } from "./state/principal.js";

/**
 * Which listen streams may hear of a list change: those whose listen request's caller may see the
 * changed entry (lists may vary with the caller). Absent: every stream.
 */
export type Audience = (ctx: ServerRequestContext) => boolean;

/**
 * Where a list change carries its `Audience`: a symbol, so that neither JSON nor a structured clone
 * takes it onto an events bus (nor can a bus forge one).
 */
export const AUDIENCE: unique symbol = Symbol("audience");

/** A list changed: the streams that asked for that list hear of it, as its `Audience` allows. */
interface ListChange {
  readonly kind: "toolsListChanged" | "promptsListChanged" | "resourcesListChanged";
  readonly [AUDIENCE]?: Audience | undefined;
}

/** A change a listen stream may carry. */
export type ServerEvent =
  | ListChange
  | { readonly kind: "resourceUpdated"; readonly uri: string }
  /** A task changed: the streams that follow its id hear of it (only its creator's can follow it). */
  | { readonly kind: "task"; readonly taskId: string; readonly snapshot: () => DetailedTask };

/** Which filter entries this server can honour. */
export interface ListenSupport {
  readonly toolsListChanged: boolean;
  readonly promptsListChanged: boolean;
  readonly resourcesListChanged: boolean;
  readonly resourceSubscriptions: boolean;
  /**
   * With the Tasks extension: whether the caller of the listen request `ctx` may follow `taskId`
   * (undefined: no tasks here).
   */
  readonly taskVisible?: ((taskId: string, ctx: ServerRequestContext) => boolean) | undefined;
}

/**
 * What a server's listen streams can honour: the list changes and resource subscriptions its
 * `capabilities` advertise, and tasks when `taskVisible` says who may follow one.
 */
export function listenSupport(
  capabilities: ServerCapabilities,
  taskVisible: ListenSupport["taskVisible"],
): ListenSupport {
  return {
    toolsListChanged: capabilities.tools?.listChanged === true,
    promptsListChanged: capabilities.prompts?.listChanged === true,
    resourcesListChanged: capabilities.resources?.listChanged === true,
    resourceSubscriptions: capabilities.resources?.subscribe === true,
    taskVisible,
  };
}

interface Subscription {
  readonly filter: SubscriptionFilter;
  readonly deliver: (event: ServerEvent) => void;
  readonly close: () => void;
}

const EVENT_METHOD = {
  toolsListChanged: NotificationMethod.ToolsListChanged,
  promptsListChanged: NotificationMethod.PromptsListChanged,
  resourcesListChanged: NotificationMethod.ResourcesListChanged,
  resourceUpdated: NotificationMethod.ResourcesUpdated,
} as const;

function wants(filter: SubscriptionFilter, event: ServerEvent): boolean {
  if (event.kind === "resourceUpdated")
    return (filter.resourceSubscriptions ?? []).some((s) => coversUri(s, event.uri));
  if (event.kind === "task") return taskIdsOf(filter).includes(event.taskId);
  return filter[event.kind] === true;
}

/**
 * The live `subscriptions/listen` streams of one server: the ack first, then only the
 * notifications each filter asked for, each tagged with its subscription id; a graceful result
 * when the server closes them.
 */
export class SubscriptionHub {
  readonly #subscriptions = new Set<Subscription>();
  readonly #limit: number;
  readonly #perPrincipal: number;
  /** Open streams per authenticated principal, so that one caller cannot take every slot. */
  readonly #held = new Map<string, number>();

  /** Who a caller is: the server's `principal` option. */
  readonly #principal: PrincipalBinder;

  constructor(principal: PrincipalBinder, limit = 100, perPrincipal = 10) {
    // NaN would lift the bound and 0 would refuse every stream: only a positive count means one.
    for (const [name, value] of [
      ["maxSubscriptions", limit],
      ["maxSubscriptionsPerPrincipal", perPrincipal],
    ] as const) {
      if (!(Number.isInteger(value) && value > 0)) {
        throw new RangeError(`${name} must be a positive integer, got ${value}`);
      }
    }
    this.#limit = limit;
    this.#perPrincipal = perPrincipal;
    this.#principal = principal;
  }

  get size(): number {
    return this.#subscriptions.size;
  }

  /** Delivers an event to every stream whose filter asked for it. */
  publish(event: ServerEvent): void {
    for (const subscription of this.#subscriptions) {
      if (wants(subscription.filter, event)) subscription.deliver(event);
    }
  }

  /** Ends every stream gracefully (each answers its listen request with a complete result). */
  closeAll(): void {
    for (const subscription of [...this.#subscriptions]) subscription.close();
  }

  #release(principal: string | undefined): void {
    if (principal === undefined) return;
    const left = (this.#held.get(principal) ?? 1) - 1;
    if (left > 0) this.#held.set(principal, left);
    else this.#held.delete(principal);
  }

  /** Serves one `subscriptions/listen` request until the client or the server ends it. */
  async serve(ctx: ServerRequestContext, support: ListenSupport): Promise<ResultObject> {
    if (this.#subscriptions.size >= this.#limit) {
      throw new McpError(ErrorCode.InternalError, "Subscription limit reached");
    }
    const principal = this.#principal(ctx);
    // Anonymous callers cannot be told apart, so only the server-wide bound applies to them.
    if (principal !== undefined && (this.#held.get(principal) ?? 0) >= this.#perPrincipal) {
      throw new McpError(ErrorCode.InternalError, "Subscription limit reached for this caller");
    }
    const requested = (ctx.params.notifications ?? {}) as SubscriptionFilter;
    // The same bounds as `resources/subscribe`: every update walks every stream's URIs.
    bounded(requested, "resourceSubscriptions", "URIs");
    // Task ids are the extension's (the schema leaves them unchecked), judged only where it is served.
    if (support.taskVisible) bounded(requested, "taskIds", "task ids");
    if (support.taskVisible && taskIdsOf(requested).length > 0 && !declaresTasks(ctx.clientCapabilities)) {
      throw new McpError(
        ErrorCode.MissingRequiredClientCapability,
        "Task status notifications need the io.modelcontextprotocol/tasks extension declared on the request",
        { requiredCapabilities: TASKS_REQUIRED_CAPABILITIES },
      );
    }
    const honoured = honour(requested, support, ctx);
    const tag = (id: RequestId) => ({ [MetaKey.SubscriptionId]: id });
    const acknowledgement = {
      jsonrpc: "2.0" as const,
      method: NotificationMethod.SubscriptionsAcknowledged,
      params: { _meta: tag(ctx.requestId), notifications: honoured },
    };
    const closing: ResultObject = { resultType: "complete", _meta: tag(ctx.requestId) };
    if (Object.keys(honoured).length === 0 || ctx.signal.aborted) {
      await ctx.notify(acknowledgement);
      return closing;
    }
    return new Promise<ResultObject>((resolve) => {
      /** Notifications the reader has not taken yet (a write resolves once it has room). */
      let backlog = 0;
      /** Events held back while the reader is behind: one per list, subscribed URI and task. */
      const held = new Map<string, ServerEvent>();
      const send = (event: ServerEvent) => {
        backlog++;
        const next = () => {
          backlog--;
          const [queued] = held;
          if (!queued) return;
          held.delete(queued[0]);
          send(queued[1]);
        };
        ctx.notify(notificationOf(event, tag(ctx.requestId))).then(next, next);
      };
      const subscription: Subscription = {
        filter: honoured,
        deliver: (event) => {
          // An entry hidden from this caller changed: its list did not, and it must not learn of it.
          if (AUDIENCE in event && !mayHear(event, ctx)) return;
          if (backlog < MAX_BACKLOG) return send(event);
          // A reader this far behind gets later events merged, so its stream's memory stays bounded:
          // an update under a subscribed URI is told as that URI's (the spec lets either be sent).
          if (event.kind === "resourceUpdated") {
            const uri = honoured.resourceSubscriptions?.find((s) => coversUri(s, event.uri)) ?? event.uri;
            held.set(`uri ${uri}`, { kind: event.kind, uri });
          } else held.set(event.kind === "task" ? `task ${event.taskId}` : event.kind, event);
        },
        close: () => {
          this.#subscriptions.delete(subscription);
          this.#release(principal);
          ctx.signal.removeEventListener("abort", subscription.close);
          resolve(closing);
        },
      };
      // Registered before the ack is sent (synchronously), so a change published as soon as the
      // client sees the ack is never missed, and nothing can be sent ahead of the ack.
      this.#subscriptions.add(subscription);
      if (principal !== undefined) this.#held.set(principal, (this.#held.get(principal) ?? 0) + 1);
      ctx.signal.addEventListener("abort", subscription.close, { once: true });
      void ctx.notify(acknowledgement);
    });
  }
}

/**
 * Whether a stream's caller may hear of a list change. The rule is the caller's code, run when the
 * announcement goes out: one that throws keeps this stream from hearing it (deny on error, as
 * `visible` does) and is logged, rather than escaping into the announcement's microtask, where it
 * would crash the process and cost every later stream and announcement of that run.
 */
function mayHear(event: ListChange, ctx: ServerRequestContext): boolean {
  try {
    return event[AUDIENCE]?.(ctx) !== false;
  } catch (error) {
    ctx.logger.warn(
      `${EVENT_METHOD[event.kind]}: visibleTo failed (not sent to this stream): ${messageOf(error)}`,
    );
    return false;
  }
}

/**
 * Resource URIs one listen stream (or one 2025 session's `resources/subscribe` set) may follow, and
 * their length: a client could otherwise grow the set, and the walk of every update over it, without end.
 */
export const MAX_SUBSCRIPTIONS = 1_000;
export const MAX_SUBSCRIBED_URI_LENGTH = 8_192;

/**
 * How many notifications a listen stream's reader may leave unread before later events are merged
 * (one per list, subscribed URI and task until it catches up).
 */
export const MAX_BACKLOG = 32;

/** Refuses (-32602) a filter list that is not at most `MAX_SUBSCRIPTIONS` non-empty, bounded strings. */
function bounded(filter: SubscriptionFilter, key: "resourceSubscriptions" | "taskIds", what: string): void {
  const list: unknown = filter[key] ?? [];
  if (
    !Array.isArray(list) ||
    list.length > MAX_SUBSCRIPTIONS ||
    list.some((item) => typeof item !== "string" || item === "" || item.length > MAX_SUBSCRIBED_URI_LENGTH)
  ) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Invalid params for subscriptions/listen: notifications.${key} holds at most ${MAX_SUBSCRIPTIONS} non-empty ${what} of at most ${MAX_SUBSCRIBED_URI_LENGTH} characters`,
    );
  }
}

function notificationOf(event: ServerEvent, meta: Record<string, RequestId>): JSONRPCNotification {
  if (event.kind === "task") {
    // The full task, as tasks/get would show it at this moment, its own _meta included; the
    // subscription tag wins over a key of the same name, since it routes the notification.
    const snapshot: DetailedTask & { _meta?: Record<string, unknown> } = event.snapshot();
    return {
      jsonrpc: "2.0",
      method: TASK_STATUS_NOTIFICATION,
      params: { ...snapshot, _meta: { ...snapshot._meta, ...meta } },
    };
  }
  const params: Record<string, unknown> = { _meta: meta };
  if (event.kind === "resourceUpdated") params.uri = event.uri;
  return { jsonrpc: "2.0", method: EVENT_METHOD[event.kind], params };
}

/**
 * The part of a filter this server honours (unsupported entries are left out, per the spec); task
 * ids only for tasks that exist and belong to the caller.
 */
function honour(
  requested: SubscriptionFilter,
  support: ListenSupport,
  ctx: ServerRequestContext,
): SubscriptionFilter {
  const honoured: SubscriptionFilter = {};
  if (requested.toolsListChanged && support.toolsListChanged) honoured.toolsListChanged = true;
  if (requested.promptsListChanged && support.promptsListChanged) honoured.promptsListChanged = true;
  if (requested.resourcesListChanged && support.resourcesListChanged) honoured.resourcesListChanged = true;
  if (requested.resourceSubscriptions?.length && support.resourceSubscriptions) {
    honoured.resourceSubscriptions = [...requested.resourceSubscriptions];
  }
  const visible = support.taskVisible;
  if (visible) {
    const taskIds = [...new Set(taskIdsOf(requested))].filter((id) => visible(id, ctx));
    if (taskIds.length > 0) honoured.taskIds = taskIds;
  }
  return honoured;
}
