import { afterEach, describe, expect, it, vi } from "vitest";
import {
  DEFAULT_INPUT_REQUIRED_MAX_ROUNDS,
  type InputRequiredRound,
  runInputRequiredLoop,
} from "../../src/client/driver.js";
import { InputRequiredRoundsExceededError } from "../../src/client/errors.js";
import { RequestAbortedError, RequestTimeoutError } from "../../src/shared/errors.js";
import {
  type ElicitRequest,
  type InputRequiredResult,
  type InputResponses,
  McpError,
  type ResultObject,
} from "../../src/types/index.js";

const ASK: ElicitRequest = {
  method: "elicitation/create",
  params: { message: "Name?", requestedSchema: { type: "object", properties: { n: { type: "string" } } } },
};
const ACCEPT = { action: "accept" as const, content: { n: "x" } };
const DONE = { resultType: "complete", content: [] };

function ask(state: string, keys: string[] = ["q"]): InputRequiredResult {
  return {
    resultType: "input_required",
    inputRequests: Object.fromEntries(keys.map((k) => [k, ASK])),
    requestState: state,
  };
}
function stateOnly(state: string): InputRequiredResult {
  return { resultType: "input_required", requestState: state };
}

/** A retry that replays `script` in order and records what it was given. */
function scripted(script: (ResultObject | InputRequiredResult)[]) {
  const calls: { responses: InputResponses | undefined; state: string | undefined }[] = [];
  const retry = async (responses: InputResponses | undefined, state: string | undefined) => {
    calls.push({ responses, state });
    const next = script.shift();
    if (!next) throw new Error("script exhausted");
    return next;
  };
  return { calls, retry };
}

