import type { ServerCapabilities } from "../types/index.js";

/**
 * Server capabilities derived from the methods actually served: a capability is advertised only
 * when something behind it is registered.
 */
export function deriveCapabilities(
  methods: ReadonlySet<string>,
  extra: ServerCapabilities = {},
): ServerCapabilities {
  const capabilities: ServerCapabilities = {};
  if (methods.has("tools/list") || methods.has("tools/call")) capabilities.tools = {};
  if (methods.has("prompts/list") || methods.has("prompts/get")) capabilities.prompts = {};
  if (
    methods.has("resources/list") ||
    methods.has("resources/read") ||
    methods.has("resources/templates/list")
  ) {
    capabilities.resources = {};
  }
  if (methods.has("completion/complete")) capabilities.completions = {};
  for (const [key, value] of Object.entries(extra)) {
    const current = capabilities[key];
    capabilities[key] =
      typeof current === "object" && current !== null && typeof value === "object" && value !== null
        ? { ...current, ...value }
        : value;
  }
  return capabilities;
}
