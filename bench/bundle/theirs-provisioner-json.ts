// The `provision` tool with its input as a raw JSON Schema through their `fromJsonSchema`, so the app
// loads no schema library: swapped in for theirs-provisioner.ts by the "raw JSON Schema" bundle rows.
import { fromJsonSchema } from "@modelcontextprotocol/server";
import { NAME_INPUT } from "./name-input.js";
import { provisionerWith } from "./theirs-provision-tool.js";

export const provisioner = provisionerWith(fromJsonSchema<{ name: string }>(NAME_INPUT));
