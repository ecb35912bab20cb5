/**
 * The opt-in legacy shim: write-once handlers that return an InputRequiredResult also serve 2025
 * clients. Each round goes out through the back-channel and re-enters the handler through the
 * same request-state boundary; rounds and time are bounded.
 */
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../src/server/logger.js";
import { elicitationRequest, inputRequired } from "../../src/server/mcp/input.js";
import { MCPServer } from "../../src/server/mcp/mcp-server.js";
import { Server } from "../../src/server/server.js";
import { AesGcmRequestStateCodec } from "../../src/server/state/codec.js";
import { RequestStateSecurity } from "../../src/server/state/policy.js";
import type { Dispatcher } from "../../src/shared/dispatch.js";
import type { CallToolResult, ClientCapabilities, InputRequiredResult } from "../../src/types/index.js";
import { buildDualEraServer, REGION } from "../fixtures/legacy/dual-era.js";
import { acceptRegion, envelope, errorText, RawLegacyClient, text } from "./helpers.js";

const ELICIT = { elicitation: {} };

async function shimmed(
  server: Dispatcher = buildDualEraServer({ legacyShim: true }),
  capabilities: ClientCapabilities = ELICIT,
) {
  const client = new RawLegacyClient(server);
  await client.initialize(capabilities);
  return client;
}

describe("legacyShim fulfils hand-built InputRequiredResults through the back-channel", () => {
  it("a tool: one elicitation/create, the handler re-entered with the answer and its plaintext state", async () => {
    const client = await shimmed();
    const response = await client.call("handbuilt", { name: "db" });
    expect(response).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: text("Handbuilt db in eu-west-1 (state handbuilt-v1, 2025-11-25)."),
    });
    expect(client.serverRequests.map((r) => r.method)).toEqual(["elicitation/create"]);
    // The state never crosses the legacy wire, sealed or not.
    expect(JSON.stringify(client.written)).not.toContain("requestState");
    expect(JSON.stringify(client.written)).not.toContain("handbuilt-v1");
  });

  it("a prompt and a resource template", async () => {
    const client = await shimmed();
    client.answer = (request) =>
      (request.params as { message: string }).message === "Who is it for?"
        ? { result: { action: "accept", content: { audience: "the board" } } }
        : acceptRegion("ap-south-1");
    expect(await client.request("prompts/get", { name: "briefing" })).toMatchObject({
      result: {
        messages: [{ role: "user", content: { type: "text", text: "Write a briefing for the board." } }],
      },
    });
    expect(await client.request("resources/read", { uri: "reports://q3" })).toMatchObject({
      result: { contents: [{ uri: "reports://q3", text: "Report q3 for ap-south-1" }] },
    });
  });

  it("verifies the state each round through the boundary (one seal, one unseal per round)", async () => {
    const inner = new AesGcmRequestStateCodec(["k".repeat(32)]);
    const calls: string[] = [];
    const codec = {
      seal: (payload: Uint8Array) => {
        calls.push("seal");
        return inner.seal(payload);
      },
      unseal: (token: string) => {
        calls.push("unseal");
        return inner.unseal(token);
      },
    };
    const server = buildDualEraServer({
      legacyShim: true,
      requestStateSecurity: new RequestStateSecurity({ codec }),
    });
    const client = await shimmed(server);
    expect(await client.call("handbuilt", { name: "db" })).toMatchObject({
      result: { content: [{ type: "text" }] },
    });
    expect(calls).toEqual(["seal", "unseal"]);
  });

  it("the low-level Server takes it as legacy: { shim }", async () => {
    const server = new Server("Provisioner", {
      logger: silentLogger,
      legacy: { shim: { maxRounds: 2 } },
      onCallTool: (_ctx, params): CallToolResult | InputRequiredResult => {
        const answer = params.inputResponses?.region as { content?: { region?: string } } | undefined;
        if (answer?.content?.region === undefined) {
          return inputRequired({
            inputRequests: { region: elicitationRequest("Region?", REGION) },
            requestState: "v1",
          });
        }
        return { content: [{ type: "text", text: `${params.requestState} ${answer.content.region}` }] };
      },
    });
    const client = await shimmed(server);
    expect(await client.call("provision")).toMatchObject({ result: text("v1 eu-west-1") });
  });
});

