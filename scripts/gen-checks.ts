/**
 * Generates src/types/checks.generated.ts: one plain-JavaScript predicate per exported wire schema
 * of src/types, so that the SDK validates every message without loading zod. The zod schemas stay
 * the single source of truth; this compiles their definitions into straight-line checks.
 *
 * A check returns exactly zod's verdict (`safeParse(value).success`). Callers keep the value as
 * it is, which differs from zod's output only where zod would rewrite it: a URL is not trimmed, a
 * plain (non-loose) object keeps its unknown keys, a malformed value under `.catch()` is kept, and
 * an own `__proto__` key is kept. Checks judge data: symbol keys are ignored.
 *
 * Given a path array as second argument, a failing check records where and why it failed, for
 * error messages (`describeFailure`). A zod construct this generator does not know is an error
 * here, at generation time, never a silent gap.
 *
 *   npx tsx scripts/gen-checks.ts          rewrite the file
 *   npx tsx scripts/gen-checks.ts --check  exit 1 when the file is stale (CI)
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as wire from "../src/types/index.js";
import * as legacy from "../src/types/legacy.js";

export const CHECKS_FILE = join(import.meta.dirname, "..", "src", "types", "checks.generated.ts");

interface Def {
  readonly type: string;
  readonly [key: string]: unknown;
}
interface ZodLike {
  readonly _zod: { readonly def: Def };
}

function isZod(value: unknown): value is ZodLike {
  return typeof value === "object" && value !== null && "_zod" in value;
}

function defOf(schema: ZodLike): Def {
  return schema._zod.def;
}

function checksOf(def: Def): Def[] {
  const own = def.check !== undefined ? [def] : [];
  const more = ((def.checks as ZodLike[] | undefined) ?? []).map((check) => defOf(check));
  return [...own, ...more];
}

function literal(value: unknown): string {
  if (value === undefined) return "undefined";
  return JSON.stringify(value);
}

/** The path argument for a child: only built when explaining (`at` is undefined on the hot path). */
function childPath(key: string): string {
  return `p(at, ${literal(key)})`;
}

/** The code of one generated module, built by walking the schemas. */
class Generator {
  readonly #names = new Map<ZodLike, string>();
  readonly #functions: string[] = [];
  /** Bodies already emitted, so identical checks (dozens of optional strings) share one function. */
  readonly #bodies = new Map<string, string>();
  #counter = 0;

  get functions(): readonly string[] {
    return this.#functions;
  }

  /** The function that checks `schema`, generated once per schema object. */
  functionFor(schema: ZodLike): string {
    const known = this.#names.get(schema);
    if (known !== undefined) return known;
    const name = `c${this.#counter++}`;
    this.#names.set(schema, name);
    const def = defOf(schema);
    const body =
      def.type === "object"
        ? this.#objectBody(def)
        : def.type === "union" && def.discriminator !== undefined
          ? this.#discriminatedBody(def)
          : `  return ${this.#expression(def)};`;
    return this.#emit(schema, name, body);
  }

