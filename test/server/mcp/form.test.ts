/**
 * Plain-object forms: their answers are checked by form.ts, keyword by keyword. A full JSON Schema
 * validator, @cfworker/json-schema (a devDependency, independent of our code), is the oracle: on
 * random forms of the spec's flat vocabulary and random answers, both must agree.
 */
import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { compileForm } from "../../../src/server/mcp/form.js";
import { elicit, resolver } from "../../../src/server/mcp/index.js";
import { acceptedContent, compileFormSchema, elicitationRequest } from "../../../src/server/mcp/input.js";
import { jsonSchema } from "../../../src/server/mcp/json-schema.js";
import type { Validation } from "../../../src/server/mcp/schema.js";
import type { RequestedSchema } from "../../../src/types/index.js";
import { prng } from "../../prng.js";
import { agreed } from "../../shared/json-schema/format-corpus.js";
import { quietServer } from "./helpers.js";
import { accept, asked, Flow, textOf } from "./resolvers/helpers.js";

type Rng = ReturnType<typeof prng>;
type Form = { type: "object"; properties: Record<string, Record<string, unknown>>; required?: string[] };

const TEXTS = ["", "a", "héllo", "😀😀😀", "x".repeat(12), " spaced "];

function stringProperty(rng: Rng): Record<string, unknown> {
  const property: Record<string, unknown> = { type: "string" };
  // Keywords of other types constrain nothing, in either validator.
  if (rng.chance(0.1)) property.minimum = 3;
  if (rng.chance(0.3)) property.minLength = rng.int(4);
  if (rng.chance(0.3)) property.maxLength = 2 + rng.int(8);
  if (rng.chance(0.4)) property.format = rng.pick(["email", "uri", "date", "date-time"]);
  if (rng.chance(0.3)) property.title = "A title";
  return property;
}

function randomProperty(rng: Rng): Record<string, unknown> {
  switch (rng.int(6)) {
    case 0:
      return stringProperty(rng);
    case 1: {
      const property: Record<string, unknown> = { type: rng.pick(["number", "integer"]) };
      if (rng.chance(0.5)) property.minimum = rng.pick([-1, 0, 1.5]);
      if (rng.chance(0.5)) property.maximum = rng.pick([2, 10, 2.5]);
      return property;
    }
    case 2:
      return { type: "boolean", default: rng.chance(0.5) };
    case 3:
      return rng.chance(0.5)
        ? {
            type: "string",
            enum: ["red", "green"],
            ...(rng.chance(0.5) ? { enumNames: ["Red", "Green"] } : {}),
            ...(rng.chance(0.3) ? { minLength: 4, maximum: 1 } : {}),
          }
        : {
            type: "string",
            oneOf: [
              { const: "s", title: "Small" },
              { const: "l", title: "Large" },
            ],
          };
    default: {
      const items = rng.chance(0.5)
        ? { type: "string", enum: ["a", "b", "c"] }
        : {
            anyOf: [
              { const: "a", title: "A" },
              { const: "b", title: "B" },
            ],
          };
      const property: Record<string, unknown> = { type: "array", items };
      if (rng.chance(0.4)) property.minItems = rng.int(2);
      if (rng.chance(0.4)) property.maxItems = 1 + rng.int(2);
      return property;
    }
  }
}

function randomForm(rng: Rng): Form {
  const names = ["a", "b", "c", "d"].slice(0, 1 + rng.int(4));
  const properties = Object.fromEntries(names.map((name) => [name, randomProperty(rng)]));
  const form: Form = { type: "object", properties };
  if (rng.chance(0.7)) form.required = names.filter(() => rng.chance(0.5));
  return form;
}

