import { describe, expect, it } from "vitest";
import { z } from "zod";
import { inputRequired, jsonSchema } from "../../../src/server/mcp/index.js";
import { McpError, type PromptMessage } from "../../../src/types/index.js";
import { errorOf, resultOf } from "../../helpers.js";
import { connect, quietServer, send, stamp } from "./helpers.js";

const STAMP = stamp("prompts");

const Briefing = z.object({
  topic: z.string().describe("What the briefing is about"),
  tone: z.string().optional(),
  lang: z.string().default("en").describe("Language code"),
});

describe("prompts/list", () => {
  it("lists prompts in registration order, arguments derived from a zod object", async () => {
    const mcp = quietServer("prompts");
    mcp.prompt(
      "briefing",
      { title: "Briefing", description: "Draft a briefing", arguments: Briefing },
      ({ topic }) => `Brief me on ${topic}`,
    );
    mcp.prompt("hello", {}, () => "Hello");
    expect(resultOf(await send(mcp, "prompts/list"))).toEqual({
      prompts: [
        {
          name: "briefing",
          title: "Briefing",
          description: "Draft a briefing",
          arguments: [
            { name: "topic", description: "What the briefing is about", required: true },
            { name: "tone", required: false },
            { name: "lang", description: "Language code", required: false },
          ],
        },
        { name: "hello" },
      ],
      resultType: "complete",
      ttlMs: 0,
      cacheScope: "private",
      _meta: STAMP,
    });
  });

  it("derives arguments from a raw JSON Schema (jsonSchema) too", async () => {
    const mcp = quietServer("prompts");
    mcp.prompt(
      "raw",
      {
        arguments: jsonSchema<{ who: string }>({
          type: "object",
          properties: { who: { type: "string", title: "Who", description: "The person" } },
          required: ["who"],
        }),
      },
      ({ who }) => `Hi ${String(who)}`,
    );
    const prompts = resultOf(await send(mcp, "prompts/list")).prompts as { arguments: unknown }[];
    expect(prompts[0]?.arguments).toEqual([
      { name: "who", title: "Who", description: "The person", required: true },
    ]);
  });

  it("rejects a duplicate prompt name and a non-object arguments schema at registration", () => {
    const mcp = quietServer("prompts");
    mcp.prompt("p", {}, () => "x");
    expect(() => mcp.prompt("p", {}, () => "y")).toThrow('A prompt named "p" is already registered');
    expect(() => mcp.prompt("q", { arguments: z.string() }, () => "y")).toThrow(
      /The arguments of prompt q must describe an object/,
    );
  });

  it("advertises prompts (and no completions) once a prompt without completers is registered", async () => {
    const mcp = quietServer("prompts");
    mcp.prompt("p", {}, () => "x");
    expect(resultOf(await send(mcp, "server/discover")).capabilities).toEqual({ prompts: {}, logging: {} });
  });
});

describe("prompts/get returns", () => {
  const message: PromptMessage = { role: "assistant", content: { type: "text", text: "Sure." } };
  const cases: [string, unknown, Record<string, unknown>][] = [
    [
      "a string (one user text message, plus the prompt description)",
      "Write a haiku",
      {
        description: "Poetry",
        messages: [{ role: "user", content: { type: "text", text: "Write a haiku" } }],
      },
    ],
    ["one message", message, { description: "Poetry", messages: [message] }],
    [
      "a message array",
      [{ role: "user", content: { type: "text", text: "Q" } }, message],
      { description: "Poetry", messages: [{ role: "user", content: { type: "text", text: "Q" } }, message] },
    ],
    [
      "a full GetPromptResult (as-is)",
      { description: "Custom", messages: [message], _meta: { "com.example/k": "v" } },
      { description: "Custom", messages: [message], _meta: { "com.example/k": "v", ...STAMP } },
    ],
  ];

  it.each(cases)("converts %s", async (_label, value, expected) => {
    const mcp = quietServer("prompts");
    mcp.prompt("poem", { description: "Poetry" }, () => value as never);
    expect(resultOf(await send(mcp, "prompts/get", { name: "poem" }))).toEqual({
      _meta: STAMP,
      ...expected,
      resultType: "complete",
    });
  });

  it("passes an InputRequiredResult through (no message conversion, no cache hints)", async () => {
    const mcp = quietServer("prompts");
    mcp.prompt("ask", { description: "Asks" }, () =>
      inputRequired({ inputRequests: { where: { method: "roots/list", params: {} } } }),
    );
    expect(resultOf(await send(mcp, "prompts/get", { name: "ask" }, { roots: {} }))).toEqual({
      resultType: "input_required",
      inputRequests: { where: { method: "roots/list", params: {} } },
      _meta: STAMP,
    });
  });

  it("passes validated arguments (defaults applied) to the handler", async () => {
    const mcp = quietServer("prompts");
    const seen: unknown[] = [];
    mcp.prompt("briefing", { arguments: Briefing }, (args) => {
      seen.push(args);
      return "ok";
    });
    await send(mcp, "prompts/get", { name: "briefing", arguments: { topic: "rust" } });
    expect(seen).toEqual([{ topic: "rust", lang: "en" }]);
  });
});

