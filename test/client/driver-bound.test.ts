// One round's inputRequests each start a callback (a dialog, a model call) at once: a server asking
// for more than 100 in a round is refused before any runs, in the call loop and the task loop alike.
import { expect, it } from "vitest";
import { runInputRequiredLoop } from "../../src/client/driver.js";
import { ProtocolError } from "../../src/shared/errors.js";
import type { ElicitRequest, InputRequiredResult } from "../../src/types/index.js";

const ASK: ElicitRequest = {
  method: "elicitation/create",
  params: { message: "Name?", requestedSchema: { type: "object", properties: {} } },
};

function asking(count: number): InputRequiredResult {
  return {
    resultType: "input_required",
    inputRequests: Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, ASK])),
    requestState: "s",
  };
}

it("answers a round of 100 requests, refuses one of 100,000 without running a callback", async () => {
  let dispatched = 0;
  const options = {
    maxRounds: 1,
    dispatch: async () => {
      dispatched++;
      return { action: "decline" as const };
    },
    retry: async () => ({ resultType: "complete", content: [] }),
  };
  expect(await runInputRequiredLoop(asking(100), options)).toEqual({ resultType: "complete", content: [] });
  expect(dispatched).toBe(100);
  const refused = await runInputRequiredLoop(asking(100_000), options).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(ProtocolError);
  expect((refused as Error).message).toBe(
    "The server asked for 100000 inputs in one round; at most 100 are answered",
  );
  expect(dispatched).toBe(100);
});
