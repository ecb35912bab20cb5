/**
 * A form elicitation's `requestedSchema` read as a list of fields, and the checks every answer
 * goes through (typed in the terminal or given with `--answer`): string formats and lengths,
 * number bounds and integrality, enum membership, multi-select bounds, required fields.
 * Pure: the terminal side lives in `elicitation.ts`.
 */
import type { PrimitiveSchemaDefinition, RequestedSchema } from "../types/index.js";

export interface Choice {
  readonly value: string;
  /** The title to show (the value itself when the schema gives none). */
  readonly label: string;
}

interface FieldBase {
  readonly key: string;
  /** `title`, else the key. */
  readonly label: string;
  readonly description: string | undefined;
  readonly required: boolean;
}

export type Field =
  | (FieldBase & {
      kind: "string";
      format: "email" | "uri" | "date" | "date-time" | undefined;
      minLength: number | undefined;
      maxLength: number | undefined;
      default: string | undefined;
    })
  | (FieldBase & {
      kind: "number";
      integer: boolean;
      minimum: number | undefined;
      maximum: number | undefined;
      default: number | undefined;
    })
  | (FieldBase & { kind: "boolean"; default: boolean | undefined })
  | (FieldBase & { kind: "enum"; choices: readonly Choice[]; default: string | undefined })
  | (FieldBase & {
      kind: "multi";
      choices: readonly Choice[];
      minItems: number | undefined;
      maxItems: number | undefined;
      default: readonly string[] | undefined;
    });

export type FieldValue = string | number | boolean | string[];

type Loose = Record<string, unknown>;

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const num = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined;

function titledChoices(options: unknown): Choice[] {
  if (!Array.isArray(options)) return [];
  return options
    .filter((option): option is Loose => typeof option === "object" && option !== null)
    .filter((option) => typeof option.const === "string")
    .map((option) => ({
      value: option.const as string,
      label: str(option.title) ?? (option.const as string),
    }));
}

function plainChoices(values: unknown, names?: unknown): Choice[] {
  if (!Array.isArray(values)) return [];
  const titles = Array.isArray(names) ? names : [];
  return values
    .filter((value): value is string => typeof value === "string")
    .map((value, index) => ({ value, label: str(titles[index]) ?? value }));
}

/**
 * Whether `value` is one of `choices`. A default that is not would be pre-selected without being
 * shown, so the user could neither see nor untick it and every submit would be refused.
 */
function isChoice(choices: readonly Choice[], value: unknown): value is string {
  return typeof value === "string" && choices.some((choice) => choice.value === value);
}

/**
 * One field per property of the schema, in the schema's order.
 *
 * @example
 * fieldsOf({ type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] });
 * // [{ key: "ok", kind: "boolean", required: true, label: "ok", ... }]
 */
export function fieldsOf(schema: RequestedSchema): Field[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([key, property]) =>
    fieldOf(key, property, required.has(key)),
  );
}

function fieldOf(key: string, property: PrimitiveSchemaDefinition, required: boolean): Field {
  const p = property as Loose;
  const base: FieldBase = { key, label: str(p.title) ?? key, description: str(p.description), required };
  if (p.type === "array") {
    const items = (typeof p.items === "object" && p.items !== null ? p.items : {}) as Loose;
    const choices = Array.isArray(items.anyOf) ? titledChoices(items.anyOf) : plainChoices(items.enum);
    const fallback = Array.isArray(p.default)
      ? p.default.filter((value) => isChoice(choices, value))
      : undefined;
    return {
      ...base,
      kind: "multi",
      choices,
      minItems: num(p.minItems),
      maxItems: num(p.maxItems),
      default: fallback,
    };
  }
  if (p.type === "string" && (Array.isArray(p.enum) || Array.isArray(p.oneOf))) {
    const choices = Array.isArray(p.oneOf) ? titledChoices(p.oneOf) : plainChoices(p.enum, p.enumNames);
    return { ...base, kind: "enum", choices, default: isChoice(choices, p.default) ? p.default : undefined };
  }
  if (p.type === "number" || p.type === "integer") {
    return {
      ...base,
      kind: "number",
      integer: p.type === "integer",
      minimum: num(p.minimum),
      maximum: num(p.maximum),
      default: num(p.default),
    };
  }
  if (p.type === "boolean") {
    return { ...base, kind: "boolean", default: typeof p.default === "boolean" ? p.default : undefined };
  }
  const format = str(p.format);
  return {
    ...base,
    kind: "string",
    format:
      format === "email" || format === "uri" || format === "date" || format === "date-time"
        ? format
        : undefined,
    minLength: num(p.minLength),
    maxLength: num(p.maxLength),
    default: str(p.default),
  };
}

