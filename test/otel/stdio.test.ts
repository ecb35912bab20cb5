// serverTelemetry() over stdio: every span says `network.transport: "pipe"` (the conventions' value
// for stdio) and nothing of HTTP, on both eras, handled or refused before the chain. serveStdio runs
// in process on stream pairs, so the spans land in this test's exporter.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { serverTelemetry } from "../../src/otel/index.js";
import { MCPServer, silentLogger } from "../../src/server/index.js";
import { serveStdio } from "../../src/transports/stdio/server.js";
import { ENVELOPE, until } from "../transports/stdio/helpers.js";
import { closers, exporter, installTracing, tracer } from "./tracing.js";

installTracing();

/** A traced server on an in-process stdio pipe: write request lines, count answered lines. */
function stdioServer() {
  const mcp = new MCPServer("piped", { logger: silentLogger, telemetry: serverTelemetry({ tracer }) });
  mcp.tool("echo", { input: z.object({ text: z.string() }) }, ({ text }) => text);
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const lines: string[] = [];
  stdout.on("data", (chunk: Buffer) => lines.push(...chunk.toString("utf8").split("\n").filter(Boolean)));
  const handle = serveStdio(mcp, { stdin, stdout, logger: silentLogger });
  closers.push(async () => {
    stdin.end();
    await handle.closed;
  });
  const write = (message: Record<string, unknown>) =>
    stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  return { write, answered: (count: number) => until(() => lines.length >= count, `${count} answers`) };
}

/** Requests run concurrently over stdio: spans in request id order. */
const spans = () =>
  exporter
    .getFinishedSpans()
    .map((span) => ({ name: span.name, attributes: span.attributes }))
    .sort((a, b) => Number(a.attributes["jsonrpc.request.id"]) - Number(b.attributes["jsonrpc.request.id"]));

const echo = {
  "mcp.method.name": "tools/call",
  "gen_ai.tool.name": "echo",
  "gen_ai.operation.name": "execute_tool",
};

describe('serverTelemetry() over stdio: network.transport "pipe"', () => {
  it("on 2026-07-28 requests, handled and refused", async () => {
    const { write, answered } = stdioServer();
    write({
      id: 1,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "hi" }, _meta: ENVELOPE },
    });
    write({ id: 2, method: "acme/unknown", params: { _meta: ENVELOPE } });
    await answered(2);
    const modern = { "mcp.protocol.version": "2026-07-28", "network.transport": "pipe" };
    expect(spans()).toEqual([
      { name: "tools/call echo", attributes: { ...echo, ...modern, "jsonrpc.request.id": "1" } },
      {
        name: "_OTHER",
        attributes: {
          "mcp.method.name": "_OTHER",
          ...modern,
          "jsonrpc.request.id": "2",
          "rpc.response.status_code": "-32601",
        },
      },
    ]);
  });

  it("on a 2025 session: what the session answers, what it runs, what it refuses", async () => {
    const { write, answered } = stdioServer();
    const clientInfo = { name: "old", version: "1" };
    write({
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo },
    });
    await answered(1);
    write({ method: "notifications/initialized" });
    write({ id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } });
    write({ id: 3, method: "acme/unknown" });
    await answered(3);
    const legacy = { "mcp.protocol.version": "2025-11-25", "network.transport": "pipe" };
    expect(spans()).toEqual([
      {
        name: "initialize",
        attributes: { "mcp.method.name": "initialize", ...legacy, "jsonrpc.request.id": "1" },
      },
      { name: "tools/call echo", attributes: { ...echo, ...legacy, "jsonrpc.request.id": "2" } },
      {
        name: "_OTHER",
        attributes: {
          "mcp.method.name": "_OTHER",
          ...legacy,
          "jsonrpc.request.id": "3",
          "rpc.response.status_code": "-32601",
        },
      },
    ]);
  });
});
