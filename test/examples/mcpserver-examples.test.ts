import { describe, expect, it } from "vitest";
import { ASK_AUDIENCE, mcp as briefing } from "../../examples/briefing-prompt.js";
import { mcp as shipping } from "../../examples/json-schema-tool.js";
import { ASK_REGION, mcp as provisioner } from "../../examples/provisioner-mcpserver.js";
import { mcp as reports } from "../../examples/resource-template-ask.js";
import { completeSignIn, mcp as github } from "../../examples/url-elicitation.js";
import { ClientSession, type ClientSessionOptions } from "../../src/client/session.js";
import { silentLogger } from "../../src/server/logger.js";
import type { Dispatcher } from "../../src/shared/dispatch.js";
import { MemoryTransport } from "../../src/transports/memory.js";
import { isInputRequiredResult } from "../../src/types/index.js";
import { wireTap } from "../helpers.js";

for (const server of [briefing, provisioner, reports, github, shipping])
  server.server.logger.warn = silentLogger.warn;

const FORM = { capabilities: { elicitation: { form: {} } } };

async function connect(target: Dispatcher, options: ClientSessionOptions = FORM) {
  const tap = wireTap();
  const session = await ClientSession.connect(new MemoryTransport(target, { onWire: tap.onWire }), options);
  return { session, tap };
}

describe("examples/briefing-prompt", () => {
  it("asks who the briefing is for, then returns the messages", async () => {
    const { session, tap } = await connect(briefing);
    const first = await session.getPrompt("briefing", undefined, { allowInputRequired: true });
    expect(first).toEqual({
      resultType: "input_required",
      inputRequests: { audience: ASK_AUDIENCE },
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "Briefing", version: "" } },
    });
    const second = await session.getPrompt("briefing", undefined, {
      allowInputRequired: true,
      inputResponses: { audience: { action: "accept", content: { audience: "the board" } } },
    });
    expect(second).toEqual({
      description: "Draft a briefing tuned to its audience.",
      messages: [{ role: "user", content: { type: "text", text: "Write a briefing for the board." } }],
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "Briefing", version: "" } },
    });
    expect(tap.sent().map((m) => (m.params as Record<string, unknown>).inputResponses)).toEqual([
      undefined,
      { audience: { action: "accept", content: { audience: "the board" } } },
    ]);
  });

  it("lists the prompt", async () => {
    const { session } = await connect(briefing);
    expect((await session.listPrompts()).prompts).toEqual([
      { name: "briefing", description: "Draft a briefing tuned to its audience." },
    ]);
  });
});

describe("examples/provisioner-mcpserver", () => {
  it("seals its hand-built state on the wire and completes on a faithful echo", async () => {
    const { session, tap } = await connect(provisioner);
    const first = await session.callTool("provision", { name: "orders" }, { allowInputRequired: true });
    if (!isInputRequiredResult(first)) throw new Error("expected a question");
    expect(first.inputRequests).toEqual({ region: ASK_REGION });
    expect(first.requestState).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(JSON.stringify(tap.received())).not.toContain("provision/ask-region/v1");
    const done = await session.callTool(
      "provision",
      { name: "orders" },
      {
        inputResponses: { region: { action: "accept", content: { region: "eu-west-1" } } },
        requestState: first.requestState,
      },
    );
    expect(done.content).toEqual([{ type: "text", text: "Provisioned 'orders' in eu-west-1." }]);
  });

  it("renders the region question from a zod enum", () => {
    expect(ASK_REGION.params).toEqual({
      mode: "form",
      message: "Which region should the database live in?",
      requestedSchema: {
        type: "object",
        properties: {
          region: { type: "string", enum: ["eu-west-1", "us-east-1", "ap-south-1"], description: "Region" },
        },
        required: ["region"],
      },
    });
  });

  it("asks again when the answer is outside the enum, and rejects a forged state", async () => {
    const { session } = await connect(provisioner);
    const first = await session.callTool("provision", { name: "db" }, { allowInputRequired: true });
    if (!isInputRequiredResult(first)) throw new Error("expected a question");
    const again = await session.callTool(
      "provision",
      { name: "db" },
      {
        allowInputRequired: true,
        inputResponses: { region: { action: "accept", content: { region: "mars-1" } } },
        requestState: first.requestState,
      },
    );
    expect(again).toMatchObject({ resultType: "input_required", inputRequests: { region: ASK_REGION } });
    await expect(
      session.callTool("provision", { name: "db" }, { requestState: "provision/ask-region/v1" }),
    ).rejects.toMatchObject({
      code: -32602,
      message: "Invalid or expired requestState",
      data: { reason: "invalid_request_state" },
    });
  });
});

