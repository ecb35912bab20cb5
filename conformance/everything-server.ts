// The "everything server" the official MCP conformance suite tests in server mode, built on our own
// MCPServer + serveHttp and nothing else. It exposes every tool, prompt, resource and template the
// suite's scenarios call (see shared/reference/conformance-suite.md §5.1) with real behaviour:
// progress notifications, logLevel-gated logging, sealed requestState (the SDK's default AES-GCM
// boundary), and input requests that follow the capabilities the client declared.
//
// One endpoint serves both requirement sets: a request carrying the `_meta` envelope is served
// statelessly as 2026-07-28; `initialize` opens a 2025-11-25 session (Mcp-Session-Id, GET stream,
// DELETE), where the same resolvers send real elicitation/create and sampling/createMessage
// requests (docs/legacy-clients.md).
//
// Run from the repo root (so tsconfig paths resolve):  PORT=3000 node --import tsx conformance/everything-server.ts
// PORT=0 (the default) picks a free port. The first stdout line is `listening <url>`.
import { pathToFileURL } from "node:url";
import type { ContentBlock, CreateMessageResult, InputRequests, ListRootsResult } from "roundtrip-mcp";
import { serveHttp } from "roundtrip-mcp/http";
import {
  type Context,
  elicit,
  elicitationRequest,
  inputRequired,
  inputResponse,
  jsonSchema,
  listRoots,
  MCPServer,
  resolver,
  rootsRequest,
  sample,
  samplingRequest,
  withOutcome,
} from "roundtrip-mcp/server";
import { serverTasks } from "roundtrip-mcp/tasks";
import { z } from "zod";
import { registerTaskTools } from "./everything-tasks.js";

// A 1×1 PNG (red pixel).
const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/** A real, tiny WAV file: 16-bit mono PCM at 8 kHz, 80 samples of a 440 Hz tone (10 ms). */
function tinyWavBase64(): string {
  const sampleRate = 8000;
  const samples = 80;
  const dataBytes = samples * 2;
  const wav = Buffer.alloc(44 + dataBytes);
  wav.write("RIFF", 0, "ascii");
  wav.writeUInt32LE(36 + dataBytes, 4);
  wav.write("WAVE", 8, "ascii");
  wav.write("fmt ", 12, "ascii");
  wav.writeUInt32LE(16, 16); // fmt chunk size
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(sampleRate, 24);
  wav.writeUInt32LE(sampleRate * 2, 28); // byte rate
  wav.writeUInt16LE(2, 32); // block align
  wav.writeUInt16LE(16, 34); // bits per sample
  wav.write("data", 36, "ascii");
  wav.writeUInt32LE(dataBytes, 40);
  for (let i = 0; i < samples; i++) {
    wav.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / sampleRate)), 44 + i * 2);
  }
  return wav.toString("base64");
}
const WAV_BASE64 = tinyWavBase64();

const STATIC_TEXT = "This is the content of the static text resource.";

