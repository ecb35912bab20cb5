import { TASKS_EXTENSION } from "../types/core.js";
import type { ServerCapabilities } from "../types/index.js";

/**
 * Server capabilities derived from the methods actually served: a capability is advertised only
 * when something behind it is registered.
 */
export function deriveCapabilities(
  methods: ReadonlySet<string>,
  extra: ServerCapabilities = {},
  listChanged = false,
): ServerCapabilities {
  const capabilities: ServerCapabilities = {};
  // With listen streams on, every registered kind can announce its changes.
  const changes = listChanged ? { listChanged: true } : {};
  if (methods.has("tools/list") || methods.has("tools/call")) capabilities.tools = { ...changes };
  if (methods.has("prompts/list") || methods.has("prompts/get")) capabilities.prompts = { ...changes };
  if (
    methods.has("resources/list") ||
    methods.has("resources/read") ||
    methods.has("resources/templates/list")
  ) {
    capabilities.resources = listChanged ? { subscribe: true, listChanged: true } : {};
  }
  if (methods.has("completion/complete")) capabilities.completions = {};
  // Serving tasks/get is what the Tasks extension's advertisement promises.
  if (methods.has("tasks/get")) capabilities.extensions = { [TASKS_EXTENSION]: {} };
  for (const [key, value] of Object.entries(extra)) {
    const current = capabilities[key];
    capabilities[key] =
      typeof current === "object" && current !== null && typeof value === "object" && value !== null
        ? { ...current, ...value }
        : value;
  }
  return capabilities;
}
