import {
  ErrorCode,
  LOGGING_LEVEL_ORDER,
  McpError,
  MetaKey,
  validClientCapabilities,
  validImplementation,
  validLoggingLevel,
  validProgressToken,
} from "../types/core.js";
import type { JSONRPCRequest, RequestMeta } from "../types/index.js";
import { isRecord, isRequestId } from "../types/record.js";

/** What the per-request `_meta` envelope established. */
export interface Envelope {
  readonly meta: RequestMeta;
}

function invalidEnvelope(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, message, undefined, { httpStatus: 400 });
}

function unsupportedVersion(supportedVersions: readonly string[], requested: string): McpError {
  return new McpError(ErrorCode.UnsupportedProtocolVersion, "Unsupported protocol version", {
    supported: [...supportedVersions],
    requested,
  });
}

/** The JSON-RPC request shape, checked by hand: it runs on every message. */
export function isWellFormedRequest(message: unknown): message is JSONRPCRequest {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return false;
  const record = message as Record<string, unknown>;
  const params = record.params;
  return (
    record.jsonrpc === "2.0" &&
    typeof record.method === "string" &&
    isRequestId(record.id) &&
    (params === undefined || (typeof params === "object" && params !== null && !Array.isArray(params)))
  );
}

/**
 * Steps 1–2 of the validation ladder for a modern request: the `_meta` envelope must be present
 * and well formed (-32602), and its protocol version served here (-32022 with `supported` and
 * `requested`). The version is checked before the rest so a newer revision's envelope is never
 * judged by our rules.
 */
export function validateEnvelope(request: JSONRPCRequest, supportedVersions: readonly string[]): Envelope {
  const params = request.params;
  if (!isRecord(params) || !isRecord(params._meta)) {
    // A 2025 client's initialize, here where no 2025 era is served: it cannot fall forward, so
    // the answer names the versions that are (the spec's SHOULD).
    const requested =
      request.method === "initialize" && isRecord(params) ? params.protocolVersion : undefined;
    if (typeof requested === "string") throw unsupportedVersion(supportedVersions, requested);
    throw invalidEnvelope("Missing required params._meta envelope");
  }
  const meta = params._meta;
  const version = meta[MetaKey.ProtocolVersion];
  if (version === undefined) throw invalidEnvelope(`Missing required _meta key ${MetaKey.ProtocolVersion}`);
  if (typeof version !== "string")
    throw invalidEnvelope(`_meta key ${MetaKey.ProtocolVersion} must be a string`);
  if (!supportedVersions.includes(version)) throw unsupportedVersion(supportedVersions, version);
  const capabilities = meta[MetaKey.ClientCapabilities];
  if (capabilities === undefined) {
    throw invalidEnvelope(`Missing required _meta key ${MetaKey.ClientCapabilities}`);
  }
  if (!validClientCapabilities(capabilities)) {
    throw invalidEnvelope(`_meta key ${MetaKey.ClientCapabilities} must be a ClientCapabilities object`);
  }
  const clientInfo = meta[MetaKey.ClientInfo];
  if (clientInfo !== undefined && !validImplementation(clientInfo)) {
    throw invalidEnvelope(`_meta key ${MetaKey.ClientInfo} must be an Implementation ({ name, version })`);
  }
  const logLevel = meta[MetaKey.LogLevel];
  if (logLevel !== undefined && !validLoggingLevel(logLevel)) {
    throw invalidEnvelope(`_meta key ${MetaKey.LogLevel} must be one of ${LOGGING_LEVEL_ORDER.join(", ")}`);
  }
  const progressToken = meta[MetaKey.ProgressToken];
  if (progressToken !== undefined && !validProgressToken(progressToken)) {
    throw invalidEnvelope(`_meta key ${MetaKey.ProgressToken} must be a string or an integer`);
  }
  return { meta: meta as RequestMeta };
}
