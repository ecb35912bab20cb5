/**
 * The generated zod-free checks (src/types/checks.generated.ts) against the zod schemas they were
 * generated from, over every spec example, every value nested in them, seeded mutations of all of
 * those, and hand-picked edge cases: a check must give exactly zod's verdict. Symbol keys are not
 * data and are left out (see scripts/gen-checks.ts).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import type { ZodType } from "zod";
import * as generated from "../../src/types/checks.generated.js";
import * as wire from "../../src/types/index.js";
import * as legacy from "../../src/types/legacy.js";
import { prng } from "../prng.js";

type Check = (value: unknown) => boolean;

const EXAMPLES = join(import.meta.dirname, "fixtures", "spec-examples");

function examples(): unknown[] {
  const files = readdirSync(EXAMPLES, { recursive: true }) as string[];
  return files
    .filter((file) => file.endsWith(".json"))
    .sort()
    .map((file) => JSON.parse(readFileSync(join(EXAMPLES, file), "utf8")) as unknown);
}

function nested(value: unknown, into: unknown[]): unknown[] {
  into.push(value);
  if (typeof value === "object" && value !== null)
    for (const child of Object.values(value)) nested(child, into);
  return into;
}

const ODD_VALUES: unknown[] = [
  undefined,
  null,
  0,
  -0,
  1.5,
  -1,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  2 ** 53,
  "",
  " https://example.com/x",
  "https://example.com/\tx",
  "https://example.com/x",
  "not a url",
  "file:///tmp/a",
  "aGVsbG8=",
  "aGVsbG8",
  "aGV sbG8=",
  true,
  [],
  [undefined],
  {},
  Object.create(null),
  new (class Custom {})(),
  { constructor: () => 1 },
  { constructor: 5 },
  JSON.parse('{"__proto__": {"x": 1}, "a": 1}'),
  "x".repeat(5),
];

/** Small seeded edits of a JSON value: each may turn a valid value invalid or vice versa. */
function mutate(value: unknown, random: ReturnType<typeof prng>, donors: readonly unknown[]): unknown {
  if (typeof value !== "object" || value === null) {
    return random.pick(donors);
  }
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value)
    ? [...value]
    : { ...(value as Record<string, unknown>) };
  const keys = Object.keys(copy);
  const key = keys.length > 0 ? random.pick(keys) : "extra";
  switch (random.int(6)) {
    case 0:
      if (Array.isArray(copy)) copy.pop();
      else delete copy[key];
      break;
    case 1:
      (copy as Record<string, unknown>)[key] = random.pick(donors);
      break;
    case 2:
      (copy as Record<string, unknown>)[Array.isArray(copy) ? String(copy.length) : `x${random.int(9)}`] =
        random.pick(donors);
      break;
    case 3:
      (copy as Record<string, unknown>)[key] = mutate((copy as Record<string, unknown>)[key], random, donors);
      break;
    case 4:
      (copy as Record<string, unknown>)[key] = undefined;
      break;
    default:
      return [copy];
  }
  return copy;
}

const schemas = new Map<string, ZodType>();
for (const module of [wire, legacy] as Record<string, unknown>[]) {
  for (const [name, value] of Object.entries(module)) {
    if (name.endsWith("Schema") && typeof value === "object" && value !== null && "_zod" in value) {
      schemas.set(`valid${name.slice(0, -"Schema".length)}`, value as ZodType);
    }
  }
}

const corpus = (() => {
  const base = examples().flatMap((example) => nested(example, []));
  const donors = [...ODD_VALUES, ...base.filter((value) => typeof value !== "object")];
  const random = prng(0x5eed);
  const mutants: unknown[] = [];
  for (let round = 0; round < 3; round++) {
    for (const value of base) mutants.push(mutate(value, random, donors));
  }
  return [...ODD_VALUES, ...base, ...mutants];
})();

