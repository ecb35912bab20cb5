// A tool whose input is a raw JSON Schema, and a question whose form is a plain object: no schema
// library in the app. `jsonSchema()` brings a full JSON Schema validator; a flat form needs none.
import { elicit, jsonSchema, MCPServer, resolver } from "roundtrip-mcp/server";

export const mcp = new MCPServer("Shipping");

const Parcel = jsonSchema<{ weightKg: number; destination: string }>({
  type: "object",
  properties: {
    weightKg: { type: "number", exclusiveMinimum: 0, maximum: 30 },
    destination: { type: "string", pattern: "^[A-Z]{2}$" },
  },
  required: ["weightKg", "destination"],
  additionalProperties: false,
});

const speed = resolver("speed", () =>
  elicit("How fast?", {
    type: "object",
    properties: {
      speed: {
        type: "string",
        oneOf: [
          { const: "standard", title: "Standard (5 days)" },
          { const: "express", title: "Express (1 day)" },
        ],
      },
    },
    required: ["speed"],
  }),
);

mcp.tool(
  "ship",
  { description: "Ship a parcel", input: Parcel, resolve: { speed } },
  ({ weightKg, destination }, { speed }) => `${weightKg} kg to ${destination}, ${String(speed.speed)}.`,
);
