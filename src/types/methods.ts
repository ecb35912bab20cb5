import type { z } from "zod";
import { CompleteRequestParamsSchema, CompleteResultSchema } from "./completion.js";
import { DiscoverResultSchema } from "./discover.js";
import { RequestParamsSchema } from "./meta.js";
import { METHOD_RULES, type MethodName } from "./method-table.js";
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

export {
  CACHEABLE_METHODS,
  INPUT_REQUIRED_METHODS,
  isCoreMethod,
  METHOD_RULES,
  Method,
  type MethodName,
  type MethodRules,
  NotificationMethod,
  REMOVED_METHODS,
} from "./method-table.js";

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

type Shapes = Pick<MethodSpec, "params" | "result">;

const SHAPES: Record<MethodName, Shapes> = {
  "server/discover": { params: RequestParamsSchema, result: DiscoverResultSchema },
  "tools/list": { params: PaginatedRequestParamsSchema, result: ListToolsResultSchema },
  "tools/call": { params: CallToolRequestParamsSchema, result: CallToolResultSchema },
  "prompts/list": { params: PaginatedRequestParamsSchema, result: ListPromptsResultSchema },
  "prompts/get": { params: GetPromptRequestParamsSchema, result: GetPromptResultSchema },
  "resources/list": { params: PaginatedRequestParamsSchema, result: ListResourcesResultSchema },
  "resources/templates/list": {
    params: PaginatedRequestParamsSchema,
    result: ListResourceTemplatesResultSchema,
  },
  "resources/read": { params: ReadResourceRequestParamsSchema, result: ReadResourceResultSchema },
  "completion/complete": { params: CompleteRequestParamsSchema, result: CompleteResultSchema },
  "subscriptions/listen": {
    params: SubscriptionsListenRequestParamsSchema,
    result: SubscriptionsListenResultSchema,
  },
};

/** The method table with zod schemas: `METHOD_RULES` plus each method's params and result shapes. */
export const METHOD_SPECS: Readonly<Record<MethodName, MethodSpec>> = Object.freeze(
  Object.fromEntries(
    Object.entries(METHOD_RULES).map(([method, { inputRequired, cacheable, nameParam }]) => [
      method,
      {
        ...SHAPES[method as MethodName],
        inputRequired,
        cacheable,
        ...(nameParam === undefined ? {} : { nameParam }),
      },
    ]),
  ) as Record<MethodName, MethodSpec>,
);