function randomValue(rng: Rng, property: Record<string, unknown> | undefined): unknown {
  if (rng.chance(0.15)) return rng.pick([null, 7, "7", true, [], {}, 1.5, -3, ["a", "z"], ["a", "a"]]);
  switch (property?.type) {
    case "string":
      if (property.enum) return rng.pick(["red", "green", "blue", 3]);
      if (property.oneOf) return rng.pick(["s", "l", "Small"]);
      switch (property.format) {
        case "date":
          return rng.pick(agreed("date"));
        case "date-time":
          return rng.pick(agreed("date-time"));
        case "email":
          return rng.pick(agreed("email"));
        case "uri":
          return rng.pick(agreed("uri"));
        default:
          return rng.pick(TEXTS);
      }
    case "number":
    case "integer":
      return rng.pick([0, 1, 2, 2.5, -1, 11, 3.25, 10]);
    case "boolean":
      return rng.chance(0.8);
    default:
      return rng.pick([[], ["a"], ["a", "b"], ["a", "b", "c"], ["z"], "a"]);
  }
}

function randomAnswer(rng: Rng, form: Form): unknown {
  if (rng.chance(0.05)) return rng.pick([null, [], "text"]);
  const answer: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(form.properties)) {
    if (rng.chance(0.8)) answer[name] = randomValue(rng, property);
  }
  if (rng.chance(0.2)) answer.extra = "kept";
  return answer;
}

/** The oracle's verdict (on a copy: cfworker adds properties to the schema it is given). */
const oracleAccepts = (form: Form, value: unknown): boolean =>
  new Validator(
    structuredClone(form) as ConstructorParameters<typeof Validator>[0],
    "2020-12",
    false,
  ).validate(value).valid;

