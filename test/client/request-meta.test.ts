import { describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { silentLogger } from "../../src/server/logger.js";
import { Server } from "../../src/server/server.js";
import type { CallToolResult, InputRequiredResult } from "../../src/types/index.js";
import { buildDualEraServer } from "../fixtures/legacy/dual-era.js";
import { ELICIT } from "./stubs.js";

/** A server that records every request's `_meta` and asks once on `ask`. */
function recordingServer() {
  const metas: { method: string; meta: Record<string, unknown> }[] = [];
  const server = new Server("meta", {
    logger: silentLogger,
    onListTools: (ctx) => {
      metas.push({ method: ctx.method, meta: ctx.params._meta as Record<string, unknown> });
      return { tools: [] };
    },
    onCallTool: (ctx, params): CallToolResult | InputRequiredResult => {
      metas.push({ method: ctx.method, meta: ctx.params._meta as Record<string, unknown> });
      if (params.inputResponses === undefined) {
        return { resultType: "input_required", inputRequests: { q: ELICIT } };
      }
      return { content: [{ type: "text", text: "done" }] };
    },
  });
  return { server, metas };
}

const traceparent = (n: number) => `00-${String(n).padStart(32, "0")}-${"0".repeat(15)}1-01`;

describe("requestMeta: extra _meta on every request", () => {
  it("is asked for each request, each leg of a multi-round call included", async () => {
    const { server, metas } = recordingServer();
    let spans = 0;
    const client = await Client.connect(server, {
      elicitation: () => ({ action: "accept", content: { name: "x" } }),
      requestMeta: () => ({ traceparent: traceparent(++spans), baggage: "tenant=acme" }),
    });
    await client.callTool("ask");
    const legs = metas.filter((entry) => entry.method === "tools/call");
    expect(legs).toHaveLength(2);
    expect(legs.map((leg) => leg.meta.traceparent)).toEqual([traceparent(2), traceparent(3)]); // 1: the probe
    expect(legs.every((leg) => leg.meta.baggage === "tenant=acme")).toBe(true);
    expect(legs[0]?.meta["io.modelcontextprotocol/protocolVersion"]).toBe("2026-07-28");
    await client.close();
  });

  it("loses to a request's own meta, and never to the envelope", async () => {
    const { server, metas } = recordingServer();
    const client = await Client.connect(server, {
      requestMeta: () => ({
        traceparent: traceparent(1),
        "io.modelcontextprotocol/protocolVersion": "1999-01-01",
      }),
    });
    await client.listTools(undefined, { meta: { traceparent: traceparent(9) }, cacheMode: "bypass" });
    const [listed] = metas;
    expect(listed?.meta.traceparent).toBe(traceparent(9));
    expect(listed?.meta["io.modelcontextprotocol/protocolVersion"]).toBe("2026-07-28");
    await client.close();
  });

  it("rides the 2025 wire too, where it is the only _meta", async () => {
    const seen: unknown[] = [];
    const mcp = buildDualEraServer();
    mcp.server.middleware.push(async (ctx, next) => {
      seen.push(ctx.params._meta);
      return next(ctx);
    });
    const client = await Client.connect(mcp, {
      mode: "legacy",
      requestMeta: () => ({ traceparent: traceparent(5) }),
    });
    await client.callTool("era");
    expect(seen.at(-1)).toMatchObject({ traceparent: traceparent(5) });
    await client.close();
  });
});

describe("instrument: an observer of every request", () => {
  it("sees each request go out and end once, with the checked result or the error", async () => {
    const { server, metas } = recordingServer();
    const seen: string[] = [];
    const client = await Client.connect(server, {
      elicitation: () => ({ action: "accept", content: { name: "x" } }),
      instrument: (method, params) => {
        seen.push(`start ${method} ${JSON.stringify(params.inputResponses ?? null)}`);
        return {
          meta: { traceparent: traceparent(seen.length) },
          end: (outcome) =>
            seen.push(
              "result" in outcome
                ? `end ${method} ${String(outcome.result.resultType ?? "complete")}`
                : `fail ${method} ${(outcome.error as Error).message}`,
            ),
        };
      },
    });
    await client.callTool("ask");
    await client.session.request("nope/nothing").catch(() => {});
    expect(seen).toEqual([
      "start server/discover null",
      "end server/discover complete",
      "start tools/call null",
      "end tools/call input_required",
      'start tools/call {"q":{"action":"accept","content":{"name":"x"}}}',
      "end tools/call complete",
      "start nope/nothing null",
      "fail nope/nothing Method not found: nope/nothing",
    ]);
    const legs = metas.filter((entry) => entry.method === "tools/call");
    expect(legs.map((leg) => leg.meta.traceparent)).toEqual([traceparent(3), traceparent(5)]);
    await client.close();
  });

  it("merges _meta as requestMeta < instrument < the call's own meta < the envelope", async () => {
    const { server, metas } = recordingServer();
    const client = await Client.connect(server, {
      requestMeta: () => ({ a: "requestMeta", b: "requestMeta", c: "requestMeta" }),
      instrument: () => ({
        meta: { b: "instrument", c: "instrument", "io.modelcontextprotocol/protocolVersion": "1999-01-01" },
        end: () => {},
      }),
    });
    await client.listTools(undefined, { meta: { c: "call" }, cacheMode: "bypass" });
    const [listed] = metas;
    expect(listed?.meta).toMatchObject({
      a: "requestMeta",
      b: "instrument",
      c: "call",
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    });
    await client.close();
  });

  it("ends the observation when the request fails before it is sent", async () => {
    const { server } = recordingServer();
    const ended: unknown[] = [];
    const client = await Client.connect(server, {
      requestMeta: (method) => {
        if (method === "tools/list") throw new Error("requestMeta broke");
        return undefined;
      },
      instrument: () => ({ end: (outcome) => ended.push(outcome) }),
    });
    ended.length = 0;
    await expect(client.listTools(undefined, { cacheMode: "bypass" })).rejects.toThrow("requestMeta broke");
    expect(ended).toEqual([{ error: expect.objectContaining({ message: "requestMeta broke" }) }]);
    await client.close();
  });
});
