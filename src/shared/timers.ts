/** The longest delay `setTimeout`/`setInterval` honour (2^31 - 1 ms, about 24.8 days). */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

/**
 * `ms` cut to the longest delay a timer honours: Node turns a longer one into 1 ms, so a timeout
 * of a month would fire at once.
 */
export function timerDelay(ms: number): number {
  return Math.min(ms, MAX_TIMER_DELAY_MS);
}

/**
 * Waits `ms` milliseconds, or less when `signal` aborts first; never rejects (callers check the
 * signal themselves).
 */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, timerDelay(ms));
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
