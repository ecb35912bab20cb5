// The `provision` tool of the bundle-size entries (roundtrip side), shared by the stdio and web
// servers: its input described with zod, as the workload's app does.
import * as z from "zod";
import { provisionerWith } from "./ours-provision-tool.js";

export const provisioner = () => provisionerWith(z.object({ name: z.string() }));
