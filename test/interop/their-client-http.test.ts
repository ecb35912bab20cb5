// Interop, modern era: the official TypeScript SDK 2.4.0 client (versionNegotiation 'auto') against
// our example servers served with `serveHttp` on 127.0.0.1. Every flow is checked at the wire through
// the client's `fetch` option: POST count, headers, byte-exact requestState echo, statuses.
import {
  Client,
  type ClientOptions,
  type ElicitRequest,
  type ElicitResult,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import { mcp as briefing } from "../../examples/briefing-prompt.js";
import { mcp as provisioner } from "../../examples/provisioner-mcpserver.js";
import { mcp as chain } from "../../examples/resolver-chain.js";
import { mcp as region } from "../../examples/resolver-region.js";
import { mcp as roots } from "../../examples/resolver-roots.js";
import { mcp as writer } from "../../examples/resolver-sample.js";
import { mcp as reports } from "../../examples/resource-template-ask.js";
import { completeSignIn, mcp as github } from "../../examples/url-elicitation.js";
import type { Dispatcher } from "../../src/shared/dispatch.js";
import { type ServeHttpOptions, serveHttp } from "../../src/transports/http/node.js";
import { buildOurExtraServer } from "../fixtures/interop/our-extra-server.js";
import {
  type Exchange,
  envelopeOf,
  PROTOCOL_VERSION,
  posts,
  recordingFetch,
  tamper,
  type WireMessage,
} from "./helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

type ElicitHandler = (request: ElicitRequest) => ElicitResult | Promise<ElicitResult>;

interface Setup {
  client: Client;
  exchanges: Exchange[];
  /** Every elicitation their client was asked to fulfil, in order. */
  asked: ElicitRequest["params"][];
}

/** Serves `server` with our serveHttp and connects their client (mode 'auto') through a recording fetch. */
async function theirClientAgainst(
  server: Dispatcher,
  elicit: ElicitHandler,
  options: {
    capabilities?: ClientOptions["capabilities"];
    configure?: (client: Client) => void;
    fetchHooks?: Parameters<typeof recordingFetch>[0];
    responseMode?: ServeHttpOptions["responseMode"];
  } = {},
): Promise<Setup> {
  const handle = await serveHttp(server, { port: 0, responseMode: options.responseMode });
  cleanups.push(() => handle.close());
  const { fetch, exchanges } = recordingFetch(options.fetchHooks);
  const capabilities = options.capabilities ?? { elicitation: { form: {} } };
  const client = new Client(
    { name: "official-client", version: "2.4.0" },
    { capabilities, versionNegotiation: { mode: "auto" } },
  );
  const asked: ElicitRequest["params"][] = [];
  if (capabilities.elicitation) {
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(request.params);
      return elicit(request);
    });
  }
  options.configure?.(client);
  await client.connect(new StreamableHTTPClientTransport(handle.url, { fetch }));
  cleanups.push(() => client.close());
  return { client, exchanges, asked };
}

const accept =
  (content: ElicitResult["content"]): ElicitHandler =>
  () => ({ action: "accept", content });

/** The MRTR legs of a flow must be a chain: each retry echoes the previous leg's state exactly. */
function expectRetryChain(
  legs: Exchange[],
  method: string,
  name: string,
  contentType = /^application\/json/,
): void {
  const ids = new Set<unknown>();
  legs.forEach((leg, index) => {
    expect(leg.httpMethod).toBe("POST");
    expect(leg.status).toBe(200);
    expect(leg.contentType).toMatch(contentType);
    expect(leg.headers["mcp-protocol-version"]).toBe(PROTOCOL_VERSION);
    expect(leg.headers["mcp-method"]).toBe(method);
    expect(leg.headers["mcp-name"]).toBe(name);
    expect(envelopeOf(leg.body).version).toBe(PROTOCOL_VERSION);
    expect(leg.response?.id).toBe(leg.body.id);
    ids.add(leg.body.id);
    const previous = legs[index - 1]?.response?.result;
    if (previous === undefined) {
      // The first leg carries neither answers nor state.
      expect(leg.body.params).not.toHaveProperty("inputResponses");
      expect(leg.body.params).not.toHaveProperty("requestState");
      return;
    }
    expect(previous.resultType).toBe("input_required");
    if (previous.requestState === undefined) expect(leg.body.params).not.toHaveProperty("requestState");
    // Byte-exact in the raw body, not just equal after parsing.
    else expect(leg.rawBody).toContain(JSON.stringify(previous.requestState));
    expect(leg.body.params?.requestState).toBe(previous.requestState);
    expect(Object.keys(leg.body.params?.inputResponses ?? {}).sort()).toEqual(
      Object.keys(previous.inputRequests ?? {}).sort(),
    );
  });
  expect(ids.size).toBe(legs.length);
  expect(legs.at(-1)?.response?.result?.resultType).toBe("complete");
}

