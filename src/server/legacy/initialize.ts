/** The 2025 `initialize` handshake, server side: version negotiation and the `InitializeResult`. */

import {
  describeFailure,
  ErrorCode,
  LATEST_LEGACY_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  McpError,
  validInitializeRequestParams,
} from "../../types/core.js";
import type { ServerCapabilities } from "../../types/index.js";
import type { InitializeRequestParams, InitializeResult } from "../../types/legacy.js";
import type { LegacyCore } from "./serve.js";

/**
 * The version a 2025 server answers `initialize` with: the requested one when served, else the
 * newest handshake-era version (the client decides whether it can live with it).
 *
 * @example
 * negotiateLegacyVersion("2025-06-18"); // "2025-06-18"
 * negotiateLegacyVersion("2026-07-28"); // "2025-11-25": the modern era is reached without initialize
 */
export function negotiateLegacyVersion(requested: string): string {
  return LEGACY_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_LEGACY_PROTOCOL_VERSION;
}

/**
 * The params of an `initialize` request, or -32602 naming what is wrong.
 *
 * @example
 * parseInitialize({ protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } });
 */
export function parseInitialize(params: unknown): InitializeRequestParams {
  const hello = params ?? {};
  if (validInitializeRequestParams(hello)) return hello as InitializeRequestParams;
  throw new McpError(
    ErrorCode.InvalidParams,
    `Invalid params for initialize: ${describeFailure(validInitializeRequestParams, hello)}`,
  );
}

/**
 * The server capabilities a 2025 client sees: what the 2026 server advertises, minus what has no
 * meaning on a legacy session here (list-changed and subscriptions live on 2026 listen streams;
 * `extensions` is a 2026 field).
 *
 * @example
 * legacyCapabilities({ tools: { listChanged: true }, logging: {} }); // { tools: {}, logging: {} }
 */
export function legacyCapabilities(capabilities: ServerCapabilities): ServerCapabilities {
  const out: ServerCapabilities = {};
  for (const [key, value] of Object.entries(capabilities)) {
    if (key === "extensions") continue;
    if ((key === "tools" || key === "prompts" || key === "resources") && typeof value === "object") {
      const { listChanged: _l, subscribe, ...rest } = value as Record<string, unknown>;
      // Resource subscriptions are served per session (resources/subscribe, updates on its stream).
      out[key] = key === "resources" && subscribe === true ? { ...rest, subscribe: true } : rest;
      continue;
    }
    out[key] = value;
  }
  return out;
}

/**
 * The `InitializeResult` for a negotiated version. Legacy results carry no `resultType`, no
 * cache hints and no serverInfo stamp: identity travels in `serverInfo`, once.
 *
 * @example
 * initializeResult(server, "2025-06-18").serverInfo; // { name: "fleet", version: "1.0.0" }
 */
export function initializeResult(core: LegacyCore, protocolVersion: string): InitializeResult {
  const result: InitializeResult = {
    protocolVersion,
    capabilities: legacyCapabilities(core.capabilities),
    serverInfo: core.serverInfo,
  };
  if (core.instructions !== undefined) result.instructions = core.instructions;
  return result;
}