  #emit(schema: ZodLike, name: string, body: string): string {
    const same = this.#bodies.get(body);
    if (same !== undefined) {
      this.#names.set(schema, same);
      return same;
    }
    this.#bodies.set(body, name);
    this.#functions.push(`function ${name}(v: any, at?: Path): boolean {\n${body}\n}`);
    return name;
  }

  /** A boolean expression over `v` (and `at`) for a non-object schema. */
  #expression(def: Def): string {
    const base = this.#typeExpression(def);
    const checks = checksOf(def).map((check) => this.#checkExpression(check));
    return [base, ...checks].join(" && ");
  }

  #typeExpression(def: Def): string {
    switch (def.type) {
      case "string":
        return `(typeof v === "string" || miss(at, "a string"))`;
      case "number":
        return `(typeof v === "number" && Number.isFinite(v) || miss(at, "a finite number"))`;
      case "boolean":
        return `(typeof v === "boolean" || miss(at, "a boolean"))`;
      case "null":
        return `(v === null || miss(at, "null"))`;
      case "unknown":
      case "any":
        return "true";
      case "never":
        return `miss(at, "nothing")`;
      case "literal":
      case "enum": {
        const values =
          def.type === "literal"
            ? (def.values as unknown[])
            : Object.values(def.entries as Record<string, unknown>);
        const expected = values.map((value) => literal(value)).join(" or ");
        return `(${values.map((value) => `v === ${literal(value)}`).join(" || ")} || miss(at, ${literal(expected)}))`;
      }
      case "optional":
        return `(v === undefined || ${this.functionFor(def.innerType as ZodLike)}(v, at))`;
      case "nullable":
        return `(v === null || ${this.functionFor(def.innerType as ZodLike)}(v, at))`;
      case "default":
      case "prefault":
        return `(v === undefined || ${this.functionFor(def.innerType as ZodLike)}(v, at))`;
      case "catch":
        // zod replaces whatever fails with the catch value: the verdict is always yes.
        return "true";
      case "lazy":
        return `${this.functionFor((def.getter as () => ZodLike)())}(v, at)`;
      case "array":
        return `(Array.isArray(v) || miss(at, "an array")) && allItems(v, ${this.functionFor(def.element as ZodLike)}, at)`;
      case "record": {
        const key = defOf(def.keyType as ZodLike);
        if (key.type !== "string" || checksOf(key).length > 0)
          throw new Error("only z.record(z.string(), …) is supported");
        return `(isPlainRecord(v) || miss(at, "an object")) && allValues(v, ${this.functionFor(def.valueType as ZodLike)}, at)`;
      }
      case "union":
        return this.#union(def);
      default:
        throw new Error(`gen-checks: unsupported zod type "${def.type}"`);
    }
  }

  #union(def: Def): string {
    // zod's verdict for a union: any option parses. Explaining a union names no single option.
    const any = (def.options as ZodLike[]).map((option) => `${this.functionFor(option)}(v)`).join(" || ");
    return `(${any} || miss(at, "one of the allowed shapes"))`;
  }

  /** The discriminator picks the one option zod tries, and the one to explain. */
  #discriminatedBody(def: Def): string {
    const discriminator = def.discriminator as string;
    const lines = [
      `if (!isObject(v)) return miss(at, "an object");`,
      `switch (v[${literal(discriminator)}]) {`,
    ];
    const tags: string[] = [];
    for (const option of def.options as ZodLike[]) {
      const tag = literalKeys(option).find(([key]) => key === discriminator);
      if (tag === undefined) throw new Error(`gen-checks: an option without a literal ${discriminator}`);
      tags.push(literal(tag[1]));
      lines.push(`  case ${literal(tag[1])}: return ${this.functionFor(option)}(v, at);`);
    }
    lines.push(`  default: return miss(${childPath(discriminator)}, ${literal(tags.join(" or "))});`, "}");
    return `  ${lines.join("\n  ")}`;
  }

  #objectBody(def: Def): string {
    const shape = def.shape as Record<string, ZodLike>;
    const lines = [`if (!isObject(v)) return miss(at, "an object");`];
    for (const [key, child] of Object.entries(shape)) {
      lines.push(`if (!${this.functionFor(child)}(v[${literal(key)}], ${childPath(key)})) return false;`);
    }
    const catchall = def.catchall as ZodLike | undefined;
    const catchallType = catchall === undefined ? undefined : defOf(catchall).type;
    // No catchall: zod strips unknown keys (accepted). unknown/any: kept. Anything else checks them.
    if (catchall !== undefined && catchallType !== "unknown" && catchallType !== "any") {
      lines.push(`const declared = new Set(${literal(Object.keys(shape))});`);
      lines.push(
        `for (const k in v) if (!declared.has(k) && !${this.functionFor(catchall)}(v[k], p(at, k))) return false;`,
      );
    }
    for (const check of checksOf(def)) lines.push(`if (!(${this.#checkExpression(check)})) return false;`);
    lines.push("return true;");
    return `  ${lines.join("\n  ")}`;
  }

  #checkExpression(check: Def): string {
    switch (check.check) {
      case "number_format":
        if (check.format === "safeint") return `(Number.isSafeInteger(v) || miss(at, "an integer"))`;
        throw new Error(`gen-checks: unsupported number format ${String(check.format)}`);
      case "greater_than":
        return `(v ${check.inclusive ? ">=" : ">"} ${literal(check.value)} || miss(at, ${literal(`${check.inclusive ? "at least" : "more than"} ${check.value}`)}))`;
      case "less_than":
        return `(v ${check.inclusive ? "<=" : "<"} ${literal(check.value)} || miss(at, ${literal(`${check.inclusive ? "at most" : "less than"} ${check.value}`)}))`;
      case "min_length":
        return `(v.length >= ${literal(check.minimum)} || miss(at, ${literal(`a length of at least ${check.minimum}`)}))`;
      case "max_length":
        return `(v.length <= ${literal(check.maximum)} || miss(at, ${literal(`a length of at most ${check.maximum}`)}))`;
      case "string_format":
        return this.#stringFormat(check);
      case "custom": {
        // Refinements of src/types are self-contained arrow functions over the parsed value.
        const message =
          typeof check.error === "function" ? String((check.error as () => unknown)()) : "a valid value";
        return `(((${String(check.fn)}) as (value: any) => boolean)(v) || miss(at, ${literal(message)}))`;
      }
      default:
        throw new Error(`gen-checks: unsupported check ${String(check.check)}`);
    }
  }

  #stringFormat(check: Def): string {
    switch (check.format) {
      case "base64":
        return `(isBase64(v) || miss(at, "base64"))`;
      case "url":
        if ("normalize" in check || "hostname" in check || "protocol" in check) {
          throw new Error("gen-checks: z.url() options are not supported");
        }
        return `(URL.canParse(v.trim()) || miss(at, "a URL"))`;
      case "starts_with":
        return `(v.startsWith(${literal(check.prefix)}) || miss(at, ${literal(`a string starting with ${check.prefix}`)}))`;
      case "ends_with":
        return `(v.endsWith(${literal(check.suffix)}) || miss(at, ${literal(`a string ending with ${check.suffix}`)}))`;
      case "includes":
        return `(v.includes(${literal(check.includes)}, ${literal(check.position ?? 0)}) || miss(at, ${literal(`a string including ${check.includes}`)}))`;
      default:
        throw new Error(`gen-checks: unsupported string format ${String(check.format)}`);
    }
  }
}