function expectNegotiated(client: Client, exchanges: Exchange[]): void {
  expect(client.getNegotiatedProtocolVersion()).toBe(PROTOCOL_VERSION);
  expect(client.getProtocolEra()).toBe("modern");
  const [probe] = exchanges;
  expect(probe?.body.method).toBe("server/discover");
  expect(probe?.status).toBe(200);
  expect(probe?.response?.result?.supportedVersions).toEqual([PROTOCOL_VERSION]);
  // Modern only: no initialize, no GET stream, no session.
  expect(exchanges.every((exchange) => exchange.httpMethod === "POST")).toBe(true);
  expect(exchanges.some((exchange) => exchange.body.method === "initialize")).toBe(false);
  expect(exchanges.some((exchange) => "mcp-session-id" in exchange.headers)).toBe(false);
}

describe("their client → our server over HTTP (2026-07-28)", () => {
  it("completes the hand-built MRTR tool (examples/provisioner-mcpserver.ts) in 1 probe + 2 POSTs", async () => {
    const { client, exchanges, asked } = await theirClientAgainst(
      provisioner,
      accept({ region: "eu-west-1" }),
    );
    const result = await client.callTool({ name: "provision", arguments: { name: "orders" } });

    expect(result.content).toEqual([{ type: "text", text: "Provisioned 'orders' in eu-west-1." }]);
    expect(result.isError).toBeFalsy();
    expectNegotiated(client, exchanges);
    expect(exchanges.map((exchange) => exchange.body.method)).toEqual([
      "server/discover",
      "tools/call",
      "tools/call",
    ]);
    const legs = posts(exchanges, "tools/call");
    expectRetryChain(legs, "tools/call", "provision");
    // Our state is sealed on the wire: the plaintext question id never travels.
    const state = legs[0]?.response?.result?.requestState ?? "";
    expect(state).toMatch(/^v1\./);
    expect(state).not.toContain("provision/ask-region");
    expect(legs[1]?.body.params?.inputResponses).toEqual({
      region: { action: "accept", content: { region: "eu-west-1" } },
    });
    expect(legs[1]?.body.params?.arguments).toEqual({ name: "orders" });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      mode: "form",
      message: "Which region should the database live in?",
      requestedSchema: { properties: { region: { enum: ["eu-west-1", "us-east-1", "ap-south-1"] } } },
    });
  });

  it("completes the resolver-driven tool (examples/resolver-region.ts)", async () => {
    const { client, exchanges, asked } = await theirClientAgainst(region, accept({ region: "ap-south-1" }));
    const result = await client.callTool({ name: "provision", arguments: { name: "orders" } });

    expect(result.content).toEqual([{ type: "text", text: "Provisioned 'orders' in ap-south-1." }]);
    expectNegotiated(client, exchanges);
    expect(exchanges).toHaveLength(3);
    const legs = posts(exchanges, "tools/call");
    expect(legs).toHaveLength(2);
    expectRetryChain(legs, "tools/call", "provision");
    expect(Object.keys(legs[0]?.response?.result?.inputRequests ?? {})).toEqual(["ask_region"]);
    expect(asked.map((params) => params.message)).toEqual(["Which region should the database live in?"]);
  });

  it("completes the two-question resolver chain (examples/resolver-chain.ts) in 3 tools/call legs", async () => {
    const { client, exchanges, asked } = await theirClientAgainst(
      chain,
      ({ params }): ElicitResult =>
        params.message === "Username?"
          ? { action: "accept", content: { username: "ada" } }
          : { action: "accept", content: { ok: true } },
    );
    const result = await client.callTool({ name: "deploy", arguments: { service: "api" } });

    expect(result.content).toEqual([{ type: "text", text: "Deployed api as ada." }]);
    expectNegotiated(client, exchanges);
    const legs = posts(exchanges, "tools/call");
    expect(exchanges).toHaveLength(1 + 3);
    expectRetryChain(legs, "tools/call", "deploy");
    expect(asked.map((params) => params.message)).toEqual(["Username?", "Deploy api as ada?"]);
    // The sealed state is re-minted every round (the first answer rides in it).
    const states = legs.slice(0, 2).map((leg) => leg.response?.result?.requestState);
    expect(new Set(states).size).toBe(2);
    // Encrypted, not only encoded: neither the token nor its decoded bytes hold the answer. (The
    // token text alone could hold "ada" by chance: it is random base64url.)
    for (const state of states as string[]) {
      expect(Buffer.from(state.slice("v1.".length), "base64url").toString("latin1")).not.toContain('"ada"');
      expect(state).not.toContain('"ada"');
    }
  });

  it("carries a declined confirmation through the chain (decline is an answer)", async () => {
    const { client, exchanges } = await theirClientAgainst(chain, ({ params }) =>
      params.message === "Username?"
        ? { action: "accept", content: { username: "ada" } }
        : { action: "decline" },
    );
    const result = await client.callTool({ name: "deploy", arguments: { service: "api" } });

    expect(result.content).toEqual([{ type: "text", text: "Deployment of api cancelled." }]);
    const legs = posts(exchanges, "tools/call");
    expect(legs).toHaveLength(3);
    expect(legs[2]?.body.params?.inputResponses).toEqual({ confirm: { action: "decline" } });
  });

  it("completes the prompt flow (examples/briefing-prompt.ts) via getPrompt", async () => {
    const { client, exchanges, asked } = await theirClientAgainst(
      briefing,
      accept({ audience: "the board" }),
    );
    const result = await client.getPrompt({ name: "briefing" });

    expect(result.messages).toEqual([
      { role: "user", content: { type: "text", text: "Write a briefing for the board." } },
    ]);
    expectNegotiated(client, exchanges);
    expect(exchanges.map((exchange) => exchange.body.method)).toEqual([
      "server/discover",
      "prompts/get",
      "prompts/get",
    ]);
    expectRetryChain(posts(exchanges, "prompts/get"), "prompts/get", "briefing");
    expect(asked.map((params) => params.message)).toEqual(["Who is the briefing for?"]);
  });

  it("completes the resource-template flow (examples/resource-template-ask.ts) via readResource", async () => {
    const { client, exchanges, asked } = await theirClientAgainst(reports, accept({ currency: "EUR" }));
    const result = await client.readResource({ uri: "reports://Q3" });

    expect(result.contents).toEqual([
      { uri: "reports://Q3", mimeType: "text/plain", text: "Revenue Q3: 1.2M EUR" },
    ]);
    expectNegotiated(client, exchanges);
    const legs = posts(exchanges, "resources/read");
    expect(exchanges).toHaveLength(3);
    expectRetryChain(legs, "resources/read", "reports://Q3");
    expect(legs.map((leg) => leg.body.params?.uri)).toEqual(["reports://Q3", "reports://Q3"]);
    expect(asked.map((params) => params.message)).toEqual(["Currency for the Q3 report?"]);
  });

  it("fulfils a sampling resolver (examples/resolver-sample.ts) with their sampling handler", async () => {
    const { client, exchanges } = await theirClientAgainst(writer, accept({}), {
      capabilities: { sampling: {} },
      configure: (client) =>
        client.setRequestHandler("sampling/createMessage", async (request) => ({
          role: "assistant",
          content: { type: "text", text: `summary of ${request.params.messages.length} message(s)` },
          model: "test-model",
          stopReason: "endTurn",
        })),
    });
    const result = await client.callTool({ name: "summarize", arguments: { text: "MRTR interop" } });

    expect(result.content).toEqual([{ type: "text", text: "summary of 1 message(s)" }]);
    const legs = posts(exchanges, "tools/call");
    expectRetryChain(legs, "tools/call", "summarize");
    expect(envelopeOf(legs[0]?.body ?? {}).capabilities).toEqual({ sampling: {} });
    expect(legs[0]?.response?.result?.inputRequests?.summary?.method).toBe("sampling/createMessage");
    expect(legs[1]?.body.params?.inputResponses?.summary).toMatchObject({
      model: "test-model",
      role: "assistant",
    });
  });

  it("fulfils a roots resolver (examples/resolver-roots.ts) with their roots handler", async () => {
    const { client, exchanges } = await theirClientAgainst(roots, accept({}), {
      capabilities: { roots: {} },
      configure: (client) =>
        client.setRequestHandler("roots/list", async () => ({
          roots: [{ uri: "file:///work/app", name: "app" }, { uri: "file:///work/lib" }],
        })),
    });
    const result = await client.callTool({ name: "workspace", arguments: {} });

    expect(result.content).toEqual([{ type: "text", text: "app\nfile:///work/lib" }]);
    const legs = posts(exchanges, "tools/call");
    expectRetryChain(legs, "tools/call", "workspace");
    expect(legs[0]?.response?.result?.inputRequests?.roots?.method).toBe("roots/list");
  });

  it("completes a URL elicitation with a state-only round (examples/url-elicitation.ts)", async () => {
    let signedIn = false;
    const { client, exchanges, asked } = await theirClientAgainst(github, accept(undefined), {
      capabilities: { elicitation: { url: {} } },
      fetchHooks: {
        // The user finishes signing in only after the first retry found the flow still open.
        after: (exchange) => {
          const result = exchange.response?.result;
          if (!signedIn && result?.resultType === "input_required" && result.inputRequests === undefined) {
            const url = asked[0]?.mode === "url" ? new URL(asked[0].url) : undefined;
            completeSignIn(url?.searchParams.get("flow") ?? "", "octocat");
            signedIn = true;
          }
        },
      },
    });
    const result = await client.callTool({ name: "connect_github", arguments: {} });

    expect(result.content).toEqual([{ type: "text", text: "Connected as octocat." }]);
    const legs = posts(exchanges, "tools/call");
    expect(legs).toHaveLength(3);
    expectRetryChain(legs, "tools/call", "connect_github");
    expect(asked[0]).toMatchObject({ mode: "url", message: "Sign in to GitHub to continue" });
    expect(asked[0]).not.toHaveProperty("elicitationId");
    expect(legs[1]?.body.params?.inputResponses).toEqual({ signin: { action: "accept" } });
    // The state-only round: no inputRequests, so the retry carries state and no answers.
    expect(legs[1]?.response?.result).not.toHaveProperty("inputRequests");
    expect(legs[2]?.body.params).not.toHaveProperty("inputResponses");
  });

  it("surfaces our frozen -32602 for a tampered requestState (manual mode, HTTP 400)", async () => {
    const { client, exchanges } = await theirClientAgainst(provisioner, accept({ region: "eu-west-1" }));
    const first = await client.request(
      { method: "tools/call", params: { name: "provision", arguments: { name: "orders" } } },
      { allowInputRequired: true },
    );
    expect(first).toMatchObject({ resultType: "input_required", inputRequests: { region: {} } });
    const state = (first as { requestState?: string }).requestState;
    expect(typeof state).toBe("string");

    const retry = client.request(
      {
        method: "tools/call",
        params: {
          name: "provision",
          arguments: { name: "orders" },
          inputResponses: { region: { action: "accept", content: { region: "eu-west-1" } } },
          requestState: `${state}x`,
        },
      },
      { allowInputRequired: true },
    );
    const error = await retry.then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({
      code: -32602,
      message: "Invalid or expired requestState",
      data: { reason: "invalid_request_state" },
    });

    const legs = posts(exchanges, "tools/call");
    expect(legs.map((leg) => leg.status)).toEqual([200, 400]);
    expect(legs[1]?.body.params?.requestState).toBe(`${state}x`);
    expect(legs[1]?.contentType).toMatch(/^application\/json/);
    expect(legs[1]?.response).toEqual({
      jsonrpc: "2.0",
      id: legs[1]?.body.id,
      error: {
        code: -32602,
        message: "Invalid or expired requestState",
        data: { reason: "invalid_request_state" },
      },
    } satisfies WireMessage);
  });

  it.each([
    {
      what: "prompts/get (examples/briefing-prompt.ts)",
      server: briefing,
      request: { method: "prompts/get" as const, params: { name: "briefing" } },
      answers: { audience: { action: "accept", content: { audience: "the board" } } },
    },
    {
      what: "resources/read (examples/resource-template-ask.ts)",
      server: reports,
      request: { method: "resources/read" as const, params: { uri: "reports://Q1" } },
      answers: { currency: { action: "accept", content: { currency: "EUR" } } },
    },
  ])(
    "rejects a forged requestState on $what with the same frozen -32602 (HTTP 400)",
    async ({ server, request, answers }) => {
      const { client, exchanges } = await theirClientAgainst(server, accept({}));
      const forged = {
        ...request,
        params: { ...request.params, inputResponses: answers, requestState: "forged" },
      };
      const error = await client.request(forged, { allowInputRequired: true }).then(
        () => undefined,
        (failure: unknown) => failure,
      );

      expect(error).toBeInstanceOf(ProtocolError);
      expect(error).toMatchObject({
        code: -32602,
        message: "Invalid or expired requestState",
        data: { reason: "invalid_request_state" },
      });
      const leg = exchanges.at(-1);
      expect(leg?.body.method).toBe(request.method);
      expect(leg?.status).toBe(400);
      expect(leg?.response?.error?.code).toBe(-32602);
    },
  );

  it("surfaces our frozen -32602 when a man in the middle tampers the auto loop's retry", async () => {
    const { client, exchanges, asked } = await theirClientAgainst(region, accept({ region: "eu-west-1" }), {
      fetchHooks: {
        rewrite: (body) =>
          typeof body.params?.requestState === "string"
            ? { ...body, params: { ...body.params, requestState: tamper(body.params.requestState) } }
            : undefined,
      },
    });
    const error = await client.callTool({ name: "provision", arguments: { name: "orders" } }).then(
      () => undefined,
      (failure: unknown) => failure,
    );

    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ code: -32602, message: "Invalid or expired requestState" });
    expect(asked).toHaveLength(1);
    const legs = posts(exchanges, "tools/call");
    expect(legs.map((leg) => leg.status)).toEqual([200, 400]);
    expect(legs[1]?.response?.error).toEqual({
      code: -32602,
      message: "Invalid or expired requestState",
      data: { reason: "invalid_request_state" },
    });
  });
});

