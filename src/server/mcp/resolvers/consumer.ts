import { isInputRequiredResult } from "../../../types/core.js";
import type { Context } from "../context.js";
import { ToolError } from "../results.js";
import { buildResolverGraph } from "./graph.js";
import { resolveForLeg } from "./run.js";

/**
 * Wraps a consumer body (tool or prompt) that declared `resolve`: checks the graph now, at
 * registration; on each leg resolves the dependencies, answers `input_required` while anything is
 * pending, and runs the body only when everything is known.
 */
export function withResolvers<Args extends Record<string, unknown>>(
  owner: string,
  map: Readonly<Record<string, unknown>>,
  inputProperties: ReadonlySet<string> | undefined,
  body: (args: Args, resolved: Record<string, unknown>, ctx: Context) => unknown,
): (args: Args, ctx: Context) => Promise<unknown> {
  const graph = buildResolverGraph(owner, map, inputProperties);
  return async (args, ctx) => {
    const resolution = await resolveForLeg(graph, args, ctx);
    if (!resolution.complete) return resolution.result;
    const value = await body(args, resolution.values, ctx);
    if (isInputRequiredResult(value)) {
      // One call has one inputResponses/requestState channel: resolvers own it here.
      throw new ToolError(
        `${owner} declares resolvers, so its multi-round flow is driven by its resolvers; ` +
          "it cannot also return an InputRequiredResult from its body (drive the flow either by resolvers or by the body)",
      );
    }
    return value;
  };
}

/** The property names of an object JSON Schema (for checking which arguments resolvers read). */
export function schemaProperties(schema: Record<string, unknown>): ReadonlySet<string> | undefined {
  const properties = schema.properties;
  return typeof properties === "object" && properties !== null ? new Set(Object.keys(properties)) : undefined;
}
