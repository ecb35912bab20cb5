/**
 * Seeded fuzzing of our client against a hostile stdio server process (fixtures/stdio/
 * hostile-server.ts): garbage lines, wrong ids, bad result and error shapes, both result and
 * error, stray server→client requests, unknown resultTypes, duplicate answers, huge lines and
 * silence. Every call must settle (a typed result, or an Error that says what went wrong) within
 * its timeout, nothing may reject unhandled, and the same connection must still serve a good call.
 */
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../../src/client/index.js";
import { fuzzCalls } from "../../fuzz-calls.js";
import { unhandledRejections } from "../../helpers.js";
import { killSpawned, seededFixture } from "./helpers.js";

const HOSTILE = fileURLToPath(new URL("../../fixtures/stdio/hostile-server.ts", import.meta.url));
const CALLS = 96;
const BATCH = 12;
const TIMEOUT_MS = 300;

const unhandled = unhandledRejections();
afterEach(() => killSpawned());

describe("client fuzz against a hostile stdio server (real process)", () => {
  it.each([1, 7, 20261201])(
    `settles ${CALLS} calls to a hostile server (seed %i) with results or clear errors, and keeps the connection`,
    async (seed) => {
      const transport = seededFixture(HOSTILE, seed);
      // The short timeout is the calls' own: connecting waits for the child to boot, which takes
      // longer than that on a loaded machine.
      const client = await Client.connect(transport, {
        elicitation: async () => ({ action: "decline" }),
      });
      expect(client.protocolVersion).toBe("2026-07-28");
      // Sequential and concurrent calls: answers for one call must never settle another.
      const outcomes = await fuzzCalls(client, { calls: CALLS, batch: BATCH, timeoutMs: TIMEOUT_MS });
      expect(outcomes.fine).toBeGreaterThan(0);
      expect(outcomes.errors.size).toBeGreaterThan(1);
      const final = await client.callTool("final", {});
      expect(final.content).toEqual([{ type: "text", text: "still here" }]);
      await client.close();
      expect(unhandled).toEqual([]);
    },
    30_000,
  );
});