describe("generated checks", () => {
  const checks = Object.entries(generated).filter(
    (entry): entry is [string, Check] => entry[0].startsWith("valid") && typeof entry[1] === "function",
  );

  it("exist for every exported wire schema, and only for those", () => {
    expect(checks.map(([name]) => name).sort()).toEqual([...schemas.keys()].sort());
    expect(checks.length).toBeGreaterThan(90);
  });

  it(`agree with zod on ${corpus.length} values per schema`, () => {
    const problems: string[] = [];
    let accepted = 0;
    let rewritten = 0;
    for (const [name, check] of checks) {
      const schema = schemas.get(name)!;
      for (const value of corpus) {
        const ours = check(value);
        const theirs = schema.safeParse(value);
        if (ours !== theirs.success) {
          problems.push(`${name} says ${ours}, zod says ${theirs.success}: ${show(value)}`);
        } else if (theirs.success) {
          accepted++;
          if (!isDeepStrictEqual(plain(theirs.data), plain(value))) rewritten++;
        }
      }
    }
    expect(problems.slice(0, 10)).toEqual([]);
    expect(accepted).toBeGreaterThan(1000);
    // Only the documented rewrites (a trimmed URL, stripped keys, a caught value) make zod's output differ.
    expect(rewritten).toBeLessThan(accepted / 20);
  });

  it("accept the hot-path messages without asking zod", () => {
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
      "io.modelcontextprotocol/clientInfo": { name: "c", version: "1" },
    };
    expect(generated.validCallToolRequestParams({ name: "t", arguments: { a: 1 }, _meta: meta })).toBe(true);
    expect(
      generated.validInputRequests({
        ask: {
          method: "elicitation/create",
          params: {
            mode: "form",
            message: "Region?",
            requestedSchema: {
              type: "object",
              properties: { region: { type: "string" } },
              required: ["region"],
            },
          },
        },
      }),
    ).toBe(true);
    expect(
      generated.validCallToolResult({
        resultType: "complete",
        content: [{ type: "text", text: "ok" }],
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "s", version: "1" } },
      }),
    ).toBe(true);
    expect(
      generated.validInputRequiredResult({
        resultType: "input_required",
        requestState: "abc",
        inputRequests: { r: { method: "roots/list" } },
      }),
    ).toBe(true);
  });

  it("keep what zod would rewrite, with zod's verdict", () => {
    // zod's URL format trims and drops tabs and newlines; a URL elicitation is refused them first.
    for (const url of [" https://a.example/ ", "https://a.exa\tmple/"]) {
      const params = { mode: "url", message: "m", url };
      expect(generated.validElicitRequestURLParams(params)).toBe(false);
      expect(wire.ElicitRequestURLParamsSchema.safeParse(params).success).toBe(false);
    }
    expect(generated.validCacheHints({ ttlMs: 0, cacheScope: "private", extra: 1 })).toBe(true);
    const stamped = { resultType: "complete", _meta: { "io.modelcontextprotocol/serverInfo": 5 } };
    expect(generated.validResultBase(stamped)).toBe(true);
  });

  it("say where and why a value fails", () => {
    expect(generated.describeFailure(generated.validCallToolRequestParams, { _meta: {} })).toBe(
      "_meta.io.modelcontextprotocol/protocolVersion: expected a string",
    );
    expect(
      generated.describeFailure(generated.validContentBlock, {
        type: "image",
        data: "%%",
        mimeType: "image/png",
      }),
    ).toBe("data: expected base64");
    expect(generated.describeFailure(generated.validContentBlock, { type: "video" })).toBe(
      'type: expected "text" or "image" or "audio" or "resource_link" or "resource"',
    );
    expect(generated.describeFailure(generated.validProgressToken, 1.5)).toBe(
      "value: expected one of the allowed shapes",
    );
    expect(
      generated.describeFailure(generated.validInputRequests, { a: { method: "roots/list", params: 3 } }),
    ).toBe("a.params: expected an object");
  });
});

/**
 * The value as data: zod's output objects are fresh plain objects, whatever the input's prototype,
 * and lose an own `__proto__` key, which the checks keep (see scripts/gen-checks.ts).
 */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== "__proto__")
      .map(([key, child]) => [key, plain(child)]),
  );
}

function show(value: unknown): string {
  try {
    return JSON.stringify(value)?.slice(0, 200) ?? String(value);
  } catch {
    return String(value);
  }
}
