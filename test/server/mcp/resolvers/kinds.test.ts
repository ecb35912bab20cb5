import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  elicit,
  elicitUrl,
  listRoots,
  questionDigest,
  resolver,
  sample,
} from "../../../../src/server/mcp/index.js";
import type { ClientCapabilities, CreateMessageResult } from "../../../../src/types/index.js";
import { quietServer } from "../helpers.js";
import { ALL, accept, asked, DECLINE, Flow, form, ROOTS, SAMPLED, spyState, textOf } from "./helpers.js";

const WEATHER_TOOL = {
  name: "weather",
  description: "Current weather",
  inputSchema: { type: "object" as const, properties: { city: { type: "string" } } },
};

const SAMPLE_REQUEST = {
  method: "sampling/createMessage",
  params: {
    maxTokens: 50,
    messages: [{ role: "user", content: { type: "text", text: "Summarize: hello world" } }],
  },
};

function samplingServer() {
  const mcp = quietServer();
  let runs = 0;
  const summary = resolver("summary", { args: ["text"] }, ({ args }) => {
    runs++;
    return sample({ prompt: `Summarize: ${String(args.text)}`, maxTokens: 50 });
  });
  mcp.tool("summarize", { input: z.object({ text: z.string() }), resolve: { summary } }, (_a, { summary }) =>
    !Array.isArray(summary.content) && summary.content.type === "text"
      ? `${summary.model}: ${summary.content.text}`
      : "(no text)",
  );
  return { mcp, runs: () => runs };
}

