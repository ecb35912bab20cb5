// Interop, modern era: our Client against the official TypeScript SDK 2.4.0 server — their
// `createMcpHandler(() => buildServer())` behind node:http on 127.0.0.1 (through our toNodeListener,
// recording every exchange server-side), their `serveStdio(factory)` in a fixture process, and their
// HMAC request-state codec minting a fresh token every round.
import { createMcpHandler } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import type { ClientOptions, ElicitationCallback } from "../../src/client/index.js";
import { type ElicitResult, McpError } from "../../src/types/index.js";
import { buildTheirServer, theirCodec } from "../fixtures/interop/their-server.js";
import {
  cleanupTranscripts,
  type Exchange,
  envelopeOf,
  listen,
  newTranscript,
  nodeArgs,
  PROTOCOL_VERSION,
  posts,
  REPO_ROOT,
  readTranscript,
  recordingHandler,
  THEIR_STDIO_SERVER,
  tamper,
  type WireMessage,
} from "./helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  cleanupTranscripts();
});

/** Their createMcpHandler on node:http; every exchange is recorded on the server side. */
async function theirHttpServer(options: { sealed?: boolean; responseMode?: "auto" | "sse" | "json" } = {}) {
  const errors: Error[] = [];
  const codec = options.sealed ? theirCodec() : undefined;
  const handler = createMcpHandler(
    () => buildTheirServer({ codec, onerror: (error) => errors.push(error) }),
    {
      onerror: (error) => errors.push(error),
      responseMode: options.responseMode ?? "auto",
    },
  );
  const recorded = recordingHandler((request) => handler.fetch(request));
  const server = await listen(recorded.handler);
  cleanups.push(async () => {
    await server.close();
    await handler.close();
  });
  return { url: server.url, exchanges: recorded.exchanges, errors };
}

async function connect(
  url: URL,
  elicitation: ElicitationCallback | undefined,
  extra: Omit<ClientOptions, "elicitation"> = {},
): Promise<Client> {
  const client = await Client.connect(url, { elicitation, ...extra });
  cleanups.push(() => client.close());
  return client;
}

/** Our legs at their endpoint: modern headers and envelope, new ids, byte-exact echo, no stray state. */
function expectOurLegs(
  legs: Exchange[],
  method: string,
  name: string,
  capabilities: Record<string, unknown> = { elicitation: { form: {}, url: {} } },
): void {
  expect(new Set(legs.map((leg) => leg.body.id)).size).toBe(legs.length);
  legs.forEach((leg, index) => {
    expect(leg.httpMethod).toBe("POST");
    expect(leg.status).toBe(200);
    expect(leg.headers["mcp-protocol-version"]).toBe(PROTOCOL_VERSION);
    expect(leg.headers["mcp-method"]).toBe(method);
    expect(leg.headers["mcp-name"]).toBe(name);
    expect(leg.headers.accept).toMatch(/application\/json/);
    expect(leg.headers.accept).toMatch(/text\/event-stream/);
    expect(envelopeOf(leg.body)).toEqual({ version: PROTOCOL_VERSION, capabilities });
    const previous = legs[index - 1]?.response?.result;
    if (!previous) {
      expect(leg.body.params).not.toHaveProperty("inputResponses");
      expect(leg.body.params).not.toHaveProperty("requestState");
      return;
    }
    expect(previous.resultType).toBe("input_required");
    // Absent state must stay absent; present state is echoed byte-exact.
    if (previous.requestState === undefined) expect(leg.body.params).not.toHaveProperty("requestState");
    else expect(leg.rawBody).toContain(JSON.stringify(previous.requestState));
    expect(Object.keys(leg.body.params?.inputResponses ?? {}).sort()).toEqual(
      Object.keys(previous.inputRequests ?? {}).sort(),
    );
  });
  expect(legs.at(-1)?.response?.result?.resultType).toBe("complete");
}

