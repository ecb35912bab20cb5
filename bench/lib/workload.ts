/**
 * The one workload both SDKs run: a `provision` tool that asks one form elicitation (the region)
 * and then completes, a plain single-round tool, and a trivial client callback that always accepts.
 */

/** The name every flow provisions. */
export const DB_NAME = "orders";
/** The region the client callback answers with. */
export const REGION = "eu-west-1";
/** What a finished flow must say, on both sides. */
export const EXPECTED_TEXT = `Provisioned ${DB_NAME} in ${REGION}.`;
/** The version both sides must negotiate for the modern scenarios. */
export const MODERN_VERSION = "2026-07-28";
/** The elicitation question. */
export const QUESTION = "Which region should the database live in?";
/** The form schema, as plain restricted JSON Schema (neither side converts it per call). */
export const REGION_SCHEMA = {
  type: "object" as const,
  properties: { region: { type: "string" as const, description: "Cloud region" } },
  required: ["region"],
};
/** The constant answer of the client callback. */
export const ANSWER = { action: "accept", content: { region: REGION } } as const;

/** Tool names. */
export const TOOL_MRTR = "provision";
export const TOOL_PLAIN = "provision_now";

/** Counts handler entries (legs) so every run can check the number of round trips. */
export class LegCounter {
  count = 0;
}

/** The text of the first content block of a tool result, or a description of what came back. */
export function firstText(result: unknown): string {
  const content = (result as { content?: unknown } | null)?.content;
  if (!Array.isArray(content)) return `<no content: ${JSON.stringify(result)?.slice(0, 200)}>`;
  const block = content[0] as { type?: unknown; text?: unknown } | undefined;
  return block?.type === "text" && typeof block.text === "string"
    ? block.text
    : `<first block not text: ${JSON.stringify(block)?.slice(0, 200)}>`;
}

/** Thrown on any correctness mismatch; the harness exits non-zero on it. */
export class CorrectnessError extends Error {
  override name = "CorrectnessError";
}

/** Fails loudly when `actual` differs from `expected`. */
export function expectEqual(what: string, actual: unknown, expected: unknown): void {
  if (actual !== expected) {
    throw new CorrectnessError(
      `${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`,
    );
  }
}
