// The `provision` tool with its input as a raw JSON Schema, so the app loads no schema library:
// swapped in for ours-provisioner.ts by the "raw JSON Schema" bundle rows. `jsonSchema()` brings the
// JSON Schema validator, as their `fromJsonSchema` does.
import { jsonSchema } from "../../src/server/index.js";
import { NAME_INPUT } from "./name-input.js";
import { provisionerWith } from "./ours-provision-tool.js";

export const provisioner = () => provisionerWith(jsonSchema(NAME_INPUT));