describe("plain-object forms are checked like a JSON Schema validator checks them", () => {
  it("agrees with @cfworker/json-schema on 3,000 random forms and answers", () => {
    const rng = prng(2026);
    const disagreements: string[] = [];
    let accepted = 0;
    for (let i = 0; i < 3000; i++) {
      const form = randomForm(rng);
      const answer = randomAnswer(rng, form);
      const ours = compileForm(form).validate(answer) as Validation<unknown>;
      if (ours.ok) accepted++;
      if (ours.ok !== oracleAccepts(form, answer)) {
        disagreements.push(`${JSON.stringify(form)} ${JSON.stringify(answer)}: ours ${ours.ok}`);
      }
    }
    expect(disagreements.slice(0, 40)).toEqual([]);
    // Both verdicts are well represented.
    expect(accepted).toBeGreaterThan(300);
    expect(accepted).toBeLessThan(2700);
  });

  it.each([
    ["date", agreed("date")],
    ["date-time", agreed("date-time")],
    ["email", agreed("email")],
    ["uri", agreed("uri")],
  ])("agrees with it on every %s of the corpus", (format, corpus) => {
    const form: Form = { type: "object", properties: { v: { type: "string", format } } };
    const verdicts = corpus.map((v) => [v, (compileForm(form).validate({ v }) as Validation<unknown>).ok]);
    const oracle = corpus.map((v) => [v, oracleAccepts(form, { v })]);
    expect(verdicts).toEqual(oracle);
    expect(verdicts.some(([, ok]) => ok)).toBe(true);
    expect(verdicts.some(([, ok]) => !ok)).toBe(true);
  });

  it.each([
    [{ type: "number", enum: [1, 2] }],
    [{ type: "integer", oneOf: [{ const: 1 }, { const: 2 }] }],
    [{ type: "boolean", enum: [true] }],
    [{ type: "string", enum: ["a", "b"], oneOf: [{ const: "a", title: "A" }] }],
  ])("checks enum and oneOf on a property of any type, as the oracle does: %j", (property) => {
    const form: Form = { type: "object", properties: { x: property } };
    const values = [99, 1, 2, false, true, "a", "b"];
    const verdicts = values.map((x) => (compileForm(form).validate({ x }) as Validation<unknown>).ok);
    const oracle = values.map((x) => oracleAccepts(form, { x }));
    expect(verdicts).toEqual(oracle);
    expect(verdicts.filter(Boolean).length).toBeLessThan(3);
  });

  it.each([
    [{ type: "array", items: { type: "string", enum: ["a"] }, enum: [["a"]] }, "enum"],
    [{ type: "number", oneOf: [{ minimum: 1 }] }, "oneOf"],
    [{ type: "number", enum: 3 }, "enum"],
  ])("refuses enum or oneOf it cannot check by value: %j", (property, keyword) => {
    expect(() => compileForm({ type: "object", properties: { x: property } })).toThrow(
      `The form's property "x" uses "${keyword}", which a plain form does not check`,
    );
  });

  it("names the first field that fails and why", () => {
    const form = {
      type: "object",
      properties: { n: { type: "integer", maximum: 3 }, day: { type: "string", format: "date" } },
      required: ["n"],
    };
    const compiled = compileForm(form);
    expect(compiled.validate({})).toEqual({ ok: false, message: "n: required" });
    expect(compiled.validate({ n: 1.5 })).toEqual({ ok: false, message: "n: expected an integer" });
    expect(compiled.validate({ n: 9 })).toEqual({ ok: false, message: "n: expected at most 3" });
    expect(compiled.validate({ n: 1, day: "2026-02-30" })).toEqual({
      ok: false,
      message: "day: expected a valid date",
    });
    expect(compiled.validate({ n: 1, day: "2026-02-28", note: "kept" })).toEqual({
      ok: true,
      value: { n: 1, day: "2026-02-28", note: "kept" },
    });
    expect(compiled.validate("n")).toEqual({ ok: false, message: "expected an object" });
  });

  it("honours additionalProperties: false at the root", () => {
    const compiled = compileForm({
      type: "object",
      properties: { ok: { type: "boolean" } },
      additionalProperties: false,
    });
    expect(compiled.validate({ ok: true })).toEqual({ ok: true, value: { ok: true } });
    expect(compiled.validate({ ok: true, more: 1 })).toEqual({ ok: false, message: "more: not in the form" });
  });

  it.each([
    ["a string pattern", { a: { type: "string", pattern: "^x" } }, 'property "a" uses "pattern"'],
    [
      "an exclusive bound",
      { a: { type: "number", exclusiveMaximum: 3 } },
      'property "a" uses "exclusiveMaximum"',
    ],
    [
      "uniqueItems",
      { a: { type: "array", items: { type: "string", enum: ["x"] }, uniqueItems: true } },
      'property "a" uses "uniqueItems"',
    ],
  ])(
    "refuses %s, a keyword it would otherwise ignore, when the form is compiled",
    (_label, properties, where) => {
      expect(() => compileFormSchema({ type: "object", properties } as never)).toThrow(
        `The form's ${where}, which a plain form does not check: wrap the schema in jsonSchema() to validate it with a full JSON Schema validator`,
      );
    },
  );

  it("refuses such a plain form in elicitationRequest too, before the user is asked", () => {
    const form = { type: "object", properties: { code: { type: "string", pattern: "^x" } } } as const;
    expect(() => elicitationRequest("Code?", form as never)).toThrow(
      `The form's property "code" uses "pattern", which a plain form does not check`,
    );
  });

  it("refuses a root keyword it does not check, and a form elicitation cannot carry", () => {
    expect(() =>
      compileFormSchema({ type: "object", properties: {}, allOf: [{ required: ["a"] }] } as never),
    ).toThrow(`The form's root uses "allOf"`);
    expect(() =>
      compileFormSchema({
        type: "object",
        properties: {},
        additionalProperties: { type: "string" },
      } as never),
    ).toThrow(`The form's root uses "additionalProperties"`);
    expect(() =>
      compileFormSchema({
        type: "object",
        properties: { a: { type: "array", items: { type: "string", enum: ["x"], minLength: 1 } } },
      } as never),
    ).toThrow(`The form's property "a" items uses "minLength"`);
    expect(() =>
      compileFormSchema({ type: "object", properties: { a: { type: "object" } } } as never),
    ).toThrow("An elicitation form must be a flat object");
  });

  it("a form wrapped in jsonSchema() keeps every keyword, rendered and validated in full", async () => {
    const form = jsonSchema<{ code: string }>({
      type: "object",
      properties: { code: { type: "string", pattern: "^[A-Z]{3}$" } },
      required: ["code"],
    });
    expect(elicitationRequest("Code?", form).params.requestedSchema).toEqual({
      type: "object",
      properties: { code: { type: "string", pattern: "^[A-Z]{3}$" } },
      required: ["code"],
    });
    expect(await compileFormSchema(form).validate({ code: "abc" })).toMatchObject({ ok: false });
    expect(await compileFormSchema(form).validate({ code: "ABC" })).toEqual({
      ok: true,
      value: { code: "ABC" },
    });
  });
});

