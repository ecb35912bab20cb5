// The `provision` tool's input as a raw JSON Schema, the same for both SDKs' schema-library-free entries.
export const NAME_INPUT = {
  type: "object",
  properties: { name: { type: "string" } },
  required: ["name"],
} as const;
