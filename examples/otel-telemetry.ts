// Tracing a multi-round-trip call end to end with OpenTelemetry: each round the client sends is a
// CLIENT span whose context travels in the request's _meta (SEP-414), the server's span for that
// round is its child, and the handler's own spans nest under that. The application sets up its
// OpenTelemetry SDK.
import { trace } from "@opentelemetry/api";
import { Client } from "roundtrip-mcp/client";
import { clientTelemetry, serverTelemetry } from "roundtrip-mcp/otel";
import { elicit, MCPServer, resolver } from "roundtrip-mcp/server";
import * as z from "zod";

// First in the chain: spans cover request-state checks and sealing, and requests refused earlier.
export const mcp = new MCPServer("Provisioner", { telemetry: serverTelemetry() });

const askRegion = resolver("ask_region", () =>
  elicit("Which region should the database live in?", z.object({ region: z.string() })),
);

mcp.tool(
  "provision",
  {
    description: "Provision a database.",
    input: z.object({ name: z.string() }),
    resolve: { region: askRegion },
  },
  ({ name }, { region }) =>
    // A child of this round's server span.
    trace.getTracer("provisioner").startActiveSpan("create database", (span) => {
      span.end();
      return `Provisioned '${name}' in ${region.region}.`;
    }),
);

/** A client that traces every request it sends, MRTR retries included. */
export function tracedClient() {
  return Client.connect(mcp, {
    elicitation: async () => ({ action: "accept", content: { region: "eu-west-1" } }),
    instrument: clientTelemetry(),
  });
}
