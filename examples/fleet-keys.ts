// Several instances, one key ring: any instance verifies what a sibling sealed. Same name, same keys.
import { MCPServer, RequestStateSecurity } from "roundtrip-mcp/server";
import * as z from "zod";

/** In production: read from your secret store; each key is ≥ 32 bytes. */
export function loadKeys(env: Record<string, string | undefined> = process.env): string[] {
  // Trimmed, as examples/fleet reads the same variable: "NEW, OLD" must name the very keys "NEW,OLD"
  // does, or an instance mid-rotation opens nothing its siblings sealed.
  const keys = (env.ROUNDTRIP_STATE_KEYS ?? "")
    .split(",")
    .map((k) => k.trim())
    .filter((k) => k.length > 0);
  if (keys.length === 0)
    throw new Error("Set ROUNDTRIP_STATE_KEYS to one or more comma-separated keys (≥ 32 bytes each)");
  return keys;
}

/** Key rotation, three phases, each fully deployed before the next. */
export const rotation = {
  phase1: (oldKey: string, newKey: string) => new RequestStateSecurity({ keys: [oldKey, newKey] }), // learn NEW
  phase2: (oldKey: string, newKey: string) => new RequestStateSecurity({ keys: [newKey, oldKey] }), // NEW mints
  phase3: (newKey: string) => new RequestStateSecurity({ keys: [newKey] }), // one ttl later: retire OLD
};

/** One instance of the fleet. */
export function createInstance(security: RequestStateSecurity): MCPServer {
  const mcp = new MCPServer("fleet", { requestStateSecurity: security });
  mcp.tool("count", { input: z.object({ to: z.number().int().min(1).max(5) }) }, ({ to }, ctx) => {
    const seen = Number(ctx.requestState ?? "0");
    return seen >= to
      ? `Counted to ${to}.`
      : { resultType: "input_required", requestState: String(seen + 1) };
  });
  return mcp;
}
