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
