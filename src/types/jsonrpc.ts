import * as z from "zod";

/** JSON-RPC request id: a string or an integer. */
export const RequestIdSchema = z.union([z.string(), z.int()]);
export type RequestId = z.infer<typeof RequestIdSchema>;

const ParamsSchema = z.record(z.string(), z.unknown());

export const JSONRPCRequestSchema = z.looseObject({
  jsonrpc: z.literal("2.0"),
  id: RequestIdSchema,
  method: z.string(),
  params: ParamsSchema.optional(),
});
export type JSONRPCRequest = z.infer<typeof JSONRPCRequestSchema>;

export const JSONRPCNotificationSchema = z.looseObject({
  jsonrpc: z.literal("2.0"),
  method: z.string(),
  params: ParamsSchema.optional(),
});
export type JSONRPCNotification = z.infer<typeof JSONRPCNotificationSchema>;

export const ErrorObjectSchema = z.looseObject({
  code: z.int(),
  message: z.string(),
  data: z.unknown().optional(),
});

// JSON-RPC 2.0 §5: a response carries result or error, never both.
export const JSONRPCResultResponseSchema = z
  .looseObject({
    jsonrpc: z.literal("2.0"),
    id: RequestIdSchema,
    result: z.record(z.string(), z.unknown()),
  })
  .refine((response) => !("error" in response), { message: "A response cannot carry both result and error" });
export type JSONRPCResultResponse = z.infer<typeof JSONRPCResultResponseSchema>;

export const JSONRPCErrorResponseSchema = z
  .looseObject({
    jsonrpc: z.literal("2.0"),
    id: RequestIdSchema.nullable().optional(),
    error: ErrorObjectSchema,
  })
  .refine((response) => !("result" in response), {
    message: "A response cannot carry both result and error",
  });
export type JSONRPCErrorResponse = z.infer<typeof JSONRPCErrorResponseSchema>;

export type JSONRPCResponse = JSONRPCResultResponse | JSONRPCErrorResponse;
export type JSONRPCMessage = JSONRPCRequest | JSONRPCNotification | JSONRPCResponse;

/** A result object as it travels in `result`: always a JSON object. */
export type ResultObject = Record<string, unknown>;
