// Tracing a multi-round-trip call end to end with OpenTelemetry: the client puts its trace context
// in every request's _meta (SEP-414), each round the server handles becomes a span of that trace,
// and the handler's own spans nest under it. The application sets up its OpenTelemetry SDK.
import { context, propagation, trace } from "@opentelemetry/api";
import { Client } from "roundtrip-mcp/client";
import { tracing } from "roundtrip-mcp/otel";
import { elicit, MCPServer, resolver } from "roundtrip-mcp/server";
import * as z from "zod";

export const mcp = new MCPServer("Provisioner");
// First in the chain: the span covers request-state checks and sealing, and a refused state is traced.
mcp.server.middleware.unshift(tracing());

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

/** A client that sends the active trace context with every request, MRTR retries included. */
export function tracedClient() {
  return Client.connect(mcp, {
    elicitation: async () => ({ action: "accept", content: { region: "eu-west-1" } }),
    requestMeta: () => {
      const carrier: Record<string, string> = {};
      propagation.inject(context.active(), carrier);
      return carrier;
    },
  });
}