describe("sample", () => {
  it("asks the client's LLM and injects the CreateMessageResult (#71)", async () => {
    const { mcp } = samplingServer();
    const flow = new Flow(mcp, "summarize", { text: "hello world" }, { sampling: {} });
    expect(asked(await flow.round())).toEqual({ summary: SAMPLE_REQUEST });
    expect(textOf(await flow.round({ summary: SAMPLED("A greeting.") }))).toEqual({
      text: "test-model: A greeting.",
      isError: false,
    });
  });

  it("an answer of the wrong kind fails the call with 'wrong kind' (#81)", async () => {
    const { mcp } = samplingServer();
    for (const wrong of [accept({ text: "x" }), DECLINE, ROOTS, { role: "assistant" }]) {
      const flow = new Flow(mcp, "summarize", { text: "t" }, { sampling: {} });
      await flow.round();
      expect(textOf(await flow.round({ summary: wrong }))).toEqual({
        text: "Resolver 'summary' received a response of the wrong kind",
        isError: true,
      });
    }
  });

  it("a sampled outcome persists across rounds: sampled once over a longer chain (#80)", async () => {
    const mcp = quietServer();
    const spy = spyState(mcp);
    let samples = 0;
    const draft = resolver("draft", () => {
      samples++;
      return sample({ prompt: "Draft a haiku", maxTokens: 40 });
    });
    const approve = resolver("approve", { deps: { draft } }, ({ deps }) =>
      elicit(
        `Publish "${deps.draft.content && !Array.isArray(deps.draft.content) && deps.draft.content.type === "text" ? deps.draft.content.text : ""}"?`,
        z.object({ ok: z.boolean() }),
      ),
    );
    mcp.tool("publish", { resolve: { draft, approve } }, (_a, { approve }) =>
      approve.ok ? "published" : "kept",
    );
    const flow = new Flow(mcp, "publish", {}, ALL);
    expect(Object.keys(asked(await flow.round()))).toEqual(["draft"]);
    const r2 = await flow.round({ draft: SAMPLED("old pond") });
    expect(asked(r2)).toEqual({ approve: form('Publish "old pond"?', { ok: { type: "boolean" } }) });
    expect(spy.last().outcomes.draft).toEqual({
      action: "accept",
      data: SAMPLED("old pond"),
      q: questionDigest(sample({ prompt: "Draft a haiku", maxTokens: 40 })),
    });
    // The client re-sending a different completion does not replace the recorded one.
    const done = await flow.round({ approve: accept({ ok: true }), draft: SAMPLED("new pond") });
    expect(textOf(done).text).toBe("published");
    const sampledRequests = flow.results.flatMap((r) =>
      Object.values((r.inputRequests as Record<string, { method: string }>) ?? {}).filter(
        (q) => q.method === "sampling/createMessage",
      ),
    );
    expect(sampledRequests).toHaveLength(1);
    expect(samples).toBe(3);
  });

  it("a decline entry recorded for a sample question is invalid: asked again (#82)", async () => {
    const { mcp } = samplingServer();
    const spy = spyState(mcp);
    const q = questionDigest(sample({ prompt: "Summarize: t", maxTokens: 50 }));
    spy.forgeNext({ v: 1, outcomes: { summary: { action: "decline", q } }, asked: {} });
    const result = await new Flow(mcp, "summarize", { text: "t" }, { sampling: {} }).round();
    expect(Object.keys(asked(result))).toEqual(["summary"]);
  });

  it("a sample with tools round-trips with the declared sub-capability (#78) and accepts a tool_use answer", async () => {
    const mcp = quietServer();
    const plan = resolver("plan", () =>
      sample({
        prompt: "Plan the trip",
        maxTokens: 100,
        tools: [WEATHER_TOOL],
        toolChoice: { mode: "auto" },
      }),
    );
    mcp.tool("trip", { resolve: { plan } }, (_a, { plan }) => JSON.stringify(plan.content));
    const flow = new Flow(mcp, "trip", {}, { sampling: { tools: {} } });
    expect(asked(await flow.round())).toEqual({
      plan: {
        method: "sampling/createMessage",
        params: {
          maxTokens: 100,
          tools: [WEATHER_TOOL],
          toolChoice: { mode: "auto" },
          messages: [{ role: "user", content: { type: "text", text: "Plan the trip" } }],
        },
      },
    });
    const toolUse: CreateMessageResult = {
      role: "assistant",
      content: [{ type: "tool_use", id: "call-1", name: "weather", input: { city: "Oslo" } }],
      model: "m",
      stopReason: "toolUse",
    };
    const done = await flow.round({ plan: toolUse });
    expect(textOf(done)).toEqual({ text: JSON.stringify(toolUse.content), isError: false });
  });

  // Reference §3.5 step 5: without tools or toolChoice the answer is a plain CreateMessageResult.
  it.each([
    ["a tool_use array", [{ type: "tool_use", id: "t1", name: "rm_rf", input: { path: "/" } }]],
    ["a lone tool_use block", { type: "tool_use", id: "t1", name: "rm_rf", input: {} }],
    ["a tool_result block", [{ type: "tool_result", toolUseId: "t1", content: [] }]],
  ])("%s answering a sample that offered no tools is of the wrong kind", async (_label, content) => {
    const mcp = quietServer();
    const summary = resolver("summary", () => sample({ prompt: "Summarize", maxTokens: 50 }));
    let ran = false;
    mcp.tool("summarize", { resolve: { summary } }, () => {
      ran = true;
      return "ran";
    });
    const flow = new Flow(mcp, "summarize", {}, { sampling: {} });
    await flow.round();
    const answer = { role: "assistant", content, model: "m", stopReason: "toolUse" };
    expect(textOf(await flow.round({ summary: answer as never }))).toEqual({
      text: "Resolver 'summary' received a response of the wrong kind",
      isError: true,
    });
    expect(ran).toBe(false);
  });

  it("toolChoice alone offers tools: a tool_use answer is accepted (#84)", async () => {
    const mcp = quietServer();
    const plan = resolver("plan", () =>
      sample({ prompt: "Plan", maxTokens: 10, toolChoice: { mode: "auto" } }),
    );
    mcp.tool("trip", { resolve: { plan } }, (_a, { plan }) => plan.stopReason ?? "none");
    const flow = new Flow(mcp, "trip", {}, { sampling: { tools: {} } });
    await flow.round();
    const toolUse = {
      role: "assistant",
      content: [{ type: "tool_use", id: "c", name: "weather", input: {} }],
      model: "m",
      stopReason: "toolUse",
    };
    expect(textOf(await flow.round({ plan: toolUse as never }))).toEqual({ text: "toolUse", isError: false });
  });

  it("a plain text answer to a tools request is accepted (#79)", async () => {
    const mcp = quietServer();
    const plan = resolver("plan", () => sample({ prompt: "Plan", maxTokens: 10, tools: [WEATHER_TOOL] }));
    mcp.tool("trip", { resolve: { plan } }, (_a, { plan }) => plan.stopReason ?? "none");
    const flow = new Flow(mcp, "trip", {}, { sampling: { tools: {} } });
    await flow.round();
    expect(
      textOf(await flow.round({ plan: { ...SAMPLED("no tools needed"), stopReason: "endTurn" } })),
    ).toEqual({
      text: "endTurn",
      isError: false,
    });
  });
});

