import { describe, expect, it } from "vitest";
import {
  ErrorCode,
  type ErrorObject,
  ErrorObjectSchema,
  INVALID_REQUEST_STATE_MESSAGE,
  INVALID_REQUEST_STATE_REASON,
  invalidRequestStateError,
  JSONRPCErrorResponseSchema,
  McpError,
} from "../../src/types/index.js";

describe("ErrorCode", () => {
  it("has exactly the JSON-RPC and 2026-07-28 codes, plus the two legacy codes", () => {
    expect(ErrorCode).toEqual({
      ParseError: -32700,
      InvalidRequest: -32600,
      MethodNotFound: -32601,
      InvalidParams: -32602,
      InternalError: -32603,
      HeaderMismatch: -32020,
      MissingRequiredClientCapability: -32021,
      UnsupportedProtocolVersion: -32022,
      LegacyResourceNotFound: -32002,
      LegacyUrlElicitationRequired: -32042,
    });
  });

  it.each([
    ["ParseError", -32700],
    ["InvalidRequest", -32600],
    ["MethodNotFound", -32601],
    ["InvalidParams", -32602],
    ["InternalError", -32603],
    ["HeaderMismatch", -32020],
    ["MissingRequiredClientCapability", -32021],
    ["UnsupportedProtocolVersion", -32022],
  ] as const)("%s is %i", (name, code) => {
    expect(ErrorCode[name]).toBe(code);
  });

  it("has no duplicate codes and every code is an integer", () => {
    const codes = Object.values(ErrorCode);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) expect(Number.isInteger(code)).toBe(true);
  });

  it("allocates spec codes sequentially from -32020 within the reserved -32020..-32099 range", () => {
    const spec = [
      ErrorCode.HeaderMismatch,
      ErrorCode.MissingRequiredClientCapability,
      ErrorCode.UnsupportedProtocolVersion,
    ];
    expect(spec).toEqual([-32020, -32021, -32022]);
    for (const code of spec) {
      expect(code).toBeLessThanOrEqual(-32020);
      expect(code).toBeGreaterThanOrEqual(-32099);
    }
  });
});

describe("McpError", () => {
  it("is an Error carrying code, message and data", () => {
    const error = new McpError(ErrorCode.InvalidParams, "Unknown tool: nope", { tool: "nope" });
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(McpError);
    expect(error.name).toBe("McpError");
    expect(error.code).toBe(-32602);
    expect(error.message).toBe("Unknown tool: nope");
    expect(error.data).toEqual({ tool: "nope" });
  });

  it("toErrorObject omits data when it is undefined", () => {
    const object = new McpError(ErrorCode.MethodNotFound, "Method not found").toErrorObject();
    expect(object).toEqual({ code: -32601, message: "Method not found" });
    expect(Object.hasOwn(object, "data")).toBe(false);
  });

  it.each([
    ["an object", { uri: "file:///missing" }],
    ["null", null],
    ["zero", 0],
    ["false", false],
    ["an empty string", ""],
    ["an array", [1, 2]],
  ])("toErrorObject keeps data when it is %s", (_label, data) => {
    const object = new McpError(ErrorCode.InvalidParams, "x", data).toErrorObject();
    expect(Object.hasOwn(object, "data")).toBe(true);
    expect(object.data).toEqual(data);
  });

  it("toErrorObject produces a valid JSON-RPC error member", () => {
    const error = new McpError(ErrorCode.UnsupportedProtocolVersion, "Unsupported protocol version", {
      supported: ["2026-07-28", "2025-11-25"],
      requested: "1900-01-01",
    });
    expect(ErrorObjectSchema.safeParse(error.toErrorObject()).success).toBe(true);
    expect(
      JSONRPCErrorResponseSchema.safeParse({ jsonrpc: "2.0", id: 1, error: error.toErrorObject() }).success,
    ).toBe(true);
  });

  it("fromErrorObject rebuilds an equivalent error (round trip, with and without data)", () => {
    const withData: ErrorObject = {
      code: -32021,
      message: "Server requires the elicitation capability for this request",
      data: { requiredCapabilities: { elicitation: {} } },
    };
    const withoutData: ErrorObject = { code: -32603, message: "Internal error" };
    for (const object of [withData, withoutData]) {
      const rebuilt = McpError.fromErrorObject(object);
      expect(rebuilt).toBeInstanceOf(McpError);
      expect(rebuilt.code).toBe(object.code);
      expect(rebuilt.message).toBe(object.message);
      expect(rebuilt.data).toEqual(object.data);
      expect(rebuilt.toErrorObject()).toEqual(object);
    }
  });

  it("fromErrorObject keeps codes it does not know (application-defined)", () => {
    expect(McpError.fromErrorObject({ code: 1234, message: "app" }).code).toBe(1234);
  });
});

describe("invalidRequestStateError", () => {
  it("is exactly -32602 / 'Invalid or expired requestState' / { reason: 'invalid_request_state' }", () => {
    const error = invalidRequestStateError();
    expect(error).toBeInstanceOf(McpError);
    expect(error.toErrorObject()).toEqual({
      code: -32602,
      message: "Invalid or expired requestState",
      data: { reason: "invalid_request_state" },
    });
  });

  it("exports the frozen message and reason", () => {
    expect(INVALID_REQUEST_STATE_MESSAGE).toBe("Invalid or expired requestState");
    expect(INVALID_REQUEST_STATE_REASON).toBe("invalid_request_state");
  });

  it("returns a fresh error each time (no shared mutable data)", () => {
    const a = invalidRequestStateError();
    const b = invalidRequestStateError();
    expect(a).not.toBe(b);
    expect(a.data).not.toBe(b.data);
    expect(a.toErrorObject()).toEqual(b.toErrorObject());
  });
});
