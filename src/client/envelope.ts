/**
 * The `_meta` envelope of a 2026-07-28 request: the session's version, capabilities, identity and
 * log level on every request, since the protocol keeps no handshake state.
 */
import { MetaKey } from "../types/core.js";
import type { ClientCapabilities, Implementation, LoggingLevel } from "../types/index.js";

/** What an envelope is made of: the session's current settings. */
export interface EnvelopeFields {
  readonly protocolVersion: string;
  readonly capabilities: ClientCapabilities;
  readonly clientInfo: Implementation;
  readonly logLevel: LoggingLevel | undefined;
}

/** A fresh envelope: `extra` keys first, so the session's own keys win. */
export function buildEnvelope(
  fields: EnvelopeFields,
  extra: Record<string, unknown> | undefined,
  progressToken: string | undefined,
): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    ...extra,
    [MetaKey.ProtocolVersion]: fields.protocolVersion,
    [MetaKey.ClientCapabilities]: fields.capabilities,
    [MetaKey.ClientInfo]: fields.clientInfo,
  };
  if (fields.logLevel !== undefined) meta[MetaKey.LogLevel] = fields.logLevel;
  if (progressToken !== undefined) meta[MetaKey.ProgressToken] = progressToken;
  return meta;
}

/**
 * The envelope of a request with no extra `_meta`: built once per combination of version,
 * capabilities, client info and log level, and frozen, since every such request shares it.
 */
export class PlainEnvelope {
  #cached: (EnvelopeFields & { readonly meta: Readonly<Record<string, unknown>> }) | undefined;

  of(fields: EnvelopeFields): Record<string, unknown> {
    const cached = this.#cached;
    if (
      cached !== undefined &&
      cached.protocolVersion === fields.protocolVersion &&
      cached.capabilities === fields.capabilities &&
      cached.clientInfo === fields.clientInfo &&
      cached.logLevel === fields.logLevel
    ) {
      return cached.meta;
    }
    const meta = Object.freeze(buildEnvelope(fields, undefined, undefined));
    this.#cached = {
      protocolVersion: fields.protocolVersion,
      capabilities: fields.capabilities,
      clientInfo: fields.clientInfo,
      logLevel: fields.logLevel,
      meta,
    };
    return meta;
  }
}
