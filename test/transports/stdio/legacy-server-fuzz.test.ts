/**
 * Seeded fuzzing of a real stdio server process (examples/stdio-server.ts) by a hostile 2025-era
 * client: after a proper initialize it calls the resolver tool, whose question reaches the client
 * as an `elicitation/create` request on the back-channel, and answers those requests with junk
 * results, junk errors, wrong and repeated ids, or late, among stray notifications. Every
 * line out must be well-formed JSON-RPC, every call is answered exactly once (after at most the
 * back-channel's wait), and the process stays up for a genuine flow, then exits cleanly on EOF.
 */
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { junk } from "../../fuzz-values.js";
import { prng } from "../../prng.js";
import { killSpawned, RawServer, until } from "./helpers.js";

const SERVER = fileURLToPath(new URL("../../../examples/stdio-server.ts", import.meta.url));
const CALLS = 150;
const KEYS = ["action", "content", "region", "code", "message", "_meta"];
const CODES = new Set([-32600, -32601, -32602, -32603, -32002, -32042]);

type Message = Record<string, unknown>;

afterEach(() => killSpawned());

describe("stdio server fuzz by a hostile 2025 client (real process)", () => {
  it.each([0x2025, 77])(
    "answers every call of a hostile legacy session once (seed %i)",
    async (seed) => {
      const rng = prng(seed);
      const server = new RawServer({}, SERVER);
      server.write({
        jsonrpc: "2.0",
        id: "init",
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: { elicitation: { form: {} } },
          clientInfo: { name: "hostile", version: "0" },
        },
      });
      await server.waitLines(1);
      server.write({ jsonrpc: "2.0", method: "notifications/initialized" });
      for (let id = 1; id <= CALLS; id++) {
        server.write({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "provision", arguments: rng.chance(0.9) ? { name: `db${id}` } : junk(rng, KEYS) },
        });
      }
      // Answer the server's requests as they come, badly most of the time.
      const answered = new Set<unknown>();
      const late: unknown[] = [];
      const replyToServer = () => {
        for (const text of server.lines) {
          const message = JSON.parse(text) as Message;
          if (typeof message.method !== "string" || message.id === undefined || answered.has(message.id))
            continue;
          answered.add(message.id);
          switch (rng.int(7)) {
            case 0:
              server.write({ jsonrpc: "2.0", id: message.id, result: junk(rng, KEYS) });
              break;
            case 1:
              server.write({ jsonrpc: "2.0", id: message.id, error: junk(rng, KEYS) });
              break;
            case 2:
              server.write({ jsonrpc: "2.0", id: `${String(message.id)}x`, result: { action: "decline" } });
              late.push(message.id); // the right id comes later
              break;
            case 3:
              late.push(message.id); // answered once everything else has been
              break;
            case 4:
              server.write({ jsonrpc: "2.0", method: "notifications/cancelled", params: junk(rng, KEYS) });
              server.write({ jsonrpc: "2.0", id: message.id, result: { action: "decline" } });
              server.write({ jsonrpc: "2.0", id: message.id, result: { action: "decline" } });
              break;
            default:
              server.write({
                jsonrpc: "2.0",
                id: message.id,
                result: { action: "accept", content: { region: "eu-west-1" } },
              });
          }
        }
      };
      const callsAnswered = () =>
        server.lines.filter((text) => {
          const message = JSON.parse(text) as Message;
          return typeof message.id === "number" && message.method === undefined;
        }).length;
      await until(
        () => {
          replyToServer();
          // Nothing else moves: the late ones get their (good) answers now.
          if (callsAnswered() + late.length >= CALLS || rng.chance(0.02)) {
            for (const id of late.splice(0)) {
              server.write({
                jsonrpc: "2.0",
                id,
                result: { action: "accept", content: { region: "eu-west-1" } },
              });
            }
          }
          return callsAnswered() >= CALLS;
        },
        `answers to all ${CALLS} calls`,
        50_000,
      );

      const perId = new Map<unknown, number>();
      for (const text of server.lines) {
        const message = JSON.parse(text) as Message;
        expect(message.jsonrpc).toBe("2.0");
        if (typeof message.method === "string") continue; // the server's own requests and notifications
        expect("result" in message !== "error" in message, text).toBe(true);
        if ("error" in message) expect(CODES.has((message.error as { code: number }).code), text).toBe(true);
        perId.set(message.id, (perId.get(message.id) ?? 0) + 1);
      }
      for (let id = 1; id <= CALLS; id++) expect(perId.get(id), `answers to call ${id}`).toBe(1);
      const done = server.lines
        .map((text) => JSON.parse(text) as Message)
        .filter((message) => JSON.stringify(message.result ?? "").includes("Provisioned"));
      expect(done.length).toBeGreaterThan(10);
      expect(server.stderr).not.toMatch(/TypeError|ReferenceError|RangeError|Unhandled/);
      server.end();
      expect(await server.exited).toEqual({ code: 0, signal: null });
    },
    60_000,
  );
});
