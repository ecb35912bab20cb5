import { describe, expect, it } from "vitest";
import {
  CallToolRequestParamsSchema,
  CallToolResultSchema,
  CompleteRequestParamsSchema,
  CompleteResultSchema,
  DiscoverResultSchema,
  GetPromptRequestParamsSchema,
  GetPromptResultSchema,
  isCoreMethod,
  ListPromptsResultSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesResultSchema,
  ListToolsResultSchema,
  METHOD_SPECS,
  Method,
  type MethodName,
  NotificationMethod,
  PaginatedRequestParamsSchema,
  ReadResourceRequestParamsSchema,
  ReadResourceResultSchema,
  RequestParamsSchema,
  SubscriptionsListenRequestParamsSchema,
} from "../../src/types/index.js";
import { expectInvalid, expectValid, META } from "./helpers.js";

const CORE_METHODS = [
  "server/discover",
  "tools/list",
  "tools/call",
  "prompts/list",
  "prompts/get",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "completion/complete",
  "subscriptions/listen",
] as const;

describe("Method and NotificationMethod", () => {
  it("Method lists exactly the ten core client→server methods", () => {
    expect(Method).toEqual({
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
    });
  });

  it("NotificationMethod lists exactly the core notifications", () => {
    expect(NotificationMethod).toEqual({
      Cancelled: "notifications/cancelled",
      Progress: "notifications/progress",
      Message: "notifications/message",
      SubscriptionsAcknowledged: "notifications/subscriptions/acknowledged",
      ToolsListChanged: "notifications/tools/list_changed",
      PromptsListChanged: "notifications/prompts/list_changed",
      ResourcesListChanged: "notifications/resources/list_changed",
      ResourcesUpdated: "notifications/resources/updated",
    });
  });

  it("has no removed notification (initialized, roots/list_changed, elicitation/complete, tasks/status)", () => {
    const values: string[] = Object.values(NotificationMethod);
    for (const removed of [
      "notifications/initialized",
      "notifications/roots/list_changed",
      "notifications/elicitation/complete",
      "notifications/tasks/status",
    ]) {
      expect(values).not.toContain(removed);
    }
  });
});

describe("isCoreMethod", () => {
  it.each(CORE_METHODS.map((m) => [m]))("%s is a core method", (method) => {
    expect(isCoreMethod(method)).toBe(true);
  });

  it.each([
    ["initialize"],
    ["ping"],
    ["logging/setLevel"],
    ["resources/subscribe"],
    ["tasks/get"],
    ["elicitation/create"],
    ["notifications/cancelled"],
    [""],
    ["TOOLS/LIST"],
    ["toString"],
    ["constructor"],
    ["__proto__"],
    ["hasOwnProperty"],
  ])("%j is not a core method", (method) => {
    expect(isCoreMethod(method)).toBe(false);
  });
});

describe("METHOD_SPECS", () => {
  it("has exactly one entry per Method value and is frozen", () => {
    expect(new Set(Object.keys(METHOD_SPECS))).toEqual(new Set(Object.values(Method)));
    expect(new Set(Object.keys(METHOD_SPECS))).toEqual(new Set(CORE_METHODS));
    expect(Object.isFrozen(METHOD_SPECS)).toBe(true);
  });

  it("wires each method to its params and result schemas", () => {
    const expected: Record<MethodName, [unknown, unknown]> = {
      "server/discover": [RequestParamsSchema, DiscoverResultSchema],
      "tools/list": [PaginatedRequestParamsSchema, ListToolsResultSchema],
      "tools/call": [CallToolRequestParamsSchema, CallToolResultSchema],
      "prompts/list": [PaginatedRequestParamsSchema, ListPromptsResultSchema],
      "prompts/get": [GetPromptRequestParamsSchema, GetPromptResultSchema],
      "resources/list": [PaginatedRequestParamsSchema, ListResourcesResultSchema],
      "resources/templates/list": [PaginatedRequestParamsSchema, ListResourceTemplatesResultSchema],
      "resources/read": [ReadResourceRequestParamsSchema, ReadResourceResultSchema],
      "completion/complete": [CompleteRequestParamsSchema, CompleteResultSchema],
      "subscriptions/listen": [
        SubscriptionsListenRequestParamsSchema,
        METHOD_SPECS["subscriptions/listen"].result,
      ],
    };
    for (const method of CORE_METHODS) {
      const [params, result] = expected[method];
      expect(METHOD_SPECS[method].params, method).toBe(params);
      expect(METHOD_SPECS[method].result, method).toBe(result);
    }
  });

  it("flags input_required on exactly tools/call, prompts/get and resources/read", () => {
    const flagged = CORE_METHODS.filter((m) => METHOD_SPECS[m].inputRequired);
    expect(flagged).toEqual(["tools/call", "prompts/get", "resources/read"]);
  });

  it("flags cache hints on exactly the six cacheable methods", () => {
    const flagged = CORE_METHODS.filter((m) => METHOD_SPECS[m].cacheable);
    expect(flagged).toEqual([
      "server/discover",
      "tools/list",
      "prompts/list",
      "resources/list",
      "resources/templates/list",
      "resources/read",
    ]);
  });

  it("names the Mcp-Name source param for tools/call, prompts/get (name) and resources/read (uri) only", () => {
    const named = Object.fromEntries(
      CORE_METHODS.filter((m) => METHOD_SPECS[m].nameParam !== undefined).map((m) => [
        m,
        METHOD_SPECS[m].nameParam,
      ]),
    );
    expect(named).toEqual({ "tools/call": "name", "prompts/get": "name", "resources/read": "uri" });
  });

  it.each(CORE_METHODS.map((m) => [m]))("%s params require the _meta envelope", (method) => {
    const params = METHOD_SPECS[method].params;
    expectInvalid(params, {});
    expectInvalid(params, { _meta: {} });
  });

  it("every params schema accepts a well-formed request", () => {
    const samples: Record<MethodName, unknown> = {
      "server/discover": { _meta: META },
      "tools/list": { _meta: META, cursor: "c" },
      "tools/call": { _meta: META, name: "t", arguments: {} },
      "prompts/list": { _meta: META },
      "prompts/get": { _meta: META, name: "p" },
      "resources/list": { _meta: META },
      "resources/templates/list": { _meta: META },
      "resources/read": { _meta: META, uri: "file:///a" },
      "completion/complete": {
        _meta: META,
        ref: { type: "ref/prompt", name: "p" },
        argument: { name: "a", value: "" },
      },
      "subscriptions/listen": { _meta: META, notifications: { toolsListChanged: true } },
    };
    for (const method of CORE_METHODS) expectValid(METHOD_SPECS[method].params, samples[method]);
  });

  it("the subscriptions/listen result accepts the graceful close", () => {
    expectValid(METHOD_SPECS["subscriptions/listen"].result, {
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/subscriptionId": "listen-1" },
    });
  });

  it("the subscriptions/listen result requires _meta.subscriptionId", () => {
    expectInvalid(METHOD_SPECS["subscriptions/listen"].result, { resultType: "complete" });
  });
});