describe("plain-object forms on the wire", () => {
  const Size: RequestedSchema = {
    type: "object",
    properties: {
      size: {
        type: "string",
        oneOf: [
          { const: "s", title: "Small" },
          { const: "l", title: "Large" },
        ],
      },
      count: { type: "integer", minimum: 1 },
    },
    required: ["size", "count"],
  };

  function server() {
    const mcp = quietServer();
    const size = resolver("size", () => elicit("Which size?", Size));
    mcp.tool(
      "order",
      { resolve: { size } },
      (_args, { size }) => `${String(size.count)} × ${String(size.size)}`,
    );
    mcp.tool("order_by_hand", {}, async (_args, ctx) => {
      const answer = await acceptedContent(ctx, "size", Size);
      if (!answer)
        return { resultType: "input_required", inputRequests: { size: elicitationRequest("Size?", Size) } };
      return `${String(answer.count)} × ${String(answer.size)}`;
    });
    return mcp;
  }

  it("a resolver's plain form is asked as given and its answers are checked", async () => {
    const flow = new Flow(server(), "order");
    expect(asked(await flow.round())).toEqual({
      size: {
        method: "elicitation/create",
        params: { mode: "form", message: "Which size?", requestedSchema: Size },
      },
    });
    const refused = textOf(await flow.round({ size: accept({ size: "xl", count: 1 }) }));
    expect(refused).toEqual({
      text: "Resolver 'size' received content that does not match the requested schema",
      isError: true,
    });
    const again = new Flow(server(), "order");
    await again.round();
    expect(textOf(await again.round({ size: accept({ size: "l", count: 2 }) }))).toEqual({
      text: "2 × l",
      isError: false,
    });
  });

  it("a resolver's plain form refuses an email or a URI that is not one", async () => {
    const Contact = {
      type: "object",
      properties: { email: { type: "string", format: "email" }, site: { type: "string", format: "uri" } },
    } as const;
    const mcp = quietServer();
    const contact = resolver("contact", () => elicit("Contact?", Contact));
    mcp.tool("save", { resolve: { contact } }, (_args, { contact }) => JSON.stringify(contact));
    for (const content of [{ email: "a..b@example.com" }, { site: "https://exa<mple.com" }]) {
      const flow = new Flow(mcp, "save");
      await flow.round();
      expect(textOf(await flow.round({ contact: accept(content) }))).toEqual({
        text: "Resolver 'contact' received content that does not match the requested schema",
        isError: true,
      });
    }
  });

  it("acceptedContent checks a plain form's answer and refuses a bad one with -32602", async () => {
    const mcp = server();
    const flow = new Flow(mcp, "order_by_hand");
    await flow.round();
    expect(textOf(await flow.round({ size: accept({ size: "s", count: 3 }) }))).toEqual({
      text: "3 × s",
      isError: false,
    });
    const bad = await new Flow(mcp, "order_by_hand").error({ size: accept({ size: "s", count: 0 }) });
    expect(bad).toEqual({
      code: -32602,
      message: 'The answer to "size" does not match the requested schema',
    });
  });
});
