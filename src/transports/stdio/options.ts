/**
 * The stdio transports' numeric options, checked. NaN (a `Number(env)` left unset) compares false
 * with every size and turns every timer into 1 ms: as a line bound it would lift the bound (and the
 * server's backpressure with it), as a wait it would cut the wait short. Such values are refused.
 */

/**
 * `value` (or `fallback` when absent) as a line bound: a positive integer.
 *
 * @example
 * const maxLineBytes = lineBoundOf("maxLineBytes", options.maxLineBytes, DEFAULT_MAX_LINE_BYTES);
 */
export function lineBoundOf(name: string, value: number | undefined, fallback: number): number {
  const bound = value ?? fallback;
  if (!(Number.isInteger(bound) && bound > 0)) {
    throw new RangeError(`${name} must be a positive integer, got ${bound}`);
  }
  return bound;
}

/**
 * `value` (or `fallback` when absent) as a wait in milliseconds: non-negative; Infinity waits as
 * long as a timer can.
 *
 * @example
 * const drainTimeoutMs = waitOf("drainTimeoutMs", options.drainTimeoutMs, DEFAULT_DRAIN_TIMEOUT_MS);
 */
export function waitOf(name: string, value: number | undefined, fallback: number): number {
  const ms = value ?? fallback;
  if (!(ms >= 0)) {
    throw new RangeError(`${name} must be a non-negative number of milliseconds, got ${ms}`);
  }
  return ms;
}
