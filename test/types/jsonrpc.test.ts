import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ErrorObjectSchema,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  JSONRPCErrorResponseSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
  RequestIdSchema,
} from "../../src/types/index.js";
import { expectInvalid, expectValid, META, without } from "./helpers.js";

const request = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } } as const;
const notification = {
  jsonrpc: "2.0",
  method: "notifications/cancelled",
  params: { requestId: 1, reason: "user" },
} as const;
const resultResponse = { jsonrpc: "2.0", id: 1, result: { resultType: "complete" } } as const;
const errorResponse = {
  jsonrpc: "2.0",
  id: 1,
  error: { code: -32601, message: "Method not found" },
} as const;

const guards = {
  isJSONRPCRequest,
  isJSONRPCNotification,
  isJSONRPCResultResponse,
  isJSONRPCErrorResponse,
} as const;
type GuardName = keyof typeof guards;

describe("RequestIdSchema", () => {
  it.each([["abc"], [""], ["0"], [0], [1], [-7], [Number.MAX_SAFE_INTEGER]])("accepts %j", (id) => {
    expectValid(RequestIdSchema, id);
  });

  it.each([
    [1.5],
    [true],
    [false],
    [{}],
    [{ id: 1 }],
    [[]],
    [null],
    [undefined],
    [Number.NaN],
    [Number.POSITIVE_INFINITY],
  ])("rejects %j", (id) => {
    expectInvalid(RequestIdSchema, id);
  });

  it("accepts every string and every safe integer (property)", () => {
    fc.assert(fc.property(fc.string(), (id) => RequestIdSchema.safeParse(id).success));
    fc.assert(fc.property(fc.maxSafeInteger(), (id) => RequestIdSchema.safeParse(id).success));
  });

  it("rejects every non-integer finite double (property)", () => {
    fc.assert(
      fc.property(
        fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)),
        (id) => !RequestIdSchema.safeParse(id).success,
      ),
    );
  });
});

describe("JSONRPCRequestSchema", () => {
  it("accepts a request with params", () => {
    expectValid(JSONRPCRequestSchema, request);
  });

  it("accepts a request without params (params is optional at the JSON-RPC layer)", () => {
    expectValid(JSONRPCRequestSchema, { jsonrpc: "2.0", id: "a", method: "x" });
  });

  it.each([
    ["string id", "req-1"],
    ["integer id", 42],
    ["zero id", 0],
    ["negative id", -1],
  ])("accepts a %s", (_label, id) => {
    expectValid(JSONRPCRequestSchema, { ...request, id });
  });

  it.each([
    ["float id", { ...request, id: 1.5 }],
    ["boolean id", { ...request, id: true }],
    ["object id", { ...request, id: { n: 1 } }],
    ["null id (MCP: the ID MUST NOT be null)", { ...request, id: null }],
    ['jsonrpc "1.0"', { ...request, jsonrpc: "1.0" }],
    ["jsonrpc as number 2", { ...request, jsonrpc: 2 }],
    ["missing jsonrpc", without(request, "jsonrpc")],
    ["missing id", without(request, "id")],
    ["missing method", without(request, "method")],
    ["non-string method", { ...request, method: 5 }],
    ["params as array (by-position params are not MCP)", { ...request, params: [1, 2] }],
    ["params as string", { ...request, params: "x" }],
    ["params null", { ...request, params: null }],
  ])("rejects %s", (_label, message) => {
    expectInvalid(JSONRPCRequestSchema, message);
  });

  it("keeps unknown top-level members (loose)", () => {
    const parsed = JSONRPCRequestSchema.parse({ ...request, extra: 1 });
    expect(parsed).toMatchObject({ extra: 1 });
  });
});

describe("JSONRPCNotificationSchema", () => {
  it("accepts a notification with and without params", () => {
    expectValid(JSONRPCNotificationSchema, notification);
    expectValid(JSONRPCNotificationSchema, { jsonrpc: "2.0", method: "notifications/tools/list_changed" });
  });

  it.each([
    ['jsonrpc "1.0"', { ...notification, jsonrpc: "1.0" }],
    ["missing jsonrpc", without(notification, "jsonrpc")],
    ["missing method", without(notification, "method")],
    ["params as array", { ...notification, params: [] }],
  ])("rejects %s", (_label, message) => {
    expectInvalid(JSONRPCNotificationSchema, message);
  });
});

describe("JSONRPCResultResponseSchema", () => {
  it("accepts a result response (string and integer ids)", () => {
    expectValid(JSONRPCResultResponseSchema, resultResponse);
    expectValid(JSONRPCResultResponseSchema, { ...resultResponse, id: "abc" });
  });

  it("accepts an empty result object at the JSON-RPC layer", () => {
    expectValid(JSONRPCResultResponseSchema, { jsonrpc: "2.0", id: 1, result: {} });
  });

  it.each([
    ["result as array", { ...resultResponse, result: [] }],
    ["result as string", { ...resultResponse, result: "ok" }],
    ["result null", { ...resultResponse, result: null }],
    ["missing result", without(resultResponse, "result")],
    ["missing id", without(resultResponse, "id")],
    ["null id", { ...resultResponse, id: null }],
    ["float id", { ...resultResponse, id: 2.5 }],
    ['jsonrpc "1.0"', { ...resultResponse, jsonrpc: "1.0" }],
  ])("rejects %s", (_label, message) => {
    expectInvalid(JSONRPCResultResponseSchema, message);
  });
});

