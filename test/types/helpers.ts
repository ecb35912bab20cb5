/**
 * Shared helpers for the src/types schema tests. Not a test file itself (vitest only collects
 * `*.test.ts`).
 */
import { expect } from "vitest";
import { type ZodType, z } from "zod";

/** Asserts that `schema` accepts `value`, printing zod's issues when it does not. */
export function expectValid(schema: ZodType, value: unknown): void {
  const result = schema.safeParse(value);
  expect(result.success, result.success ? "" : z.prettifyError(result.error)).toBe(true);
}

/** Asserts that `schema` rejects `value`. */
export function expectInvalid(schema: ZodType, value: unknown): void {
  const result = schema.safeParse(value);
  expect(result.success, `expected rejection of ${JSON.stringify(value)}`).toBe(false);
}

/** The smallest valid modern request `_meta`: the two required keys only. */
export const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
} as const;

/** A 1x1 PNG, valid base64. */
export const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/** Returns a copy of `base` with `keys` removed (for "missing required field" cases). */
export function without<T extends Record<string, unknown>>(
  base: T,
  ...keys: Array<keyof T & string>
): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...base };
  for (const key of keys) delete copy[key];
  return copy;
}