function expectDiscovered(client: Client, exchanges: Exchange[]): void {
  expect(client.protocolVersion).toBe(PROTOCOL_VERSION);
  expect(client.era).toBe("modern");
  expect(client.serverInfo).toEqual({ name: "their-provisioner", version: "2.4.0" });
  expect(exchanges[0]?.body.method).toBe("server/discover");
  expect(exchanges[0]?.status).toBe(200);
  expect(exchanges.every((exchange) => exchange.httpMethod === "POST")).toBe(true);
  expect(exchanges.some((exchange) => exchange.body.method === "initialize")).toBe(false);
}

/** Accepts each expected question with its canned content; an unexpected question fails the flow. */
const byMessage =
  (answers: Record<string, ElicitResult["content"]>): ElicitationCallback =>
  (_ctx, params) => {
    const content = answers[params.message];
    if (content === undefined) throw new Error(`unexpected question: ${params.message}`);
    return { action: "accept", content };
  };

describe("our client → their createMcpHandler over HTTP (2026-07-28)", () => {
  it("completes their inputRequired tool (§5.3 provision) in 1 probe + 2 POSTs", async () => {
    const { url, exchanges } = await theirHttpServer();
    const asked: string[] = [];
    const client = await connect(url, (_ctx, params) => {
      asked.push(params.message);
      return { action: "accept", content: { region: "eu-west-1" } };
    });
    const result = await client.callTool("provision", { name: "db1" });

    expect(result.content).toEqual([{ type: "text", text: "Provisioned db1 in eu-west-1." }]);
    expectDiscovered(client, exchanges);
    expect(exchanges.map((exchange) => exchange.body.method)).toEqual([
      "server/discover",
      "tools/call",
      "tools/call",
    ]);
    const legs = posts(exchanges, "tools/call");
    expectOurLegs(legs, "tools/call", "provision");
    // Their unsealed mode mints no state: the retry must carry none.
    expect(legs[0]?.response?.result).not.toHaveProperty("requestState");
    expect(legs[0]?.response?.result?.inputRequests?.region).toMatchObject({
      method: "elicitation/create",
      params: { message: "Which region?" },
    });
    expect(legs[1]?.body.params?.inputResponses).toEqual({
      region: { action: "accept", content: { region: "eu-west-1" } },
    });
    expect(asked).toEqual(["Which region?"]);
  });

  it("completes their two-round tool with plain JSON requestState", async () => {
    const { url, exchanges } = await theirHttpServer();
    const client = await connect(
      url,
      byMessage({ "Username?": { username: "ada" }, "Deploy api as ada?": { ok: true } }),
    );
    const result = await client.callTool("deploy", { service: "api" });

    expect(result.content).toEqual([{ type: "text", text: "Deployed api as ada." }]);
    const legs = posts(exchanges, "tools/call");
    expect(legs).toHaveLength(3);
    expectOurLegs(legs, "tools/call", "deploy");
    expect(legs[2]?.body.params?.requestState).toBe(
      JSON.stringify({ step: "confirm", service: "api", user: "ada" }),
    );
  });

  it("completes their prompt that asks (getPrompt)", async () => {
    const { url, exchanges } = await theirHttpServer();
    const client = await connect(url, byMessage({ "Who is the briefing for?": { audience: "the board" } }));
    const result = await client.getPrompt("briefing");

    expect(result.messages).toEqual([
      { role: "user", content: { type: "text", text: "Write a briefing for the board." } },
    ]);
    expectDiscovered(client, exchanges);
    expect(exchanges).toHaveLength(3);
    expectOurLegs(posts(exchanges, "prompts/get"), "prompts/get", "briefing");
  });

  it("completes their resource template that asks (readResource)", async () => {
    const { url, exchanges } = await theirHttpServer();
    const client = await connect(url, byMessage({ "Currency for the Q3 report?": { currency: "USD" } }));
    const result = await client.readResource("reports://Q3");

    expect(result.contents).toEqual([
      { uri: "reports://Q3", mimeType: "text/plain", text: "Revenue Q3: 1.3M USD" },
    ]);
    expectDiscovered(client, exchanges);
    const legs = posts(exchanges, "resources/read");
    expect(legs).toHaveLength(2);
    expectOurLegs(legs, "resources/read", "reports://Q3");
  });
});