describe("roots", () => {
  it("asks for the client's roots and injects the ListRootsResult (#72)", async () => {
    const mcp = quietServer();
    const roots = resolver("roots", () => listRoots());
    mcp.tool("ws", { resolve: { roots } }, (_a, { roots }) =>
      roots.roots.map((r) => r.name ?? r.uri).join(","),
    );
    const flow = new Flow(mcp, "ws", {}, { roots: {} });
    expect(asked(await flow.round())).toEqual({ roots: { method: "roots/list", params: {} } });
    expect(textOf(await flow.round({ roots: ROOTS })).text).toBe("app,file:///work/lib");
  });

  it("a non-roots answer is of the wrong kind", async () => {
    const mcp = quietServer();
    const roots = resolver("roots", () => listRoots());
    mcp.tool("ws", { resolve: { roots } }, () => "x");
    const flow = new Flow(mcp, "ws", {}, { roots: {} });
    await flow.round();
    expect(textOf(await flow.round({ roots: { roots: [{ uri: "https://not-a-file" }] } }))).toEqual({
      text: "Resolver 'roots' received a response of the wrong kind",
      isError: true,
    });
  });
});

describe("mixed kinds", () => {
  it("form, url, sampling and roots questions batch into one round (#73)", async () => {
    const mcp = quietServer();
    const who = resolver("who", () => elicit("Who?", z.object({ name: z.string() })));
    const signIn = resolver("sign_in", () => elicitUrl("Sign in", "https://auth.example/"));
    const idea = resolver("idea", () => sample({ prompt: "An idea", maxTokens: 5 }));
    const roots = resolver("roots", () => listRoots());
    mcp.tool("all", { resolve: { who, signIn, idea, roots } }, (_a, r) =>
      [r.who.name, r.signIn.action, r.idea.model, r.roots.roots.length].join(" "),
    );
    const flow = new Flow(mcp, "all", {}, ALL);
    expect(asked(await flow.round())).toEqual({
      who: form("Who?", { name: { type: "string" } }),
      sign_in: {
        method: "elicitation/create",
        params: { mode: "url", message: "Sign in", url: "https://auth.example/" },
      },
      idea: {
        method: "sampling/createMessage",
        params: { maxTokens: 5, messages: [{ role: "user", content: { type: "text", text: "An idea" } }] },
      },
      roots: { method: "roots/list", params: {} },
    });
    const done = await flow.round({
      who: accept({ name: "ada" }),
      sign_in: { action: "accept" },
      idea: SAMPLED("x"),
      roots: ROOTS,
    });
    expect(textOf(done)).toEqual({ text: "ada accept test-model 2", isError: false });
  });
});

