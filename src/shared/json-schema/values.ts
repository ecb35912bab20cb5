/** What the JSON Schema validator needs to know about JSON values: types, equality, lengths, multiples. */

const JSON_TYPES = ["null", "boolean", "object", "array", "number", "string"];

/**
 * The JSON type of a value (a whole number is a "number" here). Throws for a value JSON has no
 * type for (`undefined`, a function…): the validator cannot judge it.
 */
export function jsonType(value: unknown): string {
  const type = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  if (!JSON_TYPES.includes(type)) throw new TypeError(`A value of type ${type} is not JSON`);
  return type;
}

/** Whether two JSON values are equal, objects whatever the order of their keys. */
export function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!a || !b || typeof a !== "object" || typeof b !== "object" || Array.isArray(a) !== Array.isArray(b)) {
    return false;
  }
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every(
      (key) =>
        Object.hasOwn(b, key) &&
        equal((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
    )
  );
}

/** The length of a string in Unicode code points, as JSON Schema counts it: an emoji is one. */
export const codePoints = (text: string): number => [...text].length;

/** A finite number as an exact decimal: digits × 10^exponent (`0.3` is 3 × 10^-1). */
function decimal(value: number): [bigint, number] {
  const [digits = "", exponent = "0"] = Math.abs(value).toString().split("e");
  const [whole = "", fraction = ""] = digits.split(".");
  return [BigInt(whole + fraction), +exponent - fraction.length];
}

/**
 * Whether `value` is a whole multiple of `divisor`, in the decimal numbers both are written as:
 * 0.3 is a multiple of 0.1 (floating-point division would say 2.9999999999999996).
 */
export function isMultipleOf(value: number, divisor: number): boolean {
  if (!Number.isFinite(value) || !Number.isFinite(divisor) || divisor <= 0) return false;
  const [a, aExponent] = decimal(value);
  const [b, bExponent] = decimal(divisor);
  const exponent = Math.min(aExponent, bExponent);
  return (a * 10n ** BigInt(aExponent - exponent)) % (b * 10n ** BigInt(bExponent - exponent)) === 0n;
}
