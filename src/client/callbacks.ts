import {
  describeFailure,
  ErrorCode,
  McpError,
  type Path,
  validCreateMessageResult,
  validElicitResult,
  validListRootsResult,
} from "../types/core.js";
import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestFormParams,
  ElicitRequestParams,
  ElicitResult,
  Implementation,
  InputRequest,
  InputResponse,
  JSONObject,
  ListRootsResult,
} from "../types/index.js";
import { InvalidInputResponseError } from "./errors.js";

/**
 * What a callback learns about the request it answers. The same shape serves both eras: for a
 * multi-round-trip request `requestId` is the `inputRequests` key; for a legacy server → client
 * request it is the JSON-RPC id.
 *
 * @example
 * const elicitation: ElicitationCallback = (ctx, params) => {
 *   ctx.signal.throwIfAborted();
 *   return askUser(ctx.serverInfo?.name, ctx.requestId, params);
 * };
 */
export interface ClientRequestContext {
  readonly requestId: string | number;
  /** Aborted when the flow is cancelled, times out, its client closes, or a sibling request of the round failed. */
  readonly signal: AbortSignal;
  /** The embedded request's `params._meta`, when it has one. */
  readonly meta?: JSONObject;
  /** Who is asking (show it to the user), when the server said. */
  readonly serverInfo?: Implementation;
}

/**
 * Answers an `elicitation/create` (form or URL mode).
 *
 * @example
 * const elicitation: ElicitationCallback = async (ctx, params) =>
 *   ({ action: "accept", content: { region: "eu-west-1" } });
 */
export type ElicitationCallback = (
  ctx: ClientRequestContext,
  params: ElicitRequestParams,
) => ElicitResult | Promise<ElicitResult>;

/**
 * Answers a `sampling/createMessage` with the host's LLM (keep a human in the loop).
 *
 * @example
 * const sampling: SamplingCallback = async (ctx, params) =>
 *   ({ role: "assistant", content: { type: "text", text: "Paris" }, model: "my-model" });
 */
export type SamplingCallback = (
  ctx: ClientRequestContext,
  params: CreateMessageRequestParams,
) => CreateMessageResult | Promise<CreateMessageResult>;

/**
 * Answers a `roots/list` with the client's roots.
 *
 * @example
 * const listRoots: ListRootsCallback = () => ({ roots: [{ uri: "file:///work", name: "work" }] });
 */
export type ListRootsCallback = (ctx: ClientRequestContext) => ListRootsResult | Promise<ListRootsResult>;

/**
 * The elicitation modes a client handles.
 *
 * @example
 * const modes: ElicitationCapabilities = { form: { applyDefaults: true } }; // no URL mode
 */
export type ElicitationCapabilities = {
  form?: { applyDefaults?: boolean };
  url?: JSONObject;
};

/**
 * The callbacks a client registers; capabilities are declared from what is present.
 *
 * @example
 * const callbacks: ClientCallbacks = { listRoots: () => ({ roots: [] }) };
 */
export interface ClientCallbacks {
  elicitation?: ElicitationCallback;
  /**
   * The modes `elicitation` handles, declared as the `elicitation` capability (default
   * `{ form: {}, url: {} }`; a bare `{}` means form only, as in the spec). A question in an
   * undeclared mode is refused with -32602 before the callback runs. With `form.applyDefaults`,
   * an accepted form's omitted fields get their schema `default`s before the answer is sent.
   */
  elicitationCapabilities?: ElicitationCapabilities;
  sampling?: SamplingCallback;
  /**
   * Sub-capabilities of `sampling` to declare, e.g. `{ tools: {} }`. A request with `tools` or
   * `toolChoice` is refused with -32602 before the callback runs unless `tools` is declared.
   */
  samplingCapabilities?: { tools?: JSONObject; context?: JSONObject };
  listRoots?: ListRootsCallback;
}

/**
 * The client capabilities the registered callbacks imply: nothing is declared that the client
 * could not answer.
 *
 * @example
 * capabilitiesFor({ elicitation }); // { elicitation: { form: {}, url: {} } }
 */
export function capabilitiesFor(callbacks: ClientCallbacks): ClientCapabilities {
  const capabilities: ClientCapabilities = {};
  if (callbacks.elicitation) {
    capabilities.elicitation = structuredClone(callbacks.elicitationCapabilities ?? BOTH_MODES);
  }
  if (callbacks.sampling) capabilities.sampling = { ...callbacks.samplingCapabilities };
  if (callbacks.listRoots) capabilities.roots = {};
  return capabilities;
}