describe("our client → their createMcpHandler: edge cases of the 2026-07-28 wire", () => {
  const answers = byMessage({
    "Size?": { size: 3 },
    "Owner?": { owner: "ada" },
    "Topic?": { topic: "MRTR" },
  });

  it("mirrors x-mcp-header arguments into Mcp-Param-* (base64 for non-ASCII) on every leg, once tools are listed", async () => {
    const { url, exchanges } = await theirHttpServer();
    const client = await connect(url, answers);
    await client.listTools();
    const result = await client.callTool("make", { city: "Zürich" });

    expect(result.content).toEqual([{ type: "text", text: "Made size 3 in Zürich." }]);
    const legs = posts(exchanges, "tools/call");
    expect(legs).toHaveLength(2);
    expectOurLegs(legs, "tools/call", "make");
    for (const leg of legs) expect(leg.headers["mcp-param-city"]).toBe("=?base64?WsO8cmljaA==?=");
  });

  // Their server rightly rejects a missing Mcp-Param-* header (-32020, 400); the spec puts recovery
  // on the client: re-fetch tools/list and retry once.
  it("completes an x-mcp-header MRTR tool without listing tools first (re-list on -32020, retry)", async () => {
    const { url, exchanges } = await theirHttpServer();
    const client = await connect(url, answers);
    const result = await client.callTool("make", { city: "Zürich" });

    expect(result.content).toEqual([{ type: "text", text: "Made size 3 in Zürich." }]);
    expect(exchanges.map((exchange) => [exchange.body.method, exchange.status])).toEqual([
      ["server/discover", 200],
      ["tools/call", 400],
      ["tools/list", 200],
      ["tools/call", 200],
      ["tools/call", 200],
    ]);
  });

  it("re-sends a non-ASCII prompt name as a base64 Mcp-Name on every leg", async () => {
    const { url, exchanges } = await theirHttpServer();
    const client = await connect(url, answers);
    const result = await client.getPrompt("résumé");

    expect(result.messages).toEqual([
      { role: "user", content: { type: "text", text: "Résumé about MRTR." } },
    ]);
    expectOurLegs(posts(exchanges, "prompts/get"), "prompts/get", "=?base64?csOpc3Vtw6k=?=");
  });

  it("answers an elicitation and a roots listing asked in the same round", async () => {
    const { url, exchanges } = await theirHttpServer();
    const client = await connect(url, answers, {
      listRoots: () => ({ roots: [{ uri: "file:///srv/app" }] }),
    });
    const result = await client.callTool("survey", {});

    expect(result.content).toEqual([{ type: "text", text: "ada owns file:///srv/app." }]);
    const legs = posts(exchanges, "tools/call");
    expect(legs).toHaveLength(2);
    expectOurLegs(legs, "tools/call", "survey", { elicitation: { form: {}, url: {} }, roots: {} });
    expect(legs[1]?.body.params?.inputResponses).toEqual({
      owner: { action: "accept", content: { owner: "ada" } },
      roots: { roots: [{ uri: "file:///srv/app" }] },
    });
  });

  it("reads their input_required from an SSE response (responseMode 'sse')", async () => {
    const { url, exchanges } = await theirHttpServer({ responseMode: "sse" });
    const client = await connect(url, byMessage({ "Which region?": { region: "eu-west-1" } }));
    const result = await client.callTool("provision", { name: "db5" });

    expect(result.content).toEqual([{ type: "text", text: "Provisioned db5 in eu-west-1." }]);
    expect(exchanges.every((exchange) => exchange.contentType.startsWith("text/event-stream"))).toBe(true);
    expectOurLegs(posts(exchanges, "tools/call"), "tools/call", "provision");
  });

  it("fills the form defaults their question carries when applyDefaults is declared (SEP-1034)", async () => {
    const { url, exchanges } = await theirHttpServer();
    const client = await connect(url, () => ({ action: "accept", content: { replicas: 5 } }), {
      elicitationCapabilities: { form: { applyDefaults: true } },
    });
    const result = await client.callTool("configure", {});
    expect(result.content).toEqual([{ type: "text", text: "Deployed 5 in eu-west-1." }]);
    const legs = posts(exchanges, "tools/call");
    expectOurLegs(legs, "tools/call", "configure", { elicitation: { form: { applyDefaults: true } } });
    expect(legs[1]?.body.params?.inputResponses).toEqual({
      settings: { action: "accept", content: { replicas: 5, region: "eu-west-1" } },
    });
  });

  it("surfaces their -32021 (HTTP 400) when we declared no elicitation", async () => {
    const { url, exchanges } = await theirHttpServer();
    const client = await connect(url, undefined);
    const error = await client.callTool("provision", { name: "db6" }).then(
      () => undefined,
      (failure: unknown) => failure,
    );

    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    });
    const [leg] = posts(exchanges, "tools/call");
    expect(envelopeOf(leg?.body ?? {}).capabilities).toEqual({});
    expect(leg?.status).toBe(400);
  });
});

