// serverTelemetry() records the JSON-RPC error the client received, after each era's wire mapping
// of a handler's McpError (retired and reserved codes), not the code the handler threw.
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { Client } from "../../src/client/index.js";
import { serverTelemetry } from "../../src/otel/index.js";
import { MCPServer, silentLogger } from "../../src/server/index.js";
import { McpError } from "../../src/types/index.js";
import { RawLegacyClient } from "../legacy/helpers.js";
import { closers, exporter, installTracing, tracer } from "./tracing.js";

installTracing();

function codeThrowingServer(): MCPServer {
  const mcp = new MCPServer("codes", { logger: silentLogger, telemetry: serverTelemetry({ tracer }) });
  mcp.resource("notes://retired", {}, () => {
    throw new McpError(-32002, "no such note");
  });
  mcp.resource("notes://modern", {}, () => {
    throw new McpError(-32602, "no such note", { uri: "notes://modern" });
  });
  mcp.prompt("url", {}, () => {
    throw new McpError(-32042, "open the page first");
  });
  mcp.prompt("reserved", {}, () => {
    throw new McpError(-32050, "quota exceeded");
  });
  return mcp;
}

/** Each handled request's span: name, status code attribute, error.type and status. */
function spans() {
  return exporter
    .getFinishedSpans()
    .filter((span) => span.kind === SpanKind.SERVER && span.attributes["jsonrpc.request.id"] !== "1")
    .map((span) => [
      span.name,
      span.attributes["rpc.response.status_code"],
      span.attributes["error.type"],
      span.status,
    ]);
}

describe("serverTelemetry() and the error codes on the wire", () => {
  it("on 2026-07-28: retired and reserved codes are recorded as the client got them", async () => {
    const client = await Client.connect(codeThrowingServer());
    closers.push(() => client.close());
    const codes = [
      await client.readResource("notes://retired").catch((error: McpError) => error.code),
      await client.getPrompt("url", {}).catch((error: McpError) => error.code),
      await client.getPrompt("reserved", {}).catch((error: McpError) => error.code),
    ];
    expect(codes).toEqual([-32602, -32603, -32603]);
    expect(spans()).toEqual([
      ["resources/read", "-32602", undefined, { code: SpanStatusCode.UNSET }],
      [
        "prompts/get url",
        "-32603",
        "-32603",
        {
          code: SpanStatusCode.ERROR,
          message: "URL elicitation must be returned as an input_required result on protocol 2026-07-28",
        },
      ],
      ["prompts/get reserved", "-32603", "-32603", { code: SpanStatusCode.ERROR, message: "quota exceeded" }],
    ]);
  });

  it("on a 2025 session: a resource not found is -32002, and -32042 stays", async () => {
    const legacy = new RawLegacyClient(codeThrowingServer());
    await legacy.initialize({}, "2025-11-25");
    exporter.reset();
    const responses = [
      await legacy.request("resources/read", { uri: "notes://modern" }),
      await legacy.request("prompts/get", { name: "url" }),
    ];
    expect(responses.map((response) => (response as { error?: { code: number } }).error?.code)).toEqual([
      -32002, -32042,
    ]);
    expect(
      exporter.getFinishedSpans().map((span) => [span.name, span.attributes["rpc.response.status_code"]]),
    ).toEqual([
      ["resources/read", "-32002"],
      ["prompts/get url", "-32042"],
    ]);
  });
});
