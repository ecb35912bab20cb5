import type { z } from "zod";
import { CompleteRequestParamsSchema, CompleteResultSchema } from "./completion.js";
import { DiscoverResultSchema } from "./discover.js";
import { RequestParamsSchema } from "./meta.js";
import { SubscriptionsListenRequestParamsSchema, SubscriptionsListenResultSchema } from "./notifications.js";
import { GetPromptRequestParamsSchema, GetPromptResultSchema, ListPromptsResultSchema } from "./prompts.js";
import {
  ListResourcesResultSchema,
  ListResourceTemplatesResultSchema,
  ReadResourceRequestParamsSchema,
  ReadResourceResultSchema,
} from "./resources.js";
import {
  CallToolRequestParamsSchema,
  CallToolResultSchema,
  ListToolsResultSchema,
  PaginatedRequestParamsSchema,
} from "./tools.js";

/** Client → server request methods of the 2026-07-28 core. */
export const Method = {
  Discover: "server/discover",
  ToolsList: "tools/list",
  ToolsCall: "tools/call",
  PromptsList: "prompts/list",
  PromptsGet: "prompts/get",
  ResourcesList: "resources/list",
  ResourcesTemplatesList: "resources/templates/list",
  ResourcesRead: "resources/read",
  CompletionComplete: "completion/complete",
  SubscriptionsListen: "subscriptions/listen",
} as const;
export type MethodName = (typeof Method)[keyof typeof Method];

/** Notification methods of the 2026-07-28 core. */
export const NotificationMethod = {
  Cancelled: "notifications/cancelled",
  Progress: "notifications/progress",
  Message: "notifications/message",
  SubscriptionsAcknowledged: "notifications/subscriptions/acknowledged",
  ToolsListChanged: "notifications/tools/list_changed",
  PromptsListChanged: "notifications/prompts/list_changed",
  ResourcesListChanged: "notifications/resources/list_changed",
  ResourcesUpdated: "notifications/resources/updated",
} as const;

/** How one core method is shaped on the wire. */
export interface MethodSpec {
  readonly params: z.ZodType<Record<string, unknown>>;
  readonly result: z.ZodType<Record<string, unknown>>;
  /** May answer `input_required`. */
  readonly inputRequired: boolean;
  /** Carries `ttlMs`/`cacheScope` on complete results. */
  readonly cacheable: boolean;
  /** The param mirrored into the `Mcp-Name` HTTP header. */
  readonly nameParam?: "name" | "uri";
}

/** The method table: the single source for params/result shapes and per-method rules. */
export const METHOD_SPECS: Readonly<Record<MethodName, MethodSpec>> = Object.freeze({
  "server/discover": {
    params: RequestParamsSchema,
    result: DiscoverResultSchema,
    inputRequired: false,
    cacheable: true,
  },
  "tools/list": {
    params: PaginatedRequestParamsSchema,
    result: ListToolsResultSchema,
    inputRequired: false,
    cacheable: true,
  },
  "tools/call": {
    params: CallToolRequestParamsSchema,
    result: CallToolResultSchema,
    inputRequired: true,
    cacheable: false,
    nameParam: "name",
  },
  "prompts/list": {
    params: PaginatedRequestParamsSchema,
    result: ListPromptsResultSchema,
    inputRequired: false,
    cacheable: true,
  },
  "prompts/get": {
    params: GetPromptRequestParamsSchema,
    result: GetPromptResultSchema,
    inputRequired: true,
    cacheable: false,
    nameParam: "name",
  },
  "resources/list": {
    params: PaginatedRequestParamsSchema,
    result: ListResourcesResultSchema,
    inputRequired: false,
    cacheable: true,
  },
  "resources/templates/list": {
    params: PaginatedRequestParamsSchema,
    result: ListResourceTemplatesResultSchema,
    inputRequired: false,
    cacheable: true,
  },
  "resources/read": {
    params: ReadResourceRequestParamsSchema,
    result: ReadResourceResultSchema,
    inputRequired: true,
    cacheable: true,
    nameParam: "uri",
  },
  "completion/complete": {
    params: CompleteRequestParamsSchema,
    result: CompleteResultSchema,
    inputRequired: false,
    cacheable: false,
  },
  "subscriptions/listen": {
    params: SubscriptionsListenRequestParamsSchema,
    result: SubscriptionsListenResultSchema,
    inputRequired: false,
    cacheable: false,
  },
});

/** Exactly the methods that may answer `input_required`. */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set(
  Object.entries(METHOD_SPECS)
    .filter(([, spec]) => spec.inputRequired)
    .map(([method]) => method),
);

/** Exactly the methods whose complete results carry cache hints. */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set(
  Object.entries(METHOD_SPECS)
    .filter(([, spec]) => spec.cacheable)
    .map(([method]) => method),
);

/** Methods of older revisions that the modern core no longer has (answered with -32601). */
export const REMOVED_METHODS: ReadonlySet<string> = new Set([
  "initialize",
  "ping",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
  "tasks/result",
  "tasks/list",
]);

/** True when `method` is a core request method of the 2026-07-28 revision. */
export function isCoreMethod(method: string): method is MethodName {
  return Object.hasOwn(METHOD_SPECS, method);
}
