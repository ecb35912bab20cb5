import { afterEach, describe, expect, it, vi } from "vitest";
import { pause, timerDelay } from "../../src/shared/timers.js";

/** The longest delay a timer honours; Node turns a longer one into 1 ms. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

describe("timerDelay", () => {
  it("cuts a delay beyond a timer's range to the longest one, and keeps any other", () => {
    expect([
      timerDelay(2 ** 31),
      timerDelay(Number.POSITIVE_INFINITY),
      timerDelay(LONGEST_TIMER_MS),
      timerDelay(0),
    ]).toEqual([LONGEST_TIMER_MS, LONGEST_TIMER_MS, LONGEST_TIMER_MS, 0]);
  });
});

describe("pause", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("waits the longest a timer can for a delay beyond its range (listen's reconnect delay)", async () => {
    vi.useFakeTimers();
    let done = false;
    void pause(2 ** 31, new AbortController().signal).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(LONGEST_TIMER_MS - 1);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
  });
});