describe("ErrorObjectSchema and JSONRPCErrorResponseSchema", () => {
  it("accepts an error object with and without data", () => {
    expectValid(ErrorObjectSchema, { code: -32602, message: "Invalid params" });
    expectValid(ErrorObjectSchema, { code: -32602, message: "Invalid params", data: { uri: "file:///x" } });
    expectValid(ErrorObjectSchema, { code: 5, message: "", data: [1, "two", null] });
  });

  it.each([
    ["float code (MCP: error codes MUST be integers)", { code: -32602.5, message: "x" }],
    ["string code", { code: "-32602", message: "x" }],
    ["missing code", { message: "x" }],
    ["missing message", { code: -32602 }],
    ["non-string message", { code: -32602, message: 1 }],
  ])("rejects an error object with %s", (_label, error) => {
    expectInvalid(ErrorObjectSchema, error);
    expectInvalid(JSONRPCErrorResponseSchema, { jsonrpc: "2.0", id: 1, error });
  });

  it("accepts an error response with an id", () => {
    expectValid(JSONRPCErrorResponseSchema, errorResponse);
    expectValid(JSONRPCErrorResponseSchema, { ...errorResponse, id: "r-1" });
  });

  it("accepts an error response without an id (the id could not be read from a malformed request)", () => {
    expectValid(JSONRPCErrorResponseSchema, without(errorResponse, "id"));
  });

  it("accepts an error response with a null id (plain JSON-RPC 2.0 form)", () => {
    expectValid(JSONRPCErrorResponseSchema, { ...errorResponse, id: null });
  });

  it.each([
    ["missing error", without(errorResponse, "error")],
    ["error as string", { ...errorResponse, error: "boom" }],
    ["float id", { ...errorResponse, id: 1.25 }],
    ["boolean id", { ...errorResponse, id: false }],
    ['jsonrpc "1.0"', { ...errorResponse, jsonrpc: "1.0" }],
  ])("rejects %s", (_label, message) => {
    expectInvalid(JSONRPCErrorResponseSchema, message);
  });
});

describe("JSON-RPC guards", () => {
  const classified: Array<[string, unknown, GuardName]> = [
    ["a request", request, "isJSONRPCRequest"],
    [
      "a request with a string id and no params",
      { jsonrpc: "2.0", id: "x", method: "m" },
      "isJSONRPCRequest",
    ],
    ["a notification", notification, "isJSONRPCNotification"],
    ["a notification without params", { jsonrpc: "2.0", method: "n" }, "isJSONRPCNotification"],
    ["a result response", resultResponse, "isJSONRPCResultResponse"],
    ["an error response", errorResponse, "isJSONRPCErrorResponse"],
    ["an error response without id", without(errorResponse, "id"), "isJSONRPCErrorResponse"],
  ];

  it.each(classified)("%s satisfies exactly one guard", (_label, message, expected) => {
    for (const [name, guard] of Object.entries(guards)) {
      expect(guard(message), name).toBe(name === expected);
    }
  });

  it("a request is not a notification", () => {
    expect(isJSONRPCRequest(request)).toBe(true);
    expect(isJSONRPCNotification(request)).toBe(false);
  });

  it("a message with a method and a null id is neither a request nor a notification", () => {
    const message = { jsonrpc: "2.0", id: null, method: "tools/list" };
    expect(isJSONRPCRequest(message)).toBe(false);
    expect(isJSONRPCNotification(message)).toBe(false);
  });

  it.each([
    ["float id", { ...request, id: 1.5 }],
    ["boolean id", { ...request, id: true }],
    ["object id", { ...request, id: {} }],
    ['jsonrpc "1.0"', { ...request, jsonrpc: "1.0" }],
  ])("isJSONRPCRequest rejects a request with %s", (_label, message) => {
    expect(isJSONRPCRequest(message)).toBe(false);
  });

  it('isJSONRPCNotification rejects jsonrpc "1.0"', () => {
    expect(isJSONRPCNotification({ ...notification, jsonrpc: "1.0" })).toBe(false);
  });

  it('isJSONRPCResultResponse / isJSONRPCErrorResponse reject jsonrpc "1.0" and bad ids', () => {
    expect(isJSONRPCResultResponse({ ...resultResponse, jsonrpc: "1.0" })).toBe(false);
    expect(isJSONRPCResultResponse({ ...resultResponse, id: 0.5 })).toBe(false);
    expect(isJSONRPCErrorResponse({ ...errorResponse, jsonrpc: "1.0" })).toBe(false);
    expect(isJSONRPCErrorResponse({ ...errorResponse, id: true })).toBe(false);
  });

  it.each([
    ["null", null],
    ["undefined", undefined],
    ["a string", '{"jsonrpc":"2.0","id":1,"method":"m"}'],
    ["a number", 1],
    ["an array (batches are not supported)", [request]],
    ["an empty object", {}],
  ])("every guard is false for %s", (_label, value) => {
    for (const [name, guard] of Object.entries(guards)) {
      expect(guard(value), name).toBe(false);
    }
  });

  it("a response carrying both result and error is neither a result nor an error response", () => {
    const both = {
      jsonrpc: "2.0",
      id: 1,
      result: { resultType: "complete" },
      error: { code: -1, message: "x" },
    };
    expect(isJSONRPCResultResponse(both)).toBe(false);
    expect(isJSONRPCErrorResponse(both)).toBe(false);
  });
});
