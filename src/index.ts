/**
 * roundtrip — a TypeScript SDK for the Model Context Protocol 2026-07-28, built around
 * multi-round-trip requests.
 */
export * from "./client/index.js";
export * from "./server/index.js";
export { JsonRpcConnection, type RequestOptions } from "./shared/connection.js";
export {
  ConnectionClosedError,
  ProtocolError,
  RequestAbortedError,
  RequestTimeoutError,
  RoundtripError,
} from "./shared/errors.js";
export type { MessageInfo, Transport, TransportNetwork } from "./shared/transport.js";
export {
  MemoryTransport,
  type MemoryTransportOptions,
  type WireDirection,
} from "./transports/memory.js";
export * from "./types/index.js";
