/**
 * Seeded fuzzing of our client on a 2025-era session with a hostile stdio server process
 * (fixtures/stdio/hostile-legacy-server.ts): during each call the server calls back with
 * elicitation, sampling and roots requests whose params are mostly junk, pings, unknown methods
 * and odd ids, then answers well or badly. The callbacks must only ever see valid params; every
 * call-back with a usable id gets exactly one well-formed answer; every call settles; the session
 * keeps working.
 */
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../../src/client/index.js";
import { unhandledRejections } from "../../helpers.js";
import { collect, killSpawned, seededFixture } from "./helpers.js";

const HOSTILE = fileURLToPath(new URL("../../fixtures/stdio/hostile-legacy-server.ts", import.meta.url));
const CALLS = 60;
const ANSWER_CODES = new Set([-32600, -32601, -32602, -32603]);

const unhandled = unhandledRejections();
afterEach(() => killSpawned());

describe("client fuzz on a 2025 session with a hostile stdio server (real process)", () => {
  it.each([5, 9, 20261201])(
    `settles ${CALLS} calls (seed %i) and answers each server request once, with valid params only reaching callbacks`,
    async (seed) => {
      const transport = seededFixture(HOSTILE, seed, "pipe");
      const seen = { elicitation: 0, sampling: 0, roots: 0 };
      // The short timeout is the calls' own: connecting waits for the child to boot, which takes
      // longer than that on a loaded machine.
      const client = await Client.connect(transport, {
        elicitation: async (_ctx, params) => {
          expect(typeof params.message).toBe("string");
          seen.elicitation++;
          return { action: "accept", content: { region: "eu-west-1" } };
        },
        sampling: async (_ctx, params) => {
          expect(Array.isArray(params.messages)).toBe(true);
          seen.sampling++;
          return { role: "assistant", content: { type: "text", text: "ok" }, model: "m" };
        },
        listRoots: async () => {
          seen.roots++;
          return { roots: [] };
        },
      });
      const answers = collect(transport.stderr);
      expect(client.protocolVersion).toBe("2025-11-25");
      let settled = 0;
      for (let batch = 0; batch < CALLS / 6; batch++) {
        const outcomes = await Promise.allSettled(
          Array.from({ length: 6 }, (_, i) =>
            client.callTool("any", { n: batch * 6 + i }, { timeoutMs: 300 }),
          ),
        );
        for (const outcome of outcomes) {
          if (outcome.status === "rejected") {
            expect(outcome.reason).toBeInstanceOf(Error);
            expect((outcome.reason as Error).message.length).toBeGreaterThan(0);
          }
          settled++;
        }
      }
      expect(settled).toBe(CALLS);
      expect((await client.callTool("final", {})).content).toEqual([{ type: "text", text: "still here" }]);
      await client.close();

      const replies = answers
        .text()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const perId = new Map<unknown, number>();
      for (const reply of replies) {
        expect(reply.jsonrpc).toBe("2.0");
        const id = reply.id;
        expect(id === null || typeof id === "string" || Number.isInteger(id), JSON.stringify(reply)).toBe(
          true,
        );
        expect("result" in reply !== "error" in reply, JSON.stringify(reply)).toBe(true);
        if ("error" in reply) {
          const code = (reply.error as { code: number }).code;
          expect(ANSWER_CODES.has(code), JSON.stringify(reply)).toBe(true);
        }
        perId.set(id, (perId.get(id) ?? 0) + 1);
      }
      for (const [id, count] of perId) if (typeof id === "number") expect(count, `answers to ${id}`).toBe(1);
      expect(perId.size).toBeGreaterThan(10);
      expect(seen.elicitation + seen.sampling + seen.roots).toBeGreaterThan(0);
      expect(unhandled).toEqual([]);
    },
    60_000,
  );
});