describe("their client → our server over HTTP: edge cases of the 2026-07-28 wire", () => {
  const answers: Record<string, ElicitResult["content"]> = {
    "Size?": { size: 3 },
    "Owner?": { owner: "ada" },
    "Topic?": { topic: "MRTR" },
    "Proceed?": { ok: true },
  };
  const byMessage: ElicitHandler = ({ params }) => ({ action: "accept", content: answers[params.message] });

  it("recovers from our -32020 (missing Mcp-Param-City) by re-listing, then mirrors it on every leg", async () => {
    const { client, exchanges } = await theirClientAgainst(buildOurExtraServer(), byMessage);
    const result = await client.callTool({ name: "make", arguments: { city: "Zürich" } });

    expect(result.content).toEqual([{ type: "text", text: "Made size 3 in Zürich." }]);
    expect(exchanges.map((exchange) => [exchange.body.method, exchange.status])).toEqual([
      ["server/discover", 200],
      ["tools/call", 400],
      ["tools/list", 200],
      ["tools/call", 200],
      ["tools/call", 200],
    ]);
    // Our rejection: spec-mandated 400 + -32020, before any handler ran.
    expect(exchanges[1]?.response?.error?.code).toBe(-32020);
    expect(exchanges[1]?.response?.error?.message).toMatch(/Mcp-Param-City/);
    const legs = posts(exchanges, "tools/call").slice(1);
    expectRetryChain(legs, "tools/call", "make");
    // Non-ASCII values travel in the base64 sentinel form, on the retry too.
    for (const leg of legs) expect(leg.headers["mcp-param-city"]).toBe("=?base64?WsO8cmljaA==?=");
  });

  it("re-sends a non-ASCII prompt name as a base64 Mcp-Name on every leg", async () => {
    const { client, exchanges } = await theirClientAgainst(buildOurExtraServer(), byMessage);
    const result = await client.getPrompt({ name: "résumé" });

    expect(result.messages).toEqual([
      { role: "user", content: { type: "text", text: "Résumé about MRTR." } },
    ]);
    expectRetryChain(posts(exchanges, "prompts/get"), "prompts/get", "=?base64?csOpc3Vtw6k=?=");
  });

  it("fulfils an elicitation and a roots listing asked in the same round", async () => {
    const { client, exchanges, asked } = await theirClientAgainst(buildOurExtraServer(), byMessage, {
      capabilities: { elicitation: { form: {} }, roots: {} },
      configure: (client) =>
        client.setRequestHandler("roots/list", async () => ({ roots: [{ uri: "file:///srv/app" }] })),
    });
    const result = await client.callTool({ name: "survey", arguments: {} });

    expect(result.content).toEqual([{ type: "text", text: "ada owns file:///srv/app." }]);
    const legs = posts(exchanges, "tools/call");
    expect(legs).toHaveLength(2);
    expectRetryChain(legs, "tools/call", "survey");
    expect(Object.keys(legs[0]?.response?.result?.inputRequests ?? {}).sort()).toEqual(["owner", "roots"]);
    expect(legs[1]?.body.params?.inputResponses).toEqual({
      owner: { action: "accept", content: { owner: "ada" } },
      roots: { roots: [{ uri: "file:///srv/app" }] },
    });
    expect(asked).toHaveLength(1);
  });

  it("reads input_required as the last event of an SSE response that carried progress first", async () => {
    const { client, exchanges } = await theirClientAgainst(buildOurExtraServer(), byMessage);
    const progress: { progress: number; message?: string }[] = [];
    const result = await client.callTool(
      { name: "slow_ask", arguments: {} },
      { onprogress: (update) => progress.push(update) },
    );

    expect(result.content).toEqual([{ type: "text", text: "Proceeded." }]);
    const legs = posts(exchanges, "tools/call");
    expect(legs).toHaveLength(2);
    expectRetryChain(legs, "tools/call", "slow_ask", /^text\/event-stream/);
    expect(legs[0]?.response?.result?.resultType).toBe("input_required");
    // Our progress reached their callback on both legs (each leg carries its own progressToken).
    expect(progress.filter((update) => update.message === "checked the inventory")).toHaveLength(2);
  });

  it('reads every answer as SSE from our responseMode "sse", the discover probe included', async () => {
    const { client, exchanges } = await theirClientAgainst(provisioner, accept({ region: "us-east-1" }), {
      responseMode: "sse",
    });
    const result = await client.callTool({ name: "provision", arguments: { name: "orders" } });
    expect(result.content).toEqual([{ type: "text", text: "Provisioned 'orders' in us-east-1." }]);
    expectNegotiated(client, exchanges);
    expect(exchanges.map((exchange) => exchange.contentType)).toEqual([
      "text/event-stream",
      "text/event-stream",
      "text/event-stream",
    ]);
    expectRetryChain(posts(exchanges, "tools/call"), "tools/call", "provision", /^text\/event-stream/);
  });

  it('gets plain JSON from our responseMode "json", progress dropped, the flow intact', async () => {
    const { client, exchanges } = await theirClientAgainst(buildOurExtraServer(), byMessage, {
      responseMode: "json",
    });
    const progress: { message?: string }[] = [];
    const result = await client.callTool(
      { name: "slow_ask", arguments: {} },
      { onprogress: (update) => progress.push(update) },
    );
    expect(result.content).toEqual([{ type: "text", text: "Proceeded." }]);
    expectRetryChain(posts(exchanges, "tools/call"), "tools/call", "slow_ask");
    // Their client reports its own rounds as progress; ours never reached it.
    expect(progress).not.toContainEqual(expect.objectContaining({ message: "checked the inventory" }));
    expect(exchanges.every((exchange) => exchange.contentType?.startsWith("application/json"))).toBe(true);
  });

  it("gets our -32021 (HTTP 400, requiredCapabilities) when it did not declare elicitation", async () => {
    const { client, exchanges } = await theirClientAgainst(provisioner, accept({}), { capabilities: {} });
    const error = await client.callTool({ name: "provision", arguments: { name: "orders" } }).then(
      () => undefined,
      (failure: unknown) => failure,
    );

    expect(error).toBeInstanceOf(MissingRequiredClientCapabilityError);
    expect(error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    });
    const [leg] = posts(exchanges, "tools/call");
    expect(leg?.status).toBe(400);
    expect(envelopeOf(leg?.body ?? {}).capabilities).toEqual({});
    expect(leg?.response?.error?.code).toBe(-32021);
    expect(exchanges.some((exchange) => exchange.response?.result?.resultType === "input_required")).toBe(
      false,
    );
  });
});
