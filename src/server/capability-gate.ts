import { ErrorCode, McpError } from "../types/core.js";
import type { ClientCapabilities, InputRequest, InputRequests } from "../types/index.js";

/** A client capability an embedded request needs: its label and its `requiredCapabilities` shape. */
export interface RequiredCapability {
  readonly label: string;
  readonly shape: ClientCapabilities;
}

/**
 * The capability one embedded request needs, or undefined when the declared capabilities cover
 * it. A bare `elicitation: {}` counts as form-only, per the spec.
 */
export function missingCapabilityFor(
  request: InputRequest,
  declared: ClientCapabilities,
): RequiredCapability | undefined {
  switch (request.method) {
    case "elicitation/create": {
      const elicitation = declared.elicitation;
      if (request.params.mode === "url") {
        return elicitation?.url
          ? undefined
          : { label: "url elicitation", shape: { elicitation: { url: {} } } };
      }
      const formDeclared =
        elicitation !== undefined &&
        (elicitation.form !== undefined || (elicitation.form === undefined && elicitation.url === undefined));
      return formDeclared ? undefined : { label: "form elicitation", shape: { elicitation: { form: {} } } };
    }
    case "sampling/createMessage": {
      const sampling = declared.sampling;
      const usesTools = request.params.tools !== undefined || request.params.toolChoice !== undefined;
      const includeContext = request.params.includeContext;
      const usesContext = includeContext !== undefined && includeContext !== "none";
      if (sampling === undefined) {
        // Everything the request needs at once, so a client that adds it is not refused again.
        const needs: Record<string, object> = {};
        if (usesTools) needs.tools = {};
        if (usesContext) needs.context = {};
        return { label: "sampling", shape: { sampling: needs } };
      }
      if (usesTools && sampling.tools === undefined) {
        return { label: "sampling.tools", shape: { sampling: { tools: {} } } };
      }
      if (usesContext && sampling.context === undefined) {
        return { label: "sampling.context", shape: { sampling: { context: {} } } };
      }
      return undefined;
    }
    case "roots/list":
      return declared.roots ? undefined : { label: "roots", shape: { roots: {} } };
  }
}

function mergeShapes(shapes: readonly ClientCapabilities[]): ClientCapabilities {
  const merged: Record<string, Record<string, unknown>> = {};
  for (const shape of shapes) {
    for (const [key, value] of Object.entries(shape)) {
      merged[key] = { ...merged[key], ...(value as Record<string, unknown>) };
    }
  }
  return merged as ClientCapabilities;
}

/**
 * Refuses (-32021 with `data.requiredCapabilities`) an `input_required` result that would send
 * the client a request kind it did not declare on this request. Nothing undeclared ever leaves.
 */
export function assertInputRequestsDeclared(requests: InputRequests, declared: ClientCapabilities): void {
  const missing: { key: string; need: RequiredCapability }[] = [];
  for (const [key, request] of Object.entries(requests)) {
    const need = missingCapabilityFor(request, declared);
    if (need) missing.push({ key, need });
  }
  if (missing.length === 0) return;
  const labels = [...new Set(missing.map((m) => m.need.label))].join(", ");
  const keys = missing.map((m) => `'${m.key}'`).join(", ");
  throw new McpError(
    ErrorCode.MissingRequiredClientCapability,
    `Client did not declare the ${labels} capability required by input request ${keys}`,
    { requiredCapabilities: mergeShapes(missing.map((m) => m.need.shape)) },
  );
}