/** The required single-value literal keys of an object schema. */
function literalKeys(schema: ZodLike): [string, unknown][] {
  const def = defOf(schema);
  if (def.type !== "object") return [];
  const keys: [string, unknown][] = [];
  for (const [key, child] of Object.entries(def.shape as Record<string, ZodLike>)) {
    const values = defOf(child).type === "literal" ? (defOf(child).values as unknown[]) : [];
    if (values.length === 1) keys.push([key, values[0]]);
  }
  return keys;
}

const PRELUDE = `// Generated by scripts/gen-checks.ts from the zod schemas of src/types. Do not edit by hand.
// A check returns zod's verdict; see the script for what "keeping the value as is" means.
/* biome-ignore-all lint: generated code */
/* biome-ignore-all format: generated code */

/** Where a failing check looked: keys and indexes from the checked value down. */
export type Path = (string | number)[];

let issue: { path: Path; expected: string } | undefined;

// Records the first failure of an explained check; free on the hot path, where \`at\` is undefined.
function miss(at: Path | undefined, expected: string): false {
  if (at !== undefined && issue === undefined) issue = { path: at, expected };
  return false;
}

// The path of a child, built only when explaining.
function p(at: Path | undefined, key: string | number): Path | undefined {
  return at && [...at, key];
}

function isObject(v: any): boolean {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// zod's notion of a plain object: a record must be one. Literals and JSON take the first test.
function isPlainRecord(v: any): boolean {
  if (!isObject(v)) return false;
  const prototype = Object.getPrototypeOf(v);
  if ((prototype === Object.prototype || prototype === null) && !Object.hasOwn(v, "constructor")) return true;
  const ctor = v.constructor;
  if (ctor === undefined || typeof ctor !== "function") return true;
  return isObject(ctor.prototype) && Object.prototype.hasOwnProperty.call(ctor.prototype, "isPrototypeOf");
}

function allItems(items: any[], check: (item: any, at?: Path) => boolean, at: Path | undefined): boolean {
  for (let i = 0; i < items.length; i++) if (!check(items[i], p(at, i))) return false;
  return true;
}

// zod skips "__proto__" in a record: it is accepted whatever it holds (and kept here).
function allValues(v: any, check: (item: any, at?: Path) => boolean, at: Path | undefined): boolean {
  for (const k in v) {
    if (!Object.prototype.hasOwnProperty.call(v, k) || k === "__proto__") continue;
    if (!check(v[k], p(at, k))) return false;
  }
  return true;
}

const BASE64 = /^[0-9a-zA-Z+/]*={0,2}$/;
const WHITESPACE = /\\s/;

function isBase64(v: string): boolean {
  if (!BASE64.test(v)) return false;
  if (v === "") return true;
  if (WHITESPACE.test(v) || v.length % 4 !== 0) return false;
  try {
    atob(v);
    return true;
  } catch {
    return false;
  }
}

/**
 * Where and why \`check\` rejects \`value\` (the first failure found); undefined when it accepts.
 *
 * @example
 * explainFailure(validRequestedSchema, form)?.path; // ["properties", "address"]
 */
export function explainFailure(
  check: (value: unknown, at?: Path) => boolean,
  value: unknown,
): { path: Path; expected: string } | undefined {
  issue = undefined;
  const valid = check(value, []);
  const found = issue as { path: Path; expected: string } | undefined;
  issue = undefined;
  return valid ? undefined : (found ?? { path: [], expected: "a valid value" });
}

/**
 * Why \`check\` rejects \`value\`, as "path: expected …" (the first failure found), for error messages.
 *
 * @example
 * if (!validCallToolRequestParams(params)) throw new Error(describeFailure(validCallToolRequestParams, params));
 */
export function describeFailure(check: (value: unknown, at?: Path) => boolean, value: unknown): string {
  const found = explainFailure(check, value);
  if (found === undefined) return "invalid";
  const where = found.path.length > 0 ? found.path.join(".") : "value";
  return \`\${where}: expected \${found.expected}\`;
}
`;

/** The whole generated module. */
export function generateChecks(): string {
  const generator = new Generator();
  const exported: string[] = [];
  const modules: Record<string, unknown>[] = [wire, legacy];
  const seen = new Set<string>();
  for (const module of modules) {
    for (const [name, value] of Object.entries(module).sort(([a], [b]) => a.localeCompare(b))) {
      if (!name.endsWith("Schema") || !isZod(value) || seen.has(name)) continue;
      seen.add(name);
      const fn = generator.functionFor(value);
      const checkName = `valid${name.slice(0, -"Schema".length)}`;
      exported.push(
        `/** \`${name}.safeParse(value).success\`, without zod. */\nexport const ${checkName}: (value: unknown, at?: Path) => boolean = ${fn};`,
      );
    }
  }
  return [PRELUDE, ...generator.functions, ...exported, ""].join("\n\n");
}

if (process.argv[1] === import.meta.filename) {
  const code = generateChecks();
  if (process.argv.includes("--check")) {
    if (readFileSync(CHECKS_FILE, "utf8") !== code) {
      console.error("src/types/checks.generated.ts is stale: run npx tsx scripts/gen-checks.ts");
      process.exit(1);
    }
  } else {
    writeFileSync(CHECKS_FILE, code);
  }
}