const text = (value: string): ContentBlock => ({ type: "text", text: value });
const image = (): ContentBlock => ({ type: "image", data: PNG_BASE64, mimeType: "image/png" });
const embedded = (uri: string, body: string): ContentBlock => ({
  type: "resource",
  resource: { uri, mimeType: "text/plain", text: body },
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---- the questions the input-required tools ask ----------------------------------------------

const Name = z.object({ name: z.string().describe("Your name") });
const Confirm = z.object({ ok: z.boolean().describe("Confirm to continue") });
const Color = z.object({ color: z.string().describe("Your favourite color") });
const UserContext = z.object({ context: z.string().describe("Context for the prompt") });

const ASK_NAME = elicitationRequest("What is your name?", Name);
const askName = resolver("user_name", () => elicit("What is your name?", Name));
const askGreeting = resolver("greeting", () =>
  sample({ prompt: "Write a one-line greeting.", maxTokens: 50 }),
);
const askRoots = resolver("client_roots", () => listRoots());
const askCapital = resolver("capital_question", () =>
  sample({ prompt: "What is the capital of France?", maxTokens: 100 }),
);
const ASK_CONFIRM = elicitationRequest("Please confirm to continue.", Confirm);
const ASK_CAPITAL = samplingRequest({ prompt: "What is the capital of France?", maxTokens: 100 });
const ASK_ROOTS = rootsRequest();
const ASK_STEP1 = elicitationRequest("Step 1: what is your name?", Name);
const askColor = (name: string) =>
  elicitationRequest(`Step 2: ${name}, what is your favourite color?`, Color);

const askPrompt = resolver("prompt_reply", { args: ["prompt"] }, ({ args }) =>
  sample({ prompt: String(args.prompt), maxTokens: 100 }),
);
const UserInfo = {
  type: "object",
  properties: {
    username: { type: "string", description: "User's response" },
    email: { type: "string", description: "User's email address" },
  },
  required: ["username", "email"],
} as const;
const askUserInfo = resolver("user_info", { args: ["message"] }, ({ args }) =>
  elicit(String(args.message), UserInfo),
);
// SEP-1034: a default for every primitive type.
const askWithDefaults = resolver("defaults_form", () =>
  elicit("Please review these values (each has a default).", {
    type: "object",
    properties: {
      name: { type: "string", description: "User name", default: "John Doe" },
      age: { type: "integer", description: "User age", default: 30 },
      score: { type: "number", description: "User score", default: 95.5 },
      status: {
        type: "string",
        description: "User status",
        enum: ["active", "inactive", "pending"],
        default: "active",
      },
      verified: { type: "boolean", description: "Verification status", default: true },
    },
    required: [],
  }),
);
// SEP-1330: untitled and titled single-select, the legacy enumNames form, untitled and titled multi-select.
const askEnums = resolver("enums_form", () =>
  elicit("Please choose.", {
    type: "object",
    properties: {
      untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
      titledSingle: {
        type: "string",
        oneOf: [
          { const: "value1", title: "First Option" },
          { const: "value2", title: "Second Option" },
          { const: "value3", title: "Third Option" },
        ],
      },
      legacyEnum: {
        type: "string",
        enum: ["opt1", "opt2", "opt3"],
        enumNames: ["Option One", "Option Two", "Option Three"],
      },
      untitledMulti: { type: "array", items: { type: "string", enum: ["option1", "option2", "option3"] } },
      titledMulti: {
        type: "array",
        items: {
          anyOf: [
            { const: "value1", title: "First Choice" },
            { const: "value2", title: "Second Choice" },
            { const: "value3", title: "Third Choice" },
          ],
        },
      },
    },
    required: [],
  }),
);

function describeOutcome(outcome: { action: string; content?: unknown }): string {
  return outcome.action === "accept"
    ? `action=accept, content=${JSON.stringify(outcome.content)}`
    : `action=${outcome.action}`;
}

/** The accepted content of a form answer when it matches `schema`, else undefined. */
function acceptedAnswer<T>(ctx: Context, key: string, schema: z.ZodType<T>): T | undefined {
  const answer = inputResponse(ctx, key);
  if (answer.kind !== "accept") return undefined;
  const parsed = schema.safeParse(answer.content);
  return parsed.success ? parsed.data : undefined;
}

function samplingResultText(result: CreateMessageResult): string {
  const blocks = Array.isArray(result.content) ? result.content : [result.content];
  const first = blocks.find((block) => block.type === "text");
  return first && "text" in first ? String(first.text) : "(non-text sampling result)";
}

function describeRoots(result: ListRootsResult): string {
  return result.roots.map((root) => (root.name ? `${root.name} (${root.uri})` : root.uri)).join(", ");
}

function samplingText(ctx: Context, key: string): string | undefined {
  const answer = inputResponse(ctx, key);
  return answer.kind === "sampling" ? samplingResultText(answer.result) : undefined;
}

function rootsText(ctx: Context, key: string): string | undefined {
  const answer = inputResponse(ctx, key);
  return answer.kind === "roots" ? describeRoots(answer.result) : undefined;
}

export function createEverythingServer(): MCPServer {
  const mcp = new MCPServer("roundtrip-conformance-everything-server", {
    version: "0.1.0",
    instructions: "The roundtrip-mcp fixture for the official MCP conformance suite.",
    listChanged: true,
    tasks: serverTasks(),
  });

  // ---- listen streams -----------------------------------------------------------------------------

  mcp.tool(
    "test_trigger_tool_change",
    { description: "Announces a tools list change on listen streams" },
    () => {
      mcp.server.notifyToolsListChanged();
      return text("Announced notifications/tools/list_changed.");
    },
  );

  mcp.tool(
    "test_trigger_prompt_change",
    { description: "Announces a prompts list change on listen streams" },
    () => {
      mcp.server.notifyPromptsListChanged();
      return text("Announced notifications/prompts/list_changed.");
    },
  );

  // ---- plain tools ------------------------------------------------------------------------------

  mcp.tool("test_simple_text", { description: "Returns a simple text content block" }, () =>
    text("This is a simple text response for testing."),
  );

  mcp.tool("test_image_content", { description: "Returns a base64 PNG image content block" }, () => image());

  mcp.tool("test_audio_content", { description: "Returns a base64 WAV audio content block" }, () => ({
    type: "audio",
    data: WAV_BASE64,
    mimeType: "audio/wav",
  }));

  mcp.tool("test_embedded_resource", { description: "Returns an embedded text resource" }, () =>
    embedded("test://embedded-resource", "This is an embedded resource content."),
  );

  mcp.tool(
    "test_multiple_content_types",
    { description: "Returns text, image and embedded resource content together" },
    () => [
      text("Multiple content types test:"),
      image(),
      embedded("test://mixed-content-resource", '{"test":"data","value":123}'),
    ],
  );

  mcp.tool("test_error_handling", { description: "Always fails with an isError result" }, () => ({
    content: [text("This tool intentionally returns an error for testing")],
    isError: true,
  }));

  mcp.tool(
    "test_tool_with_progress",
    { description: "Reports progress 0, 50 and 100 of 100 when the request carries a progressToken" },
    async (_args, ctx) => {
      await ctx.progress(0, 100, "started");
      await sleep(50);
      await ctx.progress(50, 100, "half way");
      await sleep(50);
      await ctx.progress(100, 100, "done");
      return text("Progress test completed");
    },
  );

  // Three info logs through the request-scoped logger: gated by `_meta` logLevel on the 2026 wire,
  // by the session's logging/setLevel on a 2025 session.
  const logThree = (pauseMs: number) => async (_args: unknown, ctx: Context) => {
    await ctx.info("Tool execution started");
    await sleep(pauseMs);
    await ctx.info("Tool processing data");
    await sleep(pauseMs);
    await ctx.info("Tool execution completed");
    return text("Logging test completed");
  };

  mcp.tool(
    "test_logging_tool",
    { description: "Logs three messages through the request-scoped, logLevel-gated logger" },
    logThree(20),
  );

  // 2025-11-25 (tools-call-with-logging): the same three logs, ~50 ms apart.
  mcp.tool(
    "test_tool_with_logging",
    { description: "Logs three info messages about 50 ms apart (2025: after logging/setLevel)" },
    logThree(50),
  );

  mcp.tool(
    "test_streaming_elicitation",
    { description: "Completes without ever sending a server-to-client request on the stream" },
    () => text("Streaming elicitation test completed: nothing was asked on the response stream."),
  );

  // ---- multi-round-trip tools -----------------------------------------------------------------

  mcp.tool(
    "test_input_required_result_elicitation",
    { description: "Asks for the user's name (user_name) through an embedded elicitation, then greets" },
    (_args, ctx) => {
      const name = acceptedAnswer(ctx, "user_name", Name)?.name;
      // No requestState on purpose: the answer alone is enough, and a missing or malformed one re-asks.
      if (name === undefined) return inputRequired({ inputRequests: { user_name: ASK_NAME } });
      return text(`Hello, ${name}!`);
    },
  );

  // The dependency form: resolvers declare the questions, the SDK asks them, seals its own state
  // and hands the handler the answers.
  mcp.tool(
    "test_input_required_result_sampling",
    {
      description: "Asks the client's LLM a question (capital_question), then returns its answer",
      resolve: { capital_question: askCapital },
    },
    (_args, { capital_question }) => text(`The model answered: ${samplingResultText(capital_question)}`),
  );

  mcp.tool(
    "test_input_required_result_list_roots",
    {
      description: "Asks for the client's roots (client_roots), then lists them",
      resolve: { roots: askRoots },
    },
    (_args, { roots }) => text(`Client roots: ${describeRoots(roots) || "(none)"}`),
  );

  mcp.tool(
    "test_input_required_result_request_state",
    { description: "Asks for a confirmation (confirm) with sealed requestState, verified on the retry" },
    (_args, ctx) => {
      const ok = acceptedAnswer(ctx, "confirm", Confirm)?.ok;
      // The state is sealed by the SDK; a retry that reaches us carries the verified plaintext.
      if (ctx.requestState !== "confirm/v1" || ok === undefined) {
        return inputRequired({ inputRequests: { confirm: ASK_CONFIRM }, requestState: "confirm/v1" });
      }
      return text(ok ? "state-ok: confirmed" : "state-ok: not confirmed");
    },
  );

  mcp.tool(
    "test_input_required_result_multiple_inputs",
    {
      description: "Asks for a name, a sampling and the roots in one round (resolvers; SDK-sealed state)",
      resolve: { name: askName, greeting: askGreeting, roots: askRoots },
    },
    (_args, { name, greeting, roots }) =>
      text(
        `Hello, ${name.name}! Greeting: ${samplingResultText(greeting)}. Roots: ${describeRoots(roots) || "(none)"}`,
      ),
  );

  mcp.tool(
    "test_input_required_result_multi_round",
    {
      description:
        "Two rounds of questions (step1: name, then step2: color); the round lives in sealed state",
    },
    (_args, ctx) => {
      const state = ctx.requestState;
      if (state?.startsWith("round/2/")) {
        const name = state.slice("round/2/".length);
        const answer = inputResponse(ctx, "step2");
        const color = answer.kind === "accept" ? Color.safeParse(answer.content) : undefined;
        if (color?.success) return text(`Multi-round complete: ${name} likes ${color.data.color}.`);
        return inputRequired({ inputRequests: { step2: askColor(name) }, requestState: state });
      }
      if (state === "round/1") {
        const name = acceptedAnswer(ctx, "step1", Name);
        // Round two is a new question under a new state: the server keeps nothing between rounds.
        if (name !== undefined)
          return inputRequired({
            inputRequests: { step2: askColor(name.name) },
            requestState: `round/2/${name.name}`,
          });
      }
      return inputRequired({ inputRequests: { step1: ASK_STEP1 }, requestState: "round/1" });
    },
  );

  mcp.tool(
    "test_input_required_result_tampered_state",
    { description: "Asks with sealed requestState; only a state the server minted is accepted" },
    (_args, ctx) => {
      // A tampered token never reaches this handler: the SDK's boundary answers -32602 first.
      const ok = acceptedAnswer(ctx, "confirm", Confirm)?.ok;
      if (ctx.requestState !== "tamper-check/v1" || ok === undefined) {
        return inputRequired({ inputRequests: { confirm: ASK_CONFIRM }, requestState: "tamper-check/v1" });
      }
      return text("requestState verified");
    },
  );

  mcp.tool(
    "test_input_required_result_capabilities",
    {
      description:
        "Asks only for the input kinds (elicitation, sampling, roots) the request's clientCapabilities declare",
    },
    (_args, ctx) => {
      const answers: string[] = [];
      const ask: InputRequests = {};
      if (ctx.canAsk(ASK_NAME)) {
        const name = acceptedAnswer(ctx, "user_name", Name)?.name;
        if (name === undefined) ask.user_name = ASK_NAME;
        else answers.push(`name=${name}`);
      }
      if (ctx.canAsk(ASK_CAPITAL)) {
        const reply = samplingText(ctx, "capital_question");
        if (reply === undefined) ask.capital_question = ASK_CAPITAL;
        else answers.push(`sampling=${reply}`);
      }
      if (ctx.canAsk(ASK_ROOTS)) {
        const roots = rootsText(ctx, "client_roots");
        if (roots === undefined) ask.client_roots = ASK_ROOTS;
        else answers.push(`roots=${roots}`);
      }
      if (Object.keys(ask).length > 0) return inputRequired({ inputRequests: ask });
      return text(
        answers.length > 0
          ? `Answered: ${answers.join("; ")}`
          : "The client declared no input capability, so nothing was asked.",
      );
    },
  );

  mcp.tool(
    "test_missing_capability",
    {
      description:
        "Needs the client's LLM: asks for sampling/createMessage, which the SDK refuses with -32021 when undeclared",
    },
    (_args, ctx) => {
      const reply = samplingText(ctx, "capital_question");
      if (reply === undefined) return inputRequired({ inputRequests: { capital_question: ASK_CAPITAL } });
      return text(`The model answered: ${reply}`);
    },
  );

  // ---- questions by argument, and the 2025 elicitation schema scenarios ------------------------------
  // Resolvers: on a 2025 session the SDK sends each question as a real elicitation/create or
  // sampling/createMessage related to the call; on the 2026 wire it comes back in an
  // InputRequiredResult. Same tool, both eras.

  mcp.tool(
    "test_sampling",
    {
      description: "Sends its prompt to the client's LLM (sampling/createMessage), then returns the answer",
      input: z.object({ prompt: z.string().describe("The prompt to send to the LLM") }),
      resolve: { reply: askPrompt },
    },
    (_args, { reply }) => text(`LLM response: ${samplingResultText(reply)}`),
  );

  mcp.tool(
    "test_elicitation",
    {
      description: "Shows its message to the user with a username/email form (elicitation/create)",
      input: z.object({ message: z.string().describe("The message to show the user") }),
      resolve: { answer: withOutcome(askUserInfo) },
    },
    (_args, { answer }) => text(`User response: ${describeOutcome(answer)}`),
  );

  mcp.tool(
    "test_elicitation_sep1034_defaults",
    {
      description: "Asks a form whose every primitive field has a default (SEP-1034)",
      resolve: { answer: withOutcome(askWithDefaults) },
    },
    (_args, { answer }) => text(`Elicitation completed: ${describeOutcome(answer)}`),
  );

  mcp.tool(
    "test_elicitation_sep1330_enums",
    {
      description: "Asks a form with all five enum shapes (SEP-1330)",
      resolve: { answer: withOutcome(askEnums) },
    },
    (_args, { answer }) => text(`Elicitation completed: ${describeOutcome(answer)}`),
  );

  // ---- schema-feature tools (pending scenarios, recommended) -------------------------------------

  // A raw JSON Schema, advertised verbatim and validated as 2020-12 (jsonSchema brings the validator).
  mcp.tool(
    "json_schema_2020_12_tool",
    {
      description: "A tool whose inputSchema uses JSON Schema 2020-12 features, advertised verbatim",
      input: jsonSchema({
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        $defs: {
          address: {
            $anchor: "addressDef",
            type: "object",
            properties: { street: { type: "string" }, city: { type: "string" } },
          },
        },
        properties: {
          name: { type: "string" },
          address: { $ref: "#/$defs/address" },
          contactMethod: { type: "string", enum: ["phone", "email"] },
          phone: { type: "string" },
          email: { type: "string" },
        },
        allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
        if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
        // biome-ignore lint/suspicious/noThenProperty: the JSON Schema 2020-12 keyword, not a thenable.
        then: { required: ["phone"] },
        else: { required: ["email"] },
        additionalProperties: false,
      }),
    },
    (args) => text(`Received: ${JSON.stringify(args)}`),
  );

  mcp.tool(
    "test_x_mcp_header",
    {
      description: "Its region argument is mirrored into the Mcp-Param-Region header (SEP-2243)",
      input: jsonSchema({
        type: "object",
        properties: { region: { type: "string", description: "A cloud region", "x-mcp-header": "Region" } },
        required: ["region"],
      }),
    },
    (args) => text(`Region: ${String(args.region)}`),
  );

  // ---- prompts --------------------------------------------------------------------------------

  mcp.prompt("test_simple_prompt", { description: "A simple prompt without arguments" }, () => ({
    role: "user",
    content: { type: "text", text: "This is a simple prompt for testing." },
  }));

  const WORDS = ["paris", "park", "parse", "party", "testValue1", "testValue2"];
  mcp.prompt(
    "test_prompt_with_arguments",
    {
      description: "A prompt with two required arguments",
      arguments: z.object({
        arg1: z.string().describe("First test argument"),
        arg2: z.string().describe("Second test argument"),
      }),
      complete: { arg1: (value) => WORDS.filter((word) => word.startsWith(value)) },
    },
    ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
  );

  mcp.prompt(
    "test_prompt_with_embedded_resource",
    {
      description: "A prompt that embeds a resource, then asks about it",
      arguments: z.object({ resourceUri: z.string().describe("URI of the resource to embed") }),
    },
    ({ resourceUri }) => [
      { role: "user", content: embedded(resourceUri, "Embedded resource content for testing.") },
      { role: "user", content: text("Please process the embedded resource above.") },
    ],
  );

  mcp.prompt("test_prompt_with_image", { description: "A prompt with an image, then a question" }, () => [
    { role: "user", content: image() },
    { role: "user", content: text("Please analyze the image above.") },
  ]);

  mcp.prompt(
    "test_input_required_result_prompt",
    { description: "Asks for context (user_context) through an embedded elicitation before rendering" },
    (_args, ctx) => {
      const answer = inputResponse(ctx, "user_context");
      const parsed = answer.kind === "accept" ? UserContext.safeParse(answer.content) : undefined;
      if (!parsed?.success) {
        return inputRequired({
          inputRequests: {
            user_context: elicitationRequest("What context should the prompt use?", UserContext),
          },
        });
      }
      return [
        { role: "user", content: text(`Context: ${parsed.data.context}`) },
        { role: "user", content: text("Please answer with that context in mind.") },
      ];
    },
  );

  // ---- resources (the static text one first: the caching scenario reads the first listed) -------

  mcp.resource(
    "test://static-text",
    { name: "Static Text Resource", description: "A static text resource", mimeType: "text/plain" },
    () => STATIC_TEXT,
  );

  mcp.resource(
    "test://static-binary",
    { name: "Static Binary Resource", description: "A static PNG image", mimeType: "image/png" },
    () => Buffer.from(PNG_BASE64, "base64"),
  );

  mcp.resource(
    "test://watched-resource",
    { name: "Watched Resource", description: "A resource meant to be watched", mimeType: "text/plain" },
    () => "Watched resource content.",
  );

  mcp.resource(
    "test://template/{id}/data",
    {
      name: "Template Data Resource",
      description: "JSON data for any id",
      mimeType: "application/json",
      complete: { id: (value) => ["1", "2", "3", "123"].filter((id) => id.startsWith(value)) },
    },
    ({ id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
  );

  registerTaskTools(mcp);
  return mcp;
}

async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? "0");
  const host = process.env.HOST ?? "127.0.0.1";
  const handle = await serveHttp(createEverythingServer(), { host, port, path: "/mcp" });
  process.stdout.write(`listening ${handle.url.href}\n`);
  const stop = () => {
    handle.close().finally(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

// Started as a program (not when imported, e.g. by a test that wants createEverythingServer()).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
