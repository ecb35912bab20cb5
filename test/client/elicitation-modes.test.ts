import { describe, expect, it } from "vitest";
import { dispatchInputRequest, type ElicitationCallback } from "../../src/client/callbacks.js";
import type { InputRequest } from "../../src/types/index.js";
import { McpError } from "../../src/types/index.js";
import { askingServer, bare, connectTapped, sentFor, stubServer, textOf } from "./stubs.js";

const URL_QUESTION: InputRequest = {
  method: "elicitation/create",
  params: { mode: "url", message: "Sign in", url: "https://example.com/login", elicitationId: "e-1" },
};

const FORM_WITH_DEFAULTS: InputRequest = {
  method: "elicitation/create",
  params: {
    message: "Deploy where?",
    requestedSchema: {
      type: "object",
      properties: {
        region: { type: "string", default: "eu-west-1" },
        replicas: { type: "integer", default: 3 },
        tier: { type: "string", enum: ["free", "pro"], default: "free" },
        verbose: { type: "boolean", default: false },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, default: ["a"] },
        note: { type: "string" },
      },
    },
  },
};

const CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";

/** A stub whose tool asks `request` regardless of what the client declared, then echoes the answer. */
function askingRegardless(request: InputRequest) {
  return stubServer((method, params) => {
    if (method !== "tools/call") return undefined;
    const answer = (params.inputResponses as Record<string, unknown> | undefined)?.q;
    if (answer === undefined) return { resultType: "input_required", inputRequests: { q: request } };
    return { content: [{ type: "text", text: JSON.stringify(answer) }] };
  });
}

function declaredBy(tap: Parameters<typeof sentFor>[0]) {
  const [first] = sentFor(tap, "tools/call");
  return (first?.params._meta as Record<string, unknown> | undefined)?.[CAPABILITIES_KEY];
}

describe("elicitationCapabilities: the modes a client declares and handles", () => {
  it.each([
    [{ form: {} }, { elicitation: { form: {} } }],
    [{ url: {} }, { elicitation: { url: {} } }],
    [{}, { elicitation: {} }],
    [{ form: { applyDefaults: true } }, { elicitation: { form: { applyDefaults: true } } }],
  ])("declares %j exactly on every request", async (modes, declared) => {
    const server = askingRegardless(FORM_WITH_DEFAULTS);
    const { client, tap } = await connectTapped(server, {
      elicitation: () => ({ action: "decline" }),
      elicitationCapabilities: modes,
    });
    await client.callTool("t").catch(() => undefined);
    expect(declaredBy(tap)).toEqual(declared);
  });

  it.each([
    [
      "a form-only client gets a URL question",
      { form: {} },
      URL_QUESTION,
      "URL-mode elicitation not supported",
    ],
    ["a bare {} (form only) gets a URL question", {}, URL_QUESTION, "URL-mode elicitation not supported"],
    ["a URL-only client gets a form", { url: {} }, FORM_WITH_DEFAULTS, "Form-mode elicitation not supported"],
  ])("%s: -32602, the callback never runs, no retry", async (_label, modes, request, message) => {
    const server = askingRegardless(request);
    let called = 0;
    const { client } = await connectTapped(server, {
      elicitation: () => {
        called++;
        return { action: "decline" };
      },
      elicitationCapabilities: modes,
    });
    const error = await client.callTool("t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32602, message });
    expect(called).toBe(0);
    expect(server.seen.filter((s) => s.method === "tools/call")).toHaveLength(1);
  });

  it("a bare {} still takes a form, as the spec reads it", async () => {
    const { client } = await connectTapped(askingRegardless(FORM_WITH_DEFAULTS), {
      elicitation: () => ({ action: "accept", content: { note: "ok" } }),
      elicitationCapabilities: {},
    });
    expect(textOf(await client.callTool("t"))).toBe('{"action":"accept","content":{"note":"ok"}}');
  });

  it("a declared mode is answered: a URL-only client takes a URL question", async () => {
    const server = askingRegardless(URL_QUESTION);
    const { client } = await connectTapped(server, {
      elicitation: (_ctx, params) => ({ action: params.mode === "url" ? "accept" : "decline" }),
      elicitationCapabilities: { url: {} },
    });
    expect(textOf(await client.callTool("t"))).toBe('{"action":"accept"}');
  });

  it("against our Server, a form-only client is never sent a URL question: -32021 names elicitation.url", async () => {
    const { client } = await connectTapped(askingServer("login", URL_QUESTION), {
      elicitation: () => ({ action: "accept" }),
      elicitationCapabilities: { form: {} },
    });
    await expect(client.callTool("t")).rejects.toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: { url: {} } } },
    });
  });
});

describe("elicitationCapabilities.form.applyDefaults", () => {
  async function retryAnswer(answer: ReturnType<ElicitationCallback>, applyDefaults: boolean) {
    const server = askingRegardless(FORM_WITH_DEFAULTS);
    const { client, tap } = await connectTapped(server, {
      elicitation: () => answer,
      elicitationCapabilities: { form: { applyDefaults } },
    });
    await client.callTool("t");
    const [, retry] = sentFor(tap, "tools/call");
    return (bare(retry?.params).inputResponses as Record<string, unknown>).q;
  }

  it("fills every omitted field that has a default, on the wire, and keeps what the user gave", async () => {
    const answer = { action: "accept" as const, content: { region: "us-east-2", note: "hi" } };
    expect(await retryAnswer(answer, true)).toEqual({
      action: "accept",
      content: { region: "us-east-2", note: "hi", replicas: 3, tier: "free", verbose: false, tags: ["a"] },
    });
    // The callback's own object is left as it was.
    expect(answer.content).toEqual({ region: "us-east-2", note: "hi" });
  });

  it("fills an accept that carries no content at all", async () => {
    expect(await retryAnswer({ action: "accept" }, true)).toEqual({
      action: "accept",
      content: { region: "eu-west-1", replicas: 3, tier: "free", verbose: false, tags: ["a"] },
    });
  });

  it("keeps falsy answers the user gave (false, 0, empty string)", async () => {
    const content = { region: "", replicas: 0, verbose: true, tier: "pro", tags: [] };
    expect(await retryAnswer({ action: "accept", content }, true)).toEqual({ action: "accept", content });
  });

  it.each(["decline", "cancel"] as const)("leaves a %s untouched", async (action) => {
    expect(await retryAnswer({ action }, true)).toEqual({ action });
  });

  it("without applyDefaults the answer goes out as the callback gave it", async () => {
    expect(await retryAnswer({ action: "accept", content: { note: "x" } }, false)).toEqual({
      action: "accept",
      content: { note: "x" },
    });
  });
});

describe("dispatchInputRequest, called directly", () => {
  it("refuses a request of no known method with -32601 rather than answering undefined", async () => {
    const unknown = { method: "tools/call", params: {} } as unknown as InputRequest;
    const answer = dispatchInputRequest(
      { elicitation: () => ({ action: "decline" }) },
      { requestId: "q", signal: new AbortController().signal },
      unknown,
    );
    await expect(answer).rejects.toEqual(new McpError(-32601, "Method not found"));
  });
});