describe("prompts/get arguments typed other than string", () => {
  const Top = z.object({ n: z.number().int(), ratio: z.number().optional(), loud: z.boolean().optional() });

  function topServer() {
    const mcp = quietServer("prompts");
    const seen: unknown[] = [];
    mcp.prompt("top", { arguments: Top }, (args) => {
      seen.push(args);
      return "ok";
    });
    return { mcp, seen };
  }

  it("takes the strings that spell a number, an integer or a boolean, as the reference does", async () => {
    const { mcp, seen } = topServer();
    const args = { n: "5", ratio: "-2.5e1", loud: "true" };
    expect(resultOf(await send(mcp, "prompts/get", { name: "top", arguments: args })).messages).toHaveLength(
      1,
    );
    expect(seen).toEqual([{ n: 5, ratio: -25, loud: true }]);
  });

  it.each([
    ["a fraction for an integer", { n: "1.5" }],
    ["a hex literal", { n: "0x10" }],
    ["an empty string", { n: "" }],
    ["a number too large to hold", { n: "1", ratio: "1e400" }],
    ["a boolean spelled otherwise", { n: "1", loud: "yes" }],
  ])("leaves %s to the schema, which refuses it with -32602", async (_label, args) => {
    const { mcp, seen } = topServer();
    const error = errorOf(await send(mcp, "prompts/get", { name: "top", arguments: args }));
    expect(error).toEqual({
      code: -32602,
      message: expect.stringMatching(/^Invalid arguments for prompt top: /),
    });
    expect(seen).toEqual([]);
  });

  it("leaves a number too large to hold as a string for a raw JSON Schema, which refuses it", async () => {
    const mcp = quietServer("prompts");
    let ran = false;
    const schema = jsonSchema({ type: "object", properties: { n: { type: "number" } } });
    mcp.prompt("raw", { arguments: schema }, () => {
      ran = true;
      return "ok";
    });
    const error = errorOf(await send(mcp, "prompts/get", { name: "raw", arguments: { n: "1e400" } }));
    expect(error).toEqual({
      code: -32602,
      message: expect.stringMatching(/^Invalid arguments for prompt raw: /),
    });
    expect(ran).toBe(false);
  });

  // Regression: only a bare `type: "number"` was coerced, so a nullable number (zod renders
  // `type: ["number", "null"]`, or an `anyOf` with `{ type: "null" }` for an integer) refused "5".
  it("takes the strings that spell a number or a boolean for nullable, optional and defaulted ones", async () => {
    const mcp = quietServer("prompts");
    const seen: unknown[] = [];
    const Nullable = z.object({
      a: z.number().nullable(),
      b: z.number().optional(),
      c: z.number().default(3),
      d: z.union([z.number(), z.null()]),
      e: z.number().int().nullish(),
      f: z.boolean().nullable().optional(),
      g: z.number().nullable().default(null),
    });
    mcp.prompt("nullable", { arguments: Nullable }, (args) => {
      seen.push(args);
      return "ok";
    });
    const args = { a: "1", b: "2", c: "-3", d: "4.5", e: "6", f: "false", g: "7" };
    expect(resultOf(await send(mcp, "prompts/get", { name: "nullable", arguments: args }))).toEqual({
      messages: [{ role: "user", content: { type: "text", text: "ok" } }],
      resultType: "complete",
      _meta: STAMP,
    });
    expect(seen).toEqual([{ a: 1, b: 2, c: -3, d: 4.5, e: 6, f: false, g: 7 }]);
  });

  it("takes a number for a raw JSON Schema typed number or null (type list, anyOf, oneOf)", async () => {
    const mcp = quietServer("prompts");
    const seen: unknown[] = [];
    const schema = jsonSchema({
      type: "object",
      properties: {
        n: { type: ["number", "null"] },
        i: { anyOf: [{ type: "null" }, { type: "integer" }] },
        b: { oneOf: [{ type: "boolean" }, { type: "null" }] },
        s: { type: ["string", "null"] },
        sn: { type: ["string", "number"] },
        ns: { anyOf: [{ type: "number" }, { type: "string" }] },
      },
      required: ["n"],
    });
    mcp.prompt("raw", { arguments: schema }, (args) => {
      seen.push(args);
      return "ok";
    });
    const args = { n: "2.5", i: "3", b: "true", s: "4", sn: "5", ns: "6" };
    await send(mcp, "prompts/get", { name: "raw", arguments: args });
    expect(seen).toEqual([{ n: 2.5, i: 3, b: true, s: "4", sn: "5", ns: "6" }]);
    // "null" is no number: left as it came, for the schema to refuse (as the reference's pydantic does).
    expect(errorOf(await send(mcp, "prompts/get", { name: "raw", arguments: { n: "null" } }))).toEqual({
      code: -32602,
      message: expect.stringMatching(/^Invalid arguments for prompt raw: /),
    });
  });

  it("leaves a property that also takes a string as it came", async () => {
    const mcp = quietServer("prompts");
    const seen: unknown[] = [];
    mcp.prompt("either", { arguments: z.object({ v: z.union([z.string(), z.number()]) }) }, (args) => {
      seen.push(args);
      return "ok";
    });
    await send(mcp, "prompts/get", { name: "either", arguments: { v: "5" } });
    expect(seen).toEqual([{ v: "5" }]);
  });
});

