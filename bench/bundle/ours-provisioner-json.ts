// The `provision` tool with its input as a raw JSON Schema, so the app loads no schema library:
// swapped in for ours-provisioner.ts by the "raw JSON Schema" bundle rows.
import { NAME_INPUT } from "./name-input.js";
import { provisionerWith } from "./ours-provision-tool.js";

export const provisioner = () => provisionerWith(NAME_INPUT);