describe("our client → their server with their HMAC request-state codec", () => {
  it("echoes their minted token byte-exact on every round (opaque to us)", async () => {
    const { url, exchanges, errors } = await theirHttpServer({ sealed: true });
    const client = await connect(url, byMessage({ "Which region?": { region: "us-east-1" } }));
    const result = await client.callTool("provision", { name: "db2" });

    expect(result.content).toEqual([{ type: "text", text: "Provisioned db2 in us-east-1." }]);
    const legs = posts(exchanges, "tools/call");
    expect(legs).toHaveLength(2);
    expectOurLegs(legs, "tools/call", "provision");
    expect(legs[0]?.response?.result?.requestState).toMatch(/^v1\.[\w-]+\.[\w-]+$/);
    expect(errors).toEqual([]);
  });

  it("completes a two-round flow where they mint a fresh token each round", async () => {
    const { url, exchanges, errors } = await theirHttpServer({ sealed: true });
    const client = await connect(
      url,
      byMessage({ "Username?": { username: "ada" }, "Deploy api as ada?": { ok: true } }),
    );
    const result = await client.callTool("deploy", { service: "api" });

    expect(result.content).toEqual([{ type: "text", text: "Deployed api as ada." }]);
    const legs = posts(exchanges, "tools/call");
    expect(legs).toHaveLength(3);
    expectOurLegs(legs, "tools/call", "deploy");
    expect(legs[2]?.body.params?.requestState).toMatch(/^v1\./);
    expect(errors).toEqual([]);
  });

  it("surfaces their -32602 'Invalid or expired requestState' for a tampered token", async () => {
    const { url, exchanges, errors } = await theirHttpServer({ sealed: true });
    const client = await connect(
      url,
      byMessage({ "Username?": { username: "ada" }, "Deploy api as ada?": { ok: true } }),
    );
    const first = await client.session.callTool("deploy", { service: "api" }, { allowInputRequired: true });
    expect(first.resultType).toBe("input_required");
    const second = await client.session.callTool(
      "deploy",
      { service: "api" },
      {
        allowInputRequired: true,
        inputResponses: { login: { action: "accept", content: { username: "ada" } } },
      },
    );
    const state = second.resultType === "input_required" ? second.requestState : undefined;
    expect(state).toMatch(/^v1\./);

    const error = await client
      .callTool(
        "deploy",
        { service: "api" },
        {
          requestState: tamper(state as string),
          inputResponses: { confirm: { action: "accept", content: { ok: true } } },
        },
      )
      .then(
        () => undefined,
        (failure: unknown) => failure,
      );
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({
      code: -32602,
      message: "Invalid or expired requestState",
      data: { reason: "invalid_request_state" },
    });
    const last = exchanges.at(-1);
    expect(last?.body.params?.requestState).toBe(tamper(state as string));
    // Their SDK answers handler-level errors in-band.
    expect(last?.status).toBe(200);
    expect(last?.response?.error).toMatchObject({ code: -32602, message: "Invalid or expired requestState" });
    // Their verify hook (not the handler) refused it; the reason stays on their side.
    expect(errors.map((failure) => failure.message)).toEqual([
      expect.stringMatching(/^requestState verification rejected tools\/call: /),
    ]);
  });
});

