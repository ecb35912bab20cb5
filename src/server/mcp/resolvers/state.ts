import { isRecord } from "../../../types/record.js";
/**
 * The plaintext a resolver-driven call keeps in `requestState` (sealed by the boundary on the
 * wire): recorded answers, each pinned to the digest of the exact question asked, and the digests
 * of the questions pending this round.
 */
export interface RecordedOutcome {
  readonly action: "accept" | "decline" | "cancel";
  readonly data?: unknown;
  /** Digest of the rendered question this answers. */
  readonly q: string;
}

export interface ResolverState {
  readonly outcomes: Record<string, RecordedOutcome>;
  readonly asked: Record<string, string>;
}

const VERSION = 1;

function isOutcome(value: unknown): value is RecordedOutcome {
  return (
    isRecord(value) &&
    (value.action === "accept" || value.action === "decline" || value.action === "cancel") &&
    typeof value.q === "string"
  );
}

/**
 * Reads the state tolerantly: anything unexpected (absent, not JSON, another version) reads as "no
 * progress yet". It is already authenticated, so drift can only come from our own fleet mid-upgrade.
 */
export function decodeResolverState(text: string | undefined): ResolverState {
  const empty: ResolverState = { outcomes: {}, asked: {} };
  if (!text) return empty;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return empty;
  }
  if (!isRecord(parsed) || parsed.v !== VERSION || !isRecord(parsed.outcomes)) return empty;
  const outcomes: Record<string, RecordedOutcome> = Object.create(null);
  for (const [key, value] of Object.entries(parsed.outcomes)) if (isOutcome(value)) outcomes[key] = value;
  const asked: Record<string, string> = Object.create(null);
  if (isRecord(parsed.asked)) {
    for (const [key, value] of Object.entries(parsed.asked))
      if (typeof value === "string") asked[key] = value;
  }
  return { outcomes, asked };
}

export function encodeResolverState(state: ResolverState): string {
  return JSON.stringify({ v: VERSION, outcomes: state.outcomes, asked: state.asked });
}