describe("prompts/get errors", () => {
  it.each([
    ["missing required arguments", undefined],
    ["an empty arguments object", {}],
    ["a wrong-typed argument", { topic: "x", tone: 3 }],
  ])("answers %s with -32602 naming the prompt", async (_label, args) => {
    const mcp = quietServer("prompts");
    let ran = false;
    mcp.prompt("briefing", { arguments: Briefing }, () => {
      ran = true;
      return "x";
    });
    const params: Record<string, unknown> = { name: "briefing" };
    if (args !== undefined) params.arguments = args;
    const error = errorOf(await send(mcp, "prompts/get", params));
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/^Invalid (arguments for prompt briefing|params for prompts\/get): /);
    expect(ran).toBe(false);
  });

  it("answers the missing required argument with a message that names it", async () => {
    const mcp = quietServer("prompts");
    mcp.prompt("briefing", { arguments: Briefing }, () => "x");
    expect(errorOf(await send(mcp, "prompts/get", { name: "briefing" }))).toEqual({
      code: -32602,
      message: expect.stringMatching(/^Invalid arguments for prompt briefing: topic: /),
    });
  });

  it("answers an unknown prompt with -32602", async () => {
    const mcp = quietServer("prompts");
    mcp.prompt("known", {}, () => "x");
    expect(errorOf(await send(mcp, "prompts/get", { name: "nope" }))).toEqual({
      code: -32602,
      message: "Unknown prompt: nope",
    });
  });

  it("keeps an McpError's code, message and data", async () => {
    const mcp = quietServer("prompts");
    mcp.prompt("needs-roots", {}, () => {
      throw new McpError(-32021, "Needs roots", { requiredCapabilities: { roots: {} } });
    });
    expect(errorOf(await send(mcp, "prompts/get", { name: "needs-roots" }))).toEqual({
      code: -32021,
      message: "Needs roots",
      data: { requiredCapabilities: { roots: {} } },
    });
  });

  it("answers any other exception with a sanitized -32603", async () => {
    const mcp = quietServer("prompts");
    mcp.prompt("boom", {}, () => {
      throw new Error("secret detail");
    });
    const response = await send(mcp, "prompts/get", { name: "boom" });
    expect(errorOf(response)).toEqual({ code: -32603, message: "Internal error" });
    expect(JSON.stringify(response)).not.toContain("secret detail");
  });
});