describe("our client → their serveStdio (2026-07-28)", () => {
  async function spawnTheirs(mode?: "sealed") {
    const transcript = newTranscript();
    const client = await Client.connect(
      {
        command: process.execPath,
        args: nodeArgs(THEIR_STDIO_SERVER, transcript, ...(mode ? [mode] : [])),
        cwd: REPO_ROOT,
      },
      { elicitation: byMessage({ "Which region?": { region: "ap-south-1" } }) },
    );
    cleanups.push(() => client.close());
    return { client, transcript };
  }

  function toolLegs(transcript: string): {
    legs: WireMessage[];
    answers: (WireMessage | undefined)[];
    raw: string[];
  } {
    const processes = readTranscript(transcript);
    expect(processes).toHaveLength(1);
    const [session] = processes;
    // One process: our client probes server/discover in place, first, and never sends initialize.
    expect(session?.in[0]?.method).toBe("server/discover");
    expect(session?.in.some((message) => message.method === "initialize")).toBe(false);
    const legs = session?.in.filter((message) => message.method === "tools/call") ?? [];
    const raw =
      session?.rawIn.filter((line) => (JSON.parse(line) as WireMessage).method === "tools/call") ?? [];
    const answers = legs.map((leg) => session?.out.find((message) => message.id === leg.id));
    return { legs, answers, raw };
  }

  it("completes their inputRequired tool over stdio", async () => {
    const { client, transcript } = await spawnTheirs();
    expect(client.protocolVersion).toBe(PROTOCOL_VERSION);
    expect(client.era).toBe("modern");
    const result = await client.callTool("provision", { name: "db3" });

    expect(result.content).toEqual([{ type: "text", text: "Provisioned db3 in ap-south-1." }]);
    const { legs, answers } = toolLegs(transcript);
    expect(legs).toHaveLength(2);
    expect(legs[0]?.id).not.toBe(legs[1]?.id);
    expect(legs.map((leg) => envelopeOf(leg).version)).toEqual([PROTOCOL_VERSION, PROTOCOL_VERSION]);
    expect(answers.map((answer) => answer?.result?.resultType)).toEqual(["input_required", "complete"]);
    expect(legs[1]?.params).not.toHaveProperty("requestState");
    expect(legs[1]?.params?.inputResponses).toEqual({
      region: { action: "accept", content: { region: "ap-south-1" } },
    });
  });

  it("completes their sealed tool over stdio, echoing the HMAC token byte-exact", async () => {
    const { client, transcript } = await spawnTheirs("sealed");
    const result = await client.callTool("provision", { name: "db4" });

    expect(result.content).toEqual([{ type: "text", text: "Provisioned db4 in ap-south-1." }]);
    const { legs, answers, raw } = toolLegs(transcript);
    expect(legs).toHaveLength(2);
    const token = answers[0]?.result?.requestState;
    expect(token).toMatch(/^v1\./);
    expect(raw[1]).toContain(JSON.stringify(token));
  });
});