describe("the shim's bounds and refusals", () => {
  function forever() {
    const mcp = new MCPServer("forever", {
      logger: silentLogger,
      legacyShim: { maxRounds: 3, roundTimeoutMs: 40 },
    });
    let rounds = 0;
    mcp.tool("ask", {}, () => {
      rounds++;
      return inputRequired({ inputRequests: { region: elicitationRequest("Again?", REGION) } });
    });
    mcp.prompt("ask", {}, () =>
      inputRequired({ inputRequests: { region: elicitationRequest("Again?", REGION) } }),
    );
    mcp.tool("later", {}, (_args, ctx) => {
      const step = Number(ctx.requestState ?? "0");
      return step < 2
        ? inputRequired({ requestState: String(step + 1) })
        : `done after ${step} state-only rounds`;
    });
    return { mcp, rounds: () => rounds };
  }

  it("gives up after maxRounds: isError for a tool, -32603 for a prompt", async () => {
    const { mcp, rounds } = forever();
    const client = await shimmed(mcp);
    expect(await client.call("ask")).toMatchObject({
      result: errorText(
        "tools/call needed input that could not be obtained from the client: it still required input after 3 rounds",
      ),
    });
    expect(rounds()).toBe(4);
    expect(client.serverRequests).toHaveLength(3);
    expect(await client.request("prompts/get", { name: "ask" })).toMatchObject({
      error: { code: -32603, message: expect.stringContaining("after 3 rounds") },
    });
  });

  it("bounds each round in time (roundTimeoutMs)", async () => {
    const client = await shimmed(forever().mcp);
    client.answer = () => new Promise(() => {});
    expect(await client.call("ask")).toMatchObject({
      result: errorText(
        "tools/call needed input that could not be obtained from the client: no answer to elicitation/create within 40 ms",
      ),
    });
  });

  it("paces state-only rounds (50 ms, then 100 ms)", async () => {
    const client = await shimmed(forever().mcp);
    const started = Date.now();
    expect(await client.call("later")).toMatchObject({ result: text("done after 2 state-only rounds") });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(client.serverRequests).toEqual([]);
  });

  it("checks the capabilities declared at initialize first (-32021 naming the input request)", async () => {
    const client = await shimmed(buildDualEraServer({ legacyShim: true }), {});
    expect(await client.call("handbuilt", { name: "db" })).toEqual({
      jsonrpc: "2.0",
      id: 2,
      error: {
        code: -32021,
        message: "Client did not declare the form elicitation capability required by input request 'region'",
        data: { requiredCapabilities: { elicitation: { form: {} } } },
      },
    });
    expect(client.serverRequests).toEqual([]);
  });

  it("never touches a modern request: it still answers input_required", async () => {
    const server = buildDualEraServer({ legacyShim: true });
    const response = await server.dispatch({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "handbuilt", arguments: { name: "db" }, _meta: envelope(ELICIT) },
    });
    expect(response).toMatchObject({
      result: { resultType: "input_required", inputRequests: { region: {} } },
    });
  });

  it.each([
    ["a malformed input_required result", { region: { method: "tools/call" } }],
    [
      "a question under the key __proto__",
      JSON.parse(`{"__proto__":${JSON.stringify(elicitationRequest("Region?", REGION))}}`),
    ],
    [
      "a sampling question whose tool_result answers no tool_use",
      {
        llm: {
          method: "sampling/createMessage",
          params: {
            maxTokens: 5,
            messages: [{ role: "user", content: { type: "tool_result", toolUseId: "t", content: [] } }],
          },
        },
      },
    ],
  ])("answers -32603 for %s instead of asking anything", async (_label, inputRequests) => {
    const server = new Server("malformed", {
      logger: silentLogger,
      legacy: { shim: true },
      onCallTool: () => ({ resultType: "input_required", inputRequests }) as never,
    });
    const client = await shimmed(server);
    expect(await client.call("provision")).toMatchObject({
      error: { code: -32603, message: "Handler returned an invalid result" },
    });
    expect(client.serverRequests).toEqual([]);
  });

  it("refuses nonsense options at construction", () => {
    expect(() => new MCPServer("x", { legacyShim: { maxRounds: 0 } })).toThrow(RangeError);
    expect(() => new MCPServer("x", { legacyShim: { roundTimeoutMs: -1 } })).toThrow(RangeError);
    expect(() => new Server("x", { legacy: { requestTimeoutMs: Number.NaN } })).toThrow(RangeError);
  });
});

describe("a request cancelled while its handler ran, which then answers input_required", () => {
  it("asks the client nothing and ends at once: no question left waiting out roundTimeoutMs", async () => {
    const mcp = new MCPServer("late", { logger: silentLogger, legacyShim: { roundTimeoutMs: 60_000 } });
    // A handler that does not stop on cancellation, and asks for input afterwards.
    mcp.tool("stubborn", {}, async (_args, ctx) => {
      await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
      return inputRequired({ inputRequests: { region: elicitationRequest("Which region?", REGION) } });
    });
    const client = await shimmed(mcp);
    const controller = new AbortController();
    const call = client.request("tools/call", { name: "stubborn", arguments: {} }, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    const outcome = await Promise.race([
      call,
      new Promise((resolve) => setTimeout(() => resolve("still running"), 500)),
    ]);
    expect(outcome).toBeUndefined();
    expect(client.connection.session?.busy).toBe(false);
    expect(client.written.filter((m) => m.method !== undefined)).toEqual([]);
  });
});