describe("completion/complete on prompt arguments", () => {
  function completingServer() {
    const mcp = quietServer("prompts");
    const contexts: unknown[] = [];
    const languages = Array.from({ length: 150 }, (_, i) => `lang-${String(i).padStart(3, "0")}`);
    mcp.prompt(
      "briefing",
      {
        arguments: Briefing,
        complete: {
          lang: (value, context) => {
            contexts.push(context);
            return languages.filter((l) => l.startsWith(value));
          },
          topic: async (value) => ["rust", "ruby", "go"].filter((t) => t.startsWith(value)),
        },
      },
      () => "x",
    );
    mcp.prompt("plain", { arguments: Briefing }, () => "x");
    return { mcp, contexts };
  }

  const complete = (name: string, argument: string, value: string, context?: Record<string, string>) => ({
    ref: { type: "ref/prompt", name },
    argument: { name: argument, value },
    ...(context ? { context: { arguments: context } } : {}),
  });

  it("advertises completions once a prompt has a completer", async () => {
    const { mcp } = completingServer();
    expect(resultOf(await send(mcp, "server/discover")).capabilities).toEqual({
      prompts: {},
      completions: {},
      logging: {},
    });
  });

  it("returns the completer's values with total and hasMore (no cache hints)", async () => {
    const { mcp, contexts } = completingServer();
    expect(resultOf(await send(mcp, "completion/complete", complete("briefing", "topic", "ru")))).toEqual({
      completion: { values: ["rust", "ruby"], total: 2, hasMore: false },
      resultType: "complete",
      _meta: STAMP,
    });
    await send(mcp, "completion/complete", complete("briefing", "lang", "lang-1", { topic: "rust" }));
    expect(contexts).toEqual([{ arguments: { topic: "rust" } }]);
  });

  it("caps values at 100 and reports the real total with hasMore", async () => {
    const { mcp } = completingServer();
    const result = resultOf(await send(mcp, "completion/complete", complete("briefing", "lang", "")));
    const completion = result.completion as { values: string[]; total: number; hasMore: boolean };
    expect(completion.values).toHaveLength(100);
    expect(completion.values[0]).toBe("lang-000");
    expect(completion.values[99]).toBe("lang-099");
    expect(completion.total).toBe(150);
    expect(completion.hasMore).toBe(true);
  });

  it("answers an unknown prompt with -32602", async () => {
    const { mcp } = completingServer();
    expect(errorOf(await send(mcp, "completion/complete", complete("nope", "lang", "")))).toEqual({
      code: -32602,
      message: "Unknown prompt: nope",
    });
  });

  it("answers an argument without a completer (or a prompt without any) with empty values", async () => {
    const { mcp } = completingServer();
    for (const [prompt, argument] of [
      ["briefing", "tone"],
      ["plain", "topic"],
    ] as const) {
      expect(resultOf(await send(mcp, "completion/complete", complete(prompt, argument, "")))).toEqual({
        completion: { values: [] },
        resultType: "complete",
        _meta: STAMP,
      });
    }
  });

  // Regression: completers are looked up on a plain object (`prompt.complete[argument]`), so an argument
  // named after an Object.prototype member resolves to that member and gets called as a completer:
  // "toString"/"constructor" produce a string instead of an array (-32603 "Handler returned an
  // invalid result") and "__proto__" throws (-32603 "Internal error"). The argument has no
  // completer, so the answer must be empty values like any other argument without one.
  it.each(["toString", "constructor", "__proto__", "hasOwnProperty"])(
    "answers an argument named %s (no completer) with empty values",
    async (argument) => {
      const { mcp } = completingServer();
      expect(resultOf(await send(mcp, "completion/complete", complete("briefing", argument, "")))).toEqual({
        completion: { values: [] },
        resultType: "complete",
        _meta: STAMP,
      });
    },
  );

  it("has no completion/complete method when no prompt or template has a completer", async () => {
    const mcp = quietServer("prompts");
    mcp.prompt("p", { arguments: Briefing }, () => "x");
    expect(errorOf(await send(mcp, "completion/complete", complete("p", "topic", ""))).code).toBe(-32601);
  });
});

describe("end to end through ClientSession", () => {
  it("lists, gets and completes prompts over the in-memory wire", async () => {
    const mcp = quietServer("prompts");
    mcp.prompt(
      "briefing",
      { arguments: Briefing, complete: { topic: () => ["rust"] } },
      ({ topic, lang }) => `Brief me on ${topic} in ${lang}`,
    );
    const session = await connect(mcp);
    expect((await session.listPrompts()).prompts.map((p) => p.name)).toEqual(["briefing"]);
    const got = await session.getPrompt("briefing", { topic: "rust" });
    expect(got.messages).toEqual([
      { role: "user", content: { type: "text", text: "Brief me on rust in en" } },
    ]);
    const completed = await session.complete({
      ref: { type: "ref/prompt", name: "briefing" },
      argument: { name: "topic", value: "r" },
    });
    expect(completed.completion.values).toEqual(["rust"]);
    await expect(session.getPrompt("briefing", {})).rejects.toMatchObject({ code: -32602 });
    await session.close();
  });
});