describe("examples/resource-template-ask", () => {
  it("asks for a currency on resources/read, then returns the report", async () => {
    const { session } = await connect(reports);
    const first = await session.readResource("reports://Q3", { allowInputRequired: true });
    expect(first).toMatchObject({
      resultType: "input_required",
      inputRequests: {
        currency: {
          method: "elicitation/create",
          params: {
            message: "Currency for the Q3 report?",
            requestedSchema: { properties: { currency: { enum: ["EUR", "USD"] } } },
          },
        },
      },
    });
    const done = await session.readResource("reports://Q3", {
      inputResponses: { currency: { action: "accept", content: { currency: "EUR" } } },
    });
    expect(done).toMatchObject({
      contents: [{ uri: "reports://Q3", mimeType: "text/plain", text: "Revenue Q3: 1.2M EUR" }],
      ttlMs: 0,
      cacheScope: "private",
    });
  });

  it("lists the template and the static index; the static resource never asks", async () => {
    const { session } = await connect(reports);
    expect((await session.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      "reports://{quarter}",
    ]);
    expect((await session.listResources()).resources.map((r) => r.uri)).toEqual(["reports://index"]);
    expect((await session.readResource("reports://index")).contents).toEqual([
      { uri: "reports://index", text: "Q1, Q2, Q3, Q4" },
    ]);
  });

  it("answers an unknown URI with -32602 and data.uri", async () => {
    const { session } = await connect(reports);
    await expect(session.readResource("nope://x")).rejects.toMatchObject({
      code: -32602,
      data: { uri: "nope://x" },
    });
  });
});

describe("examples/url-elicitation", () => {
  it("correlates the retry through its own flow id in the sealed state", async () => {
    const { session } = await connect(github, { capabilities: { elicitation: { url: {} } } });
    const first = await session.callTool("connect_github", {}, { allowInputRequired: true });
    if (!isInputRequiredResult(first)) throw new Error("expected a URL question");
    const url = (first.inputRequests?.signin?.params as { mode: string; url: string } | undefined)?.url ?? "";
    expect(first.inputRequests?.signin?.params).toMatchObject({
      mode: "url",
      message: "Sign in to GitHub to continue",
    });
    const flowId = new URL(url).searchParams.get("flow") ?? "";
    expect(first.requestState).not.toContain(flowId);

    const consented = { signin: { action: "accept" as const } };
    const pending = await session.callTool(
      "connect_github",
      {},
      { allowInputRequired: true, inputResponses: consented, requestState: first.requestState },
    );
    if (!isInputRequiredResult(pending)) throw new Error("expected a state-only round");
    expect(pending.inputRequests).toBeUndefined();

    completeSignIn(flowId, "octocat");
    const done = await session.callTool("connect_github", {}, { requestState: pending.requestState });
    expect(done.content).toEqual([{ type: "text", text: "Connected as octocat." }]);
  });

  it("refuses a client that cannot open URLs (-32021 naming elicitation.url)", async () => {
    const { session } = await connect(github, FORM);
    await expect(session.callTool("connect_github", {}, { allowInputRequired: true })).rejects.toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: { url: {} } } },
    });
  });
});

describe("examples/json-schema-tool", () => {
  it("validates the raw JSON Schema in full, asks the plain form, and checks its answer", async () => {
    const { session, tap } = await connect(shipping);
    const [tool] = (await session.listTools()).tools;
    expect(tool?.inputSchema.properties).toEqual({
      weightKg: { type: "number", exclusiveMinimum: 0, maximum: 30 },
      destination: { type: "string", pattern: "^[A-Z]{2}$" },
    });
    const refused = await session.callTool("ship", { weightKg: 0, destination: "fr" });
    expect(refused).toMatchObject({ isError: true });
    expect(JSON.stringify(refused.content)).toMatch(/Invalid arguments for tool ship: /);

    const first = await session.callTool(
      "ship",
      { weightKg: 2, destination: "FR" },
      { allowInputRequired: true },
    );
    if (!isInputRequiredResult(first)) throw new Error("expected a question");
    expect(Object.keys(first.inputRequests ?? {})).toEqual(["speed"]);
    const answer = (speed: string) => ({
      allowInputRequired: true as const,
      inputResponses: { speed: { action: "accept" as const, content: { speed } } },
      requestState: first.requestState,
    });
    const wrong = await session.callTool("ship", { weightKg: 2, destination: "FR" }, answer("teleport"));
    expect(wrong).toMatchObject({ isError: true });
    const done = await session.callTool("ship", { weightKg: 2, destination: "FR" }, answer("express"));
    expect(done).toMatchObject({ content: [{ type: "text", text: "2 kg to FR, express." }] });
    expect(tap.sent().map((m) => m.method)).toEqual(["tools/list", ...Array(4).fill("tools/call")]);
    expect(tap.sent().at(-1)?.params).toMatchObject({
      inputResponses: { speed: { action: "accept", content: { speed: "express" } } },
    });
  });
});