const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

function validDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function validDateTime(text: string): boolean {
  const match = DATE_TIME.exec(text);
  if (!match || !validDate(match[1] as string)) return false;
  const [hour, minute, second] = [Number(match[2]), Number(match[3]), Number(match[4])];
  const offsetHour = match[7] === undefined ? 0 : Number(match[7]);
  const offsetMinute = match[8] === undefined ? 0 : Number(match[8]);
  return hour < 24 && minute < 60 && second < 61 && offsetHour < 24 && offsetMinute < 60;
}

const FORMAT_HINT = {
  email: "an email address (name@example.com)",
  uri: "an absolute URI (https://example.com/path)",
  date: "a date (YYYY-MM-DD)",
  "date-time": "a date and time (YYYY-MM-DDTHH:MM:SSZ)",
} as const;

/**
 * What is wrong with a string answer, or undefined when it is acceptable. An empty optional
 * answer is acceptable (the field is then left out).
 *
 * @example
 * checkString(field, "not-an-email"); // "Expected an email address (name@example.com)"
 */
export function checkString(field: Extract<Field, { kind: "string" }>, text: string): string | undefined {
  if (text === "") return field.required ? "A value is required" : undefined;
  const length = [...text].length;
  if (field.minLength !== undefined && length < field.minLength) {
    return `At least ${field.minLength} character${field.minLength === 1 ? "" : "s"}`;
  }
  if (field.maxLength !== undefined && length > field.maxLength) {
    return `At most ${field.maxLength} character${field.maxLength === 1 ? "" : "s"}`;
  }
  const ok =
    field.format === undefined ||
    (field.format === "email" && EMAIL.test(text)) ||
    (field.format === "uri" && /^[a-z][a-z0-9+.-]*:/i.test(text) && URL.canParse(text)) ||
    (field.format === "date" && validDate(text)) ||
    (field.format === "date-time" && validDateTime(text));
  return ok ? undefined : `Expected ${FORMAT_HINT[field.format as keyof typeof FORMAT_HINT]}`;
}

/**
 * A number as people write it: decimal digits, an optional fraction and exponent. `Number()` alone
 * would also take hex, octal and binary literals (0x10 is 16), "Infinity" and the empty string.
 */
export const DECIMAL_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * What is wrong with a number (typed as text), or undefined. An empty optional answer is acceptable.
 *
 * @example
 * checkNumberText(field, "3.5"); // "Expected a whole number" for an integer field
 */
export function checkNumberText(field: Extract<Field, { kind: "number" }>, text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed === "") return field.required ? "A value is required" : undefined;
  const value = Number(trimmed);
  if (!Number.isFinite(value) || !DECIMAL_NUMBER.test(trimmed)) {
    return field.integer ? "Expected a whole number" : "Expected a number";
  }
  return checkNumber(field, value);
}

function checkNumber(field: Extract<Field, { kind: "number" }>, value: number): string | undefined {
  if (field.integer && !Number.isInteger(value)) return "Expected a whole number";
  if (field.minimum !== undefined && value < field.minimum) return `At least ${field.minimum}`;
  if (field.maximum !== undefined && value > field.maximum) return `At most ${field.maximum}`;
  return undefined;
}

