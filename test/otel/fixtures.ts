// The shared fixtures of the telemetry tests: a server with telemetry first in its chain and tools
// that end in each way, a hand-built asking round, and a connected client.
import { context, propagation } from "@opentelemetry/api";
import * as z from "zod";
import { Client } from "../../src/client/index.js";
import { serverTelemetry } from "../../src/otel/index.js";
import { inputRequired, MCPServer, silentLogger } from "../../src/server/index.js";
import { ErrorCode, McpError } from "../../src/types/index.js";
import { closers, tracer } from "./tracing.js";

export const ELICIT = { action: "accept", content: { region: "eu-west-1" } } as const;

/** A hand-built round that asks for a region, its state the plain text "asked". */
export const askRegion = () =>
  inputRequired({
    inputRequests: {
      region: {
        method: "elicitation/create",
        params: { mode: "form", message: "Region?", requestedSchema: { type: "object", properties: {} } },
      },
    },
    requestState: "asked",
  });

/** A server with telemetry first in its chain and a few tools that end in each way. */
export function tracedServer(options: Parameters<typeof serverTelemetry>[0] = { tracer }): MCPServer {
  const mcp = new MCPServer("traced", { logger: silentLogger, telemetry: serverTelemetry(options) });
  mcp.tool("ask", { input: z.object({ name: z.string() }) }, (_args, ctx) =>
    ctx.requestState === "asked" ? "done" : askRegion(),
  );
  mcp.tool("nested", {}, () =>
    tracer.startActiveSpan("inner work", (span) => {
      span.end();
      return "ok";
    }),
  );
  mcp.tool("refuses", {}, () => {
    throw new McpError(ErrorCode.InvalidParams, "no such account");
  });
  mcp.tool("custom", {}, () => {
    throw new McpError(1001, "quota exceeded");
  });
  mcp.tool("crashes", {}, () => {
    throw new Error("connection string postgres://u:p@db failed");
  });
  mcp.tool("fails", {}, () => ({ content: [{ type: "text", text: "nope" }], isError: true }));
  mcp.prompt(
    "brief",
    { arguments: z.object({ audience: z.string() }) },
    ({ audience }) => `Brief for ${audience}`,
  );
  mcp.prompt("broken", {}, () => {
    throw new Error("connection string postgres://u:p@db failed");
  });
  mcp.resource("notes://today", {}, () => "nothing");
  return mcp;
}

/** The client side of SEP-414: the active trace context, as `_meta` keys. */
export function injectTraceContext(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

export async function connect(mcp: MCPServer, requestMeta?: () => Record<string, unknown>): Promise<Client> {
  const client = await Client.connect(mcp, { elicitation: async () => ELICIT, requestMeta });
  closers.push(() => client.close());
  return client;
}