/**
 * Routes one embedded request to its callback and checks the answer's shape. Without a callback
 * the answer is `McpError(-32600, "<Kind> not supported")`, so the loop stops without retrying.
 * This is the one table both eras use (the legacy back-channel calls it with the JSON-RPC id).
 *
 * @example
 * const answer = await dispatchInputRequest(callbacks, { requestId: "region", signal }, request);
 */
export async function dispatchInputRequest(
  callbacks: ClientCallbacks,
  ctx: ClientRequestContext,
  request: InputRequest,
): Promise<InputResponse> {
  switch (request.method) {
    case "elicitation/create": {
      if (!callbacks.elicitation) throw new McpError(ErrorCode.InvalidRequest, "Elicitation not supported");
      const modes = callbacks.elicitationCapabilities ?? BOTH_MODES;
      const params = request.params;
      if (!handlesMode(modes, params)) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `${params.mode === "url" ? "URL" : "Form"}-mode elicitation not supported`,
        );
      }
      // A system opener runs file:, javascript: or an app's scheme as readily as a web page.
      if (params.mode === "url" && !isWebUrl(params.url)) {
        throw new McpError(ErrorCode.InvalidParams, "URL-mode elicitation needs an http or https URL");
      }
      const answer = await callbacks.elicitation(ctx, params);
      const valid = checked(request.method, ctx, answer, validElicitResult, "an ElicitResult");
      return modes.form?.applyDefaults === true && params.mode !== "url"
        ? withDefaults(valid, params)
        : valid;
    }
    case "sampling/createMessage": {
      if (!callbacks.sampling) throw new McpError(ErrorCode.InvalidRequest, "Sampling not supported");
      // The spec: the client MUST return an error for tools or toolChoice without sampling.tools.
      const { tools, toolChoice } = request.params;
      if ((tools !== undefined || toolChoice !== undefined) && !callbacks.samplingCapabilities?.tools) {
        throw new McpError(ErrorCode.InvalidParams, "Tool-enabled sampling not supported");
      }
      const answer = await callbacks.sampling(ctx, request.params);
      return checked(request.method, ctx, answer, validCreateMessageResult, "a CreateMessageResult");
    }
    case "roots/list": {
      if (!callbacks.listRoots) throw new McpError(ErrorCode.InvalidRequest, "List roots not supported");
      const answer = await callbacks.listRoots(ctx);
      return checked(request.method, ctx, answer, validListRootsResult, "a ListRootsResult");
    }
    default:
      // Unreachable through the checked paths: never answer an unknown request with `undefined`.
      throw new McpError(ErrorCode.MethodNotFound, "Method not found");
  }
}

const BOTH_MODES: ElicitationCapabilities = { form: {}, url: {} };

function isWebUrl(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const { protocol } = new URL(url);
  return protocol === "https:" || protocol === "http:";
}

/** A bare `{}` (no mode named) handles forms only, as the spec reads it. */
function handlesMode(modes: ElicitationCapabilities, params: ElicitRequestParams): boolean {
  if (params.mode === "url") return modes.url !== undefined;
  return modes.form !== undefined || modes.url === undefined;
}

/** An accepted form's answer with each omitted field set to its schema `default` (a new object). */
function withDefaults(answer: ElicitResult, params: ElicitRequestFormParams): ElicitResult {
  if (answer.action !== "accept") return answer;
  const content: Record<string, unknown> = { ...answer.content };
  for (const [name, field] of Object.entries(params.requestedSchema.properties)) {
    if (content[name] === undefined && field.default !== undefined) content[name] = field.default;
  }
  return { ...answer, content: content as ElicitResult["content"] };
}

/** The `_meta` of an embedded request's params, when it is an object. */
export function embeddedMeta(request: InputRequest): JSONObject | undefined {
  const meta = (request.params as { _meta?: unknown } | undefined)?._meta;
  return typeof meta === "object" && meta !== null && !Array.isArray(meta) ? (meta as JSONObject) : undefined;
}

/** Returns the callback's own object (not a re-serialized copy) once it has the expected shape. */
function checked<T extends InputResponse>(
  method: string,
  ctx: ClientRequestContext,
  answer: T,
  check: (value: unknown, at?: Path) => boolean,
  expected: string,
): T {
  if (check(answer)) return answer;
  throw new InvalidInputResponseError(
    method,
    ctx.requestId,
    `expected ${expected} (${describeFailure(check, answer).replace(/^value:/, "answer:")})`,
  );
}
