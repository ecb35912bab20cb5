import type { JSONRPCMessage, RequestId } from "../types/index.js";

/** Extra facts a transport knows about a message it delivers. */
export interface MessageInfo {
  /** The request whose response stream carried this message (HTTP, in-memory). */
  readonly relatedRequestId?: RequestId;
}

/**
 * Where a transport's messages travel, for telemetry: OpenTelemetry's `network.transport`
 * (`pipe` for stdio, `tcp` for HTTP), `network.protocol.name`, `server.address` and `server.port`.
 */
export interface TransportNetwork {
  readonly transport: "pipe" | "tcp";
  readonly protocolName?: "http";
  readonly serverAddress?: string;
  readonly serverPort?: number;
}

/**
 * A bidirectional JSON-RPC message channel. Transports only move messages; ids, pending calls
 * and cancellation live in `JsonRpcConnection`.
 */
export interface Transport {
  start(): Promise<void>;
  send(message: JSONRPCMessage): Promise<void>;
  close(): Promise<void>;
  onmessage?: (message: JSONRPCMessage, info?: MessageInfo) => void;
  /**
   * The channel closed. `reason` says why when the transport knows (a stdio server that exited):
   * pending calls then fail with a `ConnectionClosedError` that names it.
   */
  onclose?: (reason?: Error) => void;
  onerror?: (error: Error) => void;
  /** Where the messages travel (absent in process): what a client's telemetry reports. */
  readonly network?: TransportNetwork;
  /**
   * Transport-native cancellation of an in-flight request (HTTP closes its stream). When absent,
   * the connection sends `notifications/cancelled`.
   */
  cancel?(requestId: RequestId, reason?: string): void;
  /**
   * HTTP only: what identifies the current authorization grant (the auth provider's `authGrant`).
   * A client drops its cached `private` results when it changes.
   */
  authGrant?(): unknown;
  /**
   * HTTP only: drops listed tools whose `x-mcp-header` declarations break the spec (warning for
   * each) and remembers the others for `Mcp-Param-*` mirroring.
   */
  filterListedTools?<T extends { name: string; inputSchema?: unknown }>(
    tools: readonly T[],
    warn: (message: string) => void,
  ): T[];
}
