/**
 * The per-method rules of the 2026-07-28 core without zod: names, flags, and the generated checks
 * of each method's params and result. `METHOD_SPECS` (methods.ts) adds the zod schemas.
 */
import {
  validCallToolRequestParams,
  validCallToolResult,
  validCompleteRequestParams,
  validCompleteResult,
  validDiscoverResult,
  validGetPromptRequestParams,
  validGetPromptResult,
  validListPromptsResult,
  validListResourcesResult,
  validListResourceTemplatesResult,
  validListToolsResult,
  validPaginatedRequestParams,
  validReadResourceRequestParams,
  validReadResourceResult,
  validRequestParams,
  validSubscriptionsListenRequestParams,
  validSubscriptionsListenResult,
} from "./checks.generated.js";

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
/** A client → server request method of the 2026-07-28 core. */
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

/** How one core method behaves on the wire, checks included. */
export interface MethodRules {
  /** True when the params are valid as they are (see checks.generated.ts). */
  readonly validParams: (value: unknown) => boolean;
  /** True when a complete result is valid as it is. */
  readonly validResult: (value: unknown) => boolean;
  /** May answer `input_required`. */
  readonly inputRequired: boolean;
  /** Carries `ttlMs`/`cacheScope` on complete results. */
  readonly cacheable: boolean;
  /** The param mirrored into the `Mcp-Name` HTTP header. */
  readonly nameParam?: "name" | "uri";
}

function rules(
  validParams: (value: unknown) => boolean,
  validResult: (value: unknown) => boolean,
  inputRequired: boolean,
  cacheable: boolean,
  nameParam?: "name" | "uri",
): MethodRules {
  return nameParam === undefined
    ? { validParams, validResult, inputRequired, cacheable }
    : { validParams, validResult, inputRequired, cacheable, nameParam };
}

/** The method table: the single source for per-method rules. */
export const METHOD_RULES: Readonly<Record<MethodName, MethodRules>> = Object.freeze({
  "server/discover": rules(validRequestParams, validDiscoverResult, false, true),
  "tools/list": rules(validPaginatedRequestParams, validListToolsResult, false, true),
  "tools/call": rules(validCallToolRequestParams, validCallToolResult, true, false, "name"),
  "prompts/list": rules(validPaginatedRequestParams, validListPromptsResult, false, true),
  "prompts/get": rules(validGetPromptRequestParams, validGetPromptResult, true, false, "name"),
  "resources/list": rules(validPaginatedRequestParams, validListResourcesResult, false, true),
  "resources/templates/list": rules(
    validPaginatedRequestParams,
    validListResourceTemplatesResult,
    false,
    true,
  ),
  "resources/read": rules(validReadResourceRequestParams, validReadResourceResult, true, true, "uri"),
  "completion/complete": rules(validCompleteRequestParams, validCompleteResult, false, false),
  "subscriptions/listen": rules(
    validSubscriptionsListenRequestParams,
    validSubscriptionsListenResult,
    false,
    false,
  ),
});

/** Exactly the methods that may answer `input_required`. */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set(
  Object.entries(METHOD_RULES)
    .filter(([, spec]) => spec.inputRequired)
    .map(([method]) => method),
);

/** Exactly the methods whose complete results carry cache hints. */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set(
  Object.entries(METHOD_RULES)
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

/**
 * True when `method` is a core request method of the 2026-07-28 revision.
 *
 * @example
 * isCoreMethod("tools/call"); // true
 * isCoreMethod("ping"); // false: removed from the modern core
 */
export function isCoreMethod(method: string): method is MethodName {
  return Object.hasOwn(METHOD_RULES, method);
}
