import * as z from "zod";

/** JSON-RPC request id: a string or an integer. */
export const RequestIdSchema = z.union([z.string(), z.int()]);
/** JSON-RPC request id: a string or an integer. */
export type RequestId = z.infer<typeof RequestIdSchema>;

const ParamsSchema = z.record(z.string(), z.unknown());

/** The zod schema of {@link JSONRPCRequest}. */
export const JSONRPCRequestSchema = z.looseObject({
  jsonrpc: z.literal("2.0"),
  id: RequestIdSchema,
  method: z.string(),
  params: ParamsSchema.optional(),
});
/** A JSON-RPC 2.0 request: an `id`, a `method` and optional `params`. */
export type JSONRPCRequest = z.infer<typeof JSONRPCRequestSchema>;

/** The zod schema of {@link JSONRPCNotification}. */
export const JSONRPCNotificationSchema = z.looseObject({
  jsonrpc: z.literal("2.0"),
  method: z.string(),
  params: ParamsSchema.optional(),
});
/** A JSON-RPC 2.0 notification: a `method` without an `id`, which gets no response. */
export type JSONRPCNotification = z.infer<typeof JSONRPCNotificationSchema>;

/** The zod schema of the JSON-RPC `error` member (`ErrorObject`). */
export const ErrorObjectSchema = z.looseObject({
  code: z.int(),
  message: z.string(),
  data: z.unknown().optional(),
});

/**
 * The zod schema of {@link JSONRPCResultResponse}. It refuses an `error` member too: a response
 * carries result or error, never both (JSON-RPC 2.0 §5).
 */
export const JSONRPCResultResponseSchema = z
  .looseObject({
    jsonrpc: z.literal("2.0"),
    id: RequestIdSchema,
    result: z.record(z.string(), z.unknown()),
  })
  .refine((response) => !("error" in response), { message: "A response cannot carry both result and error" });
/** A JSON-RPC 2.0 success response: the `result` of the request with the same `id`. */
export type JSONRPCResultResponse = z.infer<typeof JSONRPCResultResponseSchema>;

/** The zod schema of {@link JSONRPCErrorResponse}. It refuses a `result` member too. */
export const JSONRPCErrorResponseSchema = z
  .looseObject({
    jsonrpc: z.literal("2.0"),
    id: RequestIdSchema.nullable().optional(),
    error: ErrorObjectSchema,
  })
  .refine((response) => !("result" in response), {
    message: "A response cannot carry both result and error",
  });
/**
 * A JSON-RPC 2.0 error response: the `error` for the request with the same `id` (null or absent if unknown).
 */
export type JSONRPCErrorResponse = z.infer<typeof JSONRPCErrorResponseSchema>;

/** A JSON-RPC 2.0 response: a result or an error. */
export type JSONRPCResponse = JSONRPCResultResponse | JSONRPCErrorResponse;
/** Any JSON-RPC 2.0 message a transport carries. */
export type JSONRPCMessage = JSONRPCRequest | JSONRPCNotification | JSONRPCResponse;

/** A result object as it travels in `result`: always a JSON object. */
export type ResultObject = Record<string, unknown>;
