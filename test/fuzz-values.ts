/** The random JSON the hostile peers of the client fuzz tests answer with. */
import type { prng } from "./prng.js";

/**
 * A random JSON value, results' vocabulary first: `keys` name the members of the objects it makes.
 *
 * @example
 * junk(prng(1), ["resultType", "content"]); // e.g. { content: [null, "éé"] }
 */
export function junk(rng: ReturnType<typeof prng>, keys: readonly string[], depth = 0): unknown {
  switch (rng.int(depth > 2 ? 4 : 6)) {
    case 0:
      return null;
    case 1:
      return rng.pick([0, -32603, 1.5, "x", true]);
    case 2:
      return rng.pick(["complete", "input_required", "task", "", "weird"]);
    case 3:
      return "é".repeat(rng.int(5));
    case 4:
      return Array.from({ length: rng.int(3) }, () => junk(rng, keys, depth + 1));
    default:
      return Object.fromEntries(
        Array.from({ length: rng.int(4) }, () => [rng.pick(keys), junk(rng, keys, depth + 1)]),
      );
  }
}

/** What a `randomJson` draws from besides null, booleans and awkward numbers. */
export interface JsonVocabulary {
  /** Some random text of at most `max` characters. */
  readonly text: (max: number) => string;
  /** Strings that mean something to the code under test. */
  readonly words: readonly string[];
  /** Member names of the objects it makes (a random text is added to them). */
  readonly keys: readonly string[];
}

/**
 * A random JSON value of the request side: scalars, known words, arrays and objects up to four deep.
 *
 * @example
 * randomJson(prng(7), { text: () => "x", words: ["2026-07-28"], keys: ["name"] });
 */
export function randomJson(rng: ReturnType<typeof prng>, vocabulary: JsonVocabulary, depth = 0): unknown {
  switch (rng.int(depth > 3 ? 5 : 8)) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
      return rng.pick([0, -1, 1.5, 2 ** 53, Number.MAX_SAFE_INTEGER, 1e308]);
    case 3:
      return vocabulary.text(12);
    case 4:
      return rng.pick(vocabulary.words);
    case 5:
      return Array.from({ length: rng.int(4) }, () => randomJson(rng, vocabulary, depth + 1));
    default:
      return Object.fromEntries(
        Array.from({ length: rng.int(4) }, () => [
          rng.pick([...vocabulary.keys, vocabulary.text(5)]),
          randomJson(rng, vocabulary, depth + 1),
        ]),
      );
  }
}