/**
 * What is wrong with a multi-select answer (count bounds, membership), or undefined.
 *
 * @example
 * checkSelection(field, []); // "Choose at least 1" when minItems is 1
 */
export function checkSelection(
  field: Extract<Field, { kind: "multi" }>,
  values: readonly string[],
): string | undefined {
  const allowed = new Set(field.choices.map((choice) => choice.value));
  const unknown = values.find((value) => !allowed.has(value));
  if (unknown !== undefined) return `${JSON.stringify(unknown)} is not one of the choices`;
  if (new Set(values).size !== values.length) return "A choice is repeated";
  const min = field.minItems ?? 0;
  if (values.length < min) return `Choose at least ${min}`;
  if (field.maxItems !== undefined && values.length > field.maxItems)
    return `Choose at most ${field.maxItems}`;
  return undefined;
}

/**
 * What is wrong with one value given for a field (typed JSON, as in `--answer`), or undefined.
 *
 * @example
 * checkValue(field, "eu-west-1"); // undefined when it is one of the enum's values
 */
export function checkValue(field: Field, value: unknown): string | undefined {
  switch (field.kind) {
    case "string":
      return typeof value === "string" ? checkString(field, value) : "Expected a string";
    case "number":
      return typeof value === "number" && Number.isFinite(value)
        ? checkNumber(field, value)
        : "Expected a number";
    case "boolean":
      return typeof value === "boolean" ? undefined : "Expected true or false";
    case "enum":
      return typeof value === "string" && field.choices.some((choice) => choice.value === value)
        ? undefined
        : `Expected one of ${field.choices.map((choice) => JSON.stringify(choice.value)).join(", ")}`;
    case "multi":
      return Array.isArray(value) && value.every((item) => typeof item === "string")
        ? checkSelection(field, value)
        : "Expected an array of strings";
  }
}

/**
 * Checks a whole form answer: every required field present, every present field valid, no field
 * the schema does not have. Returns the problems, one per field (empty when the answer is good).
 *
 * @example
 * checkContent(fields, { region: "mars" }); // ["region: Expected one of \"eu-west-1\", ..."]
 */
export function checkContent(fields: readonly Field[], content: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const known = new Set(fields.map((field) => field.key));
  for (const key of Object.keys(content)) {
    if (!known.has(key)) problems.push(`${key}: not a field of this form`);
  }
  for (const field of fields) {
    const value = content[field.key];
    if (value === undefined) {
      if (field.required) problems.push(`${field.key}: a value is required`);
      continue;
    }
    const problem = checkValue(field, value);
    if (problem !== undefined) problems.push(`${field.key}: ${problem}`);
  }
  return problems;
}

function range(min: number | undefined, max: number | undefined, unit: string): string[] {
  if (min !== undefined && max !== undefined) return [`${min}–${max}${unit}`];
  if (min !== undefined) return [`at least ${min}${unit}`];
  if (max !== undefined) return [`at most ${max}${unit}`];
  return [];
}

/**
 * A short description of what a field expects, for the prompt line.
 *
 * @example
 * describeField(field); // "integer, 1–10" / "email" / "choose 1 to 3"
 */
export function describeField(field: Field): string {
  const parts: string[] = [];
  switch (field.kind) {
    case "string":
      if (field.format) parts.push(field.format);
      parts.push(...range(field.minLength, field.maxLength, " chars"));
      break;
    case "number":
      parts.push(field.integer ? "integer" : "number");
      parts.push(...range(field.minimum, field.maximum, ""));
      break;
    case "multi":
      if (field.minItems !== undefined || field.maxItems !== undefined) {
        parts.push(`choose ${field.minItems ?? 0} to ${field.maxItems ?? field.choices.length}`);
      } else parts.push("choose any");
      break;
    default:
      break;
  }
  if (!field.required) parts.push("optional");
  return parts.join(", ");
}