describe("capability gates: -32021 instead of asking (#74–#77, #92)", () => {
  const tools = () => {
    const mcp = quietServer();
    const form = resolver("ask_form", () => elicit("Name?", z.object({ name: z.string() })));
    const url = resolver("ask_url", () => elicitUrl("Sign in", "https://auth.example/"));
    const plain = resolver("ask_sample", () => sample({ prompt: "Hi", maxTokens: 5 }));
    const withTools = resolver("ask_tools", () =>
      sample({ prompt: "Hi", maxTokens: 5, tools: [WEATHER_TOOL] }),
    );
    const choiceOnly = resolver("ask_choice", () =>
      sample({ prompt: "Hi", maxTokens: 5, toolChoice: { mode: "none" } }),
    );
    const roots = resolver("ask_roots", () => listRoots());
    mcp.tool("form", { resolve: { form } }, () => "");
    mcp.tool("url", { resolve: { url } }, () => "");
    mcp.tool("sample", { resolve: { plain } }, () => "");
    mcp.tool("tools", { resolve: { withTools } }, () => "");
    mcp.tool("choice", { resolve: { choiceOnly } }, () => "");
    mcp.tool("roots", { resolve: { roots } }, () => "");
    return mcp;
  };

  it.each<[string, ClientCapabilities, string, string, ClientCapabilities]>([
    ["form", {}, "form elicitation", "ask_form", { elicitation: { form: {} } }],
    ["form", { elicitation: { url: {} } }, "form elicitation", "ask_form", { elicitation: { form: {} } }],
    ["url", { elicitation: { form: {} } }, "url elicitation", "ask_url", { elicitation: { url: {} } }],
    ["url", { elicitation: {} }, "url elicitation", "ask_url", { elicitation: { url: {} } }],
    ["sample", { elicitation: { form: {} } }, "sampling", "ask_sample", { sampling: {} }],
    ["tools", { sampling: {} }, "sampling.tools", "ask_tools", { sampling: { tools: {} } }],
    ["choice", { sampling: {} }, "sampling.tools", "ask_choice", { sampling: { tools: {} } }],
    ["roots", { sampling: {} }, "roots", "ask_roots", { roots: {} }],
  ])(
    "tool %s with capabilities %o → -32021 naming %s and the resolver",
    async (tool, caps, label, key, required) => {
      const mcp = tools();
      const error = await new Flow(mcp, tool, {}, caps).error();
      expect(error).toEqual({
        code: -32021,
        message: `Client did not declare the ${label} capability required by resolver '${key}'`,
        data: { requiredCapabilities: required },
      });
    },
  );

  it.each<[string, ClientCapabilities]>([
    ["form", { elicitation: {} }],
    ["form", { elicitation: { form: {} } }],
    ["url", { elicitation: { url: {} } }],
    ["sample", { sampling: {} }],
    ["tools", { sampling: { tools: {} } }],
    ["choice", { sampling: { tools: {} } }],
    ["roots", { roots: {} }],
  ])("tool %s with capabilities %o asks", async (tool, caps) => {
    const result = await new Flow(tools(), tool, {}, caps).round();
    expect(result.resultType).toBe("input_required");
  });

  it("the server stays usable after a refusal (#76)", async () => {
    const mcp = tools();
    expect((await new Flow(mcp, "form", {}, {}).error()).code).toBe(-32021);
    const flow = new Flow(mcp, "form", {}, { elicitation: { form: {} } });
    await flow.round();
    expect(textOf(await flow.round({ ask_form: accept({ name: "x" }) }))).toEqual({
      text: "",
      isError: false,
    });
  });

  it("a resolver that does not ask needs no capability, even next to one that could", async () => {
    const mcp = quietServer();
    const maybe = resolver("maybe", { args: ["ask"] }, ({ args }) =>
      args.ask ? elicit("?", z.object({ x: z.string() })) : { x: "default" },
    );
    mcp.tool("t", { input: z.object({ ask: z.boolean() }), resolve: { maybe } }, (_a, { maybe }) => maybe.x);
    expect(textOf(await new Flow(mcp, "t", { ask: false }, {}).round()).text).toBe("default");
    expect((await new Flow(mcp, "t", { ask: true }, {}).error()).code).toBe(-32021);
  });
});