/** A virtual clock: sleep advances it, and each retry records the time it happened. */
function virtualClock() {
  let now = 0;
  const retryTimes: number[] = [];
  return {
    sleep: async (ms: number) => {
      now += ms;
    },
    mark: () => retryTimes.push(now),
    deltas: () => retryTimes.map((t, i) => (t - (i === 0 ? 0 : (retryTimes[i - 1] as number))) / 1000),
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("runInputRequiredLoop (python tests/client/test_input_required.py)", () => {
  it("single round: dispatches, then retries to the terminal result", async () => {
    const { calls, retry } = scripted([DONE]);
    const dispatched: string[] = [];
    const result = await runInputRequiredLoop(ask("s1"), {
      maxRounds: 10,
      dispatch: async (key) => {
        dispatched.push(key);
        return ACCEPT;
      },
      retry,
    });
    expect(result).toEqual(DONE);
    expect(dispatched).toEqual(["q"]);
    expect(calls).toEqual([{ responses: { q: ACCEPT }, state: "s1" }]);
  });

  it("multi round: loops until a retry returns something that is not input_required", async () => {
    const { calls, retry } = scripted([ask("s2", ["b"]), ask("s3", ["c"]), DONE]);
    const result = await runInputRequiredLoop(ask("s1", ["a"]), {
      maxRounds: 10,
      dispatch: async () => ACCEPT,
      retry,
    });
    expect(result).toEqual(DONE);
    expect(calls).toEqual([
      { responses: { a: ACCEPT }, state: "s1" },
      { responses: { b: ACCEPT }, state: "s2" },
      { responses: { c: ACCEPT }, state: "s3" },
    ]);
  });

  it("exceeding max rounds raises with the configured cap after exactly that many retries", async () => {
    let retries = 0;
    let dispatches = 0;
    const error = await runInputRequiredLoop(ask("s0"), {
      maxRounds: 3,
      dispatch: async () => {
        dispatches++;
        return ACCEPT;
      },
      retry: async () => ask(`s${++retries}`),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputRequiredRoundsExceededError);
    const exceeded = error as InputRequiredRoundsExceededError;
    expect(exceeded.maxRounds).toBe(3);
    expect(retries).toBe(3);
    expect(dispatches).toBe(3); // the cap is checked before the fourth round is dispatched
    expect(exceeded.lastResult).toEqual(ask("s3"));
    expect(exceeded.message).toContain("inputRequiredMaxRounds");
    expect(exceeded.message).toContain("allowInputRequired");
  });

  it("a dispatch that fails with an McpError aborts the loop without retrying", async () => {
    const { calls, retry } = scripted([DONE]);
    const error = await runInputRequiredLoop(ask("s"), {
      maxRounds: 10,
      dispatch: async () => {
        throw new McpError(-32600, "Elicitation not supported");
      },
      retry,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32600);
    expect(calls).toEqual([]);
  });

  it("passes requestState through byte-identical", async () => {
    const state = ' \u2028"weird" \\ state \u00e9\ud83d\ude00 ';
    const { calls, retry } = scripted([DONE]);
    await runInputRequiredLoop(ask(state), { maxRounds: 1, dispatch: async () => ACCEPT, retry });
    expect(calls[0]?.state).toBe(state);
  });

  it("state-only legs back off exponentially to the 250 ms cap (virtual clock)", async () => {
    const clock = virtualClock();
    const script = [stateOnly("2"), stateOnly("3"), stateOnly("4"), stateOnly("5"), stateOnly("6"), DONE];
    const seen: (string | undefined)[] = [];
    const seenResponses: unknown[] = [];
    await runInputRequiredLoop(stateOnly("1"), {
      maxRounds: 10,
      sleep: clock.sleep,
      dispatch: async () => ACCEPT,
      retry: async (responses, state) => {
        clock.mark();
        seen.push(state);
        seenResponses.push(responses);
        return script.shift() as ResultObject;
      },
    });
    expect(clock.deltas()).toEqual([0.05, 0.1, 0.2, 0.25, 0.25, 0.25]);
    expect(seen).toEqual(["1", "2", "3", "4", "5", "6"]);
    expect(seenResponses.every((r) => r === undefined)).toBe(true);
  });

  it("the state-only pacing is configurable (a slow out-of-band step)", async () => {
    const clock = virtualClock();
    const script = [stateOnly("2"), stateOnly("3"), stateOnly("4"), DONE];
    await runInputRequiredLoop(stateOnly("1"), {
      maxRounds: 10,
      sleep: clock.sleep,
      stateOnlyBackoff: { initialMs: 1000, capMs: 3000 },
      dispatch: async () => ACCEPT,
      retry: async () => {
        clock.mark();
        return script.shift() as ResultObject;
      },
    });
    expect(clock.deltas()).toEqual([1, 2, 3, 3]);
  });

  it("a first pause above the cap is never shortened by it (only initialMs raised)", async () => {
    const clock = virtualClock();
    const script = [stateOnly("2"), stateOnly("3"), DONE];
    await runInputRequiredLoop(stateOnly("1"), {
      maxRounds: 10,
      sleep: clock.sleep,
      stateOnlyBackoff: { initialMs: 1000 },
      dispatch: async () => ACCEPT,
      retry: async () => {
        clock.mark();
        return script.shift() as ResultObject;
      },
    });
    expect(clock.deltas()).toEqual([1, 1, 1]);
  });

  it("a state-only pause longer than a timer can wait still waits (it fired after 1 ms)", async () => {
    let retries = 0;
    const controller = new AbortController();
    const flow = runInputRequiredLoop(stateOnly("1"), {
      maxRounds: 10,
      stateOnlyBackoff: { initialMs: 3_000_000_000 },
      signal: controller.signal,
      dispatch: async () => ACCEPT,
      retry: async () => {
        retries++;
        return DONE;
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    await expect(flow).rejects.toBeInstanceOf(RequestAbortedError);
    expect(retries).toBe(0);
  });

  it("the backoff resets after a leg with input requests", async () => {
    const clock = virtualClock();
    const script = [stateOnly("2"), ask("3"), stateOnly("4"), DONE];
    await runInputRequiredLoop(stateOnly("1"), {
      maxRounds: 10,
      sleep: clock.sleep,
      dispatch: async () => ACCEPT,
      retry: async () => {
        clock.mark();
        return script.shift() as ResultObject;
      },
    });
    expect(clock.deltas()).toEqual([0.05, 0.1, 0, 0.05]);
  });

  it("dispatches the entries of one round concurrently (a barrier would deadlock if sequential)", async () => {
    let arrived = 0;
    let release!: () => void;
    const barrier = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { calls, retry } = scripted([DONE]);
    await runInputRequiredLoop(ask("s", ["a", "b", "c"]), {
      maxRounds: 1,
      dispatch: async (key) => {
        if (++arrived === 3) release();
        await barrier;
        return { action: "accept", content: { n: key } };
      },
      retry,
    });
    expect(calls[0]?.responses).toEqual({
      a: { action: "accept", content: { n: "a" } },
      b: { action: "accept", content: { n: "b" } },
      c: { action: "accept", content: { n: "c" } },
    });
  });

  it("the default cap is 10", () => {
    expect(DEFAULT_INPUT_REQUIRED_MAX_ROUNDS).toBe(10);
  });
});

describe("runInputRequiredLoop extras", () => {
  it("the first failure aborts the siblings' signals and is the one raised", async () => {
    const aborted: string[] = [];
    const first = new Error("first");
    const error = await runInputRequiredLoop(ask("s", ["slow1", "fails", "slow2"]), {
      maxRounds: 1,
      dispatch: (key, _request, signal) =>
        new Promise((_resolve, reject) => {
          if (key === "fails") {
            setTimeout(() => reject(first), 5);
            return;
          }
          signal.addEventListener("abort", () => {
            aborted.push(key);
            reject(new Error(`late ${key}`));
          });
        }),
      retry: async () => DONE,
    }).catch((e: unknown) => e);
    expect(error).toBe(first);
    expect(aborted.sort()).toEqual(["slow1", "slow2"]);
  });

  it("a synchronously throwing callback is a failure like any other", async () => {
    const boom = new Error("sync");
    await expect(
      runInputRequiredLoop(ask("s"), {
        maxRounds: 1,
        dispatch: () => {
          throw boom;
        },
        retry: async () => DONE,
      }),
    ).rejects.toBe(boom);
  });

  it("a result without resultType is terminal", async () => {
    const plain = { content: [{ type: "text", text: "ok" }] };
    expect(
      await runInputRequiredLoop(plain, { maxRounds: 1, dispatch: async () => ACCEPT, retry: vi.fn() }),
    ).toBe(plain);
  });

  it("the retry omits requestState when the latest round carried none", async () => {
    const { calls, retry } = scripted([{ resultType: "input_required", inputRequests: { q: ASK } }, DONE]);
    await runInputRequiredLoop(ask("s1"), { maxRounds: 5, dispatch: async () => ACCEPT, retry });
    expect(calls.map((c) => c.state)).toEqual(["s1", undefined]);
  });

  it("maxRounds 0 never retries", async () => {
    const retry = vi.fn();
    await expect(
      runInputRequiredLoop(ask("s"), { maxRounds: 0, dispatch: async () => ACCEPT, retry }),
    ).rejects.toBeInstanceOf(InputRequiredRoundsExceededError);
    expect(retry).not.toHaveBeenCalled();
  });

  it("reports each round to onRound before dispatching", async () => {
    const rounds: InputRequiredRound[] = [];
    const script = [stateOnly("2"), DONE];
    await runInputRequiredLoop(ask("1"), {
      maxRounds: 4,
      sleep: async () => {},
      onRound: (round) => rounds.push(round),
      dispatch: async () => ACCEPT,
      retry: async () => script.shift() as ResultObject,
    });
    expect(rounds.map(({ round, maxRounds, stateOnly }) => ({ round, maxRounds, stateOnly }))).toEqual([
      { round: 1, maxRounds: 4, stateOnly: false },
      { round: 2, maxRounds: 4, stateOnly: true },
    ]);
    expect(rounds[1]?.result).toEqual(stateOnly("2"));
  });

  it("an aborted signal ends a round whose callbacks never settle, and aborts them", async () => {
    const controller = new AbortController();
    let callbackSignal: AbortSignal | undefined;
    const pending = runInputRequiredLoop(ask("s"), {
      maxRounds: 1,
      signal: controller.signal,
      dispatch: (_key, _request, signal) => {
        callbackSignal = signal;
        return new Promise(() => {});
      },
      retry: async () => DONE,
    });
    await Promise.resolve();
    controller.abort(new RequestAbortedError("stop"));
    await expect(pending).rejects.toThrow("stop");
    expect(callbackSignal?.aborted).toBe(true);
  });

  it("state-only pauses use real timers by default and are cut short by abort (fake timers)", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const retry = vi.fn(async () => stateOnly("again"));
    const pending = runInputRequiredLoop(stateOnly("s"), {
      maxRounds: 10,
      signal: controller.signal,
      dispatch: async () => ACCEPT,
      retry,
    });
    const outcome = pending.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(49);
    expect(retry).toHaveBeenCalledTimes(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(retry).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(100);
    expect(retry).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(200);
    expect(retry).toHaveBeenCalledTimes(3);
    await vi.advanceTimersByTimeAsync(250);
    expect(retry).toHaveBeenCalledTimes(4);
    controller.abort();
    expect(await outcome).toBeInstanceOf(RequestAbortedError);
    expect(retry).toHaveBeenCalledTimes(4);
  });

  it("a deadline stops the loop before the next leg", async () => {
    let now = 0;
    const retry = vi.fn(async () => stateOnly("again"));
    const error = await runInputRequiredLoop(stateOnly("s"), {
      maxRounds: 100,
      now: () => now,
      deadline: 120,
      sleep: async (ms) => {
        now += ms;
      },
      dispatch: async () => ACCEPT,
      retry,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    // 50 ms, then 70 ms (the pause is capped at what is left of the budget), then the deadline.
    expect(retry).toHaveBeenCalledTimes(1);
    expect(now).toBe(120);
  });
});
