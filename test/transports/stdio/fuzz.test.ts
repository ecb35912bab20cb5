/**
 * Seeded fuzzing of a real stdio server process (examples/stdio-server.ts: an MCPServer with a
 * resolver and sealed request state). About 1,500 lines of malformed JSON, wrong envelopes, random
 * params, tampered state and stray notifications go in; every line out must be well-formed
 * JSON-RPC with a spec code, every request we can identify gets exactly one answer, nothing is an
 * internal error, and the process still serves a real two-round flow, then exits cleanly on EOF.
 */
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { randomJson as anyJson } from "../../fuzz-values.js";
import { prng } from "../../prng.js";
import { ENVELOPE, killSpawned, RawServer, until } from "./helpers.js";

const SERVER = fileURLToPath(new URL("../../../examples/stdio-server.ts", import.meta.url));
const LINES = 1_500;
/** What a modern stdio server may answer to bad input; -32603 would mean one of our own paths broke. */
const SPEC_CODES = new Set([-32700, -32600, -32601, -32602, -32021, -32022]);
const ELICITING = {
  ...ENVELOPE,
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
};
const METHODS = [
  "tools/call",
  "tools/call",
  "tools/call",
  "tools/list",
  "prompts/list",
  "prompts/get",
  "resources/list",
  "resources/read",
  "resources/templates/list",
  "completion/complete",
  "server/discover",
  "ping",
  "logging/setLevel",
  "sampling/createMessage",
  "nope/x",
  "",
];
const PRINTABLE = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCXYZ[\\]^_`abcxyz{|}~é€😀";

type Rng = ReturnType<typeof prng>;

function text(rng: Rng, max: number): string {
  let out = "";
  for (let i = rng.int(max + 1); i > 0; i--) out += PRINTABLE.charAt(rng.int(PRINTABLE.length));
  return out;
}

function randomJson(rng: Rng): unknown {
  return anyJson(rng, {
    text: (max) => text(rng, max),
    words: ["2026-07-28", "2025-11-25", "v999", "eu-west-1", "accept", "decline"],
    keys: ["name", "uri", "_meta", "arguments", "region", "action", "content"],
  });
}

/** Flips, cuts or swaps characters of a genuine sealed token. */
function tamper(rng: Rng, token: string): string {
  const at = rng.int(token.length);
  switch (rng.int(4)) {
    case 0:
      return token.slice(0, at);
    case 1:
      return token.slice(0, at) + (token[at] === "A" ? "B" : "A") + token.slice(at + 1);
    case 2:
      return `${token}${text(rng, 3)}`;
    default:
      return token.split(".").reverse().join(".");
  }
}

function params(rng: Rng, method: string, sealed: string): Record<string, unknown> {
  const roll = rng.int(10);
  const envelope =
    roll === 0 ? randomJson(rng) : roll === 1 ? { ...ENVELOPE, ...(randomJson(rng) as object) } : ELICITING;
  const out: Record<string, unknown> = rng.chance(0.05) ? {} : { _meta: envelope };
  if (method === "tools/call") {
    out.name = rng.pick(["provision", "provision", "nope", "", 7]);
    out.arguments = rng.pick([{ name: "orders" }, { name: 7 }, {}, randomJson(rng), undefined]);
    if (rng.chance(0.5)) {
      out.inputResponses = rng.pick([
        { ask_region: { action: "accept", content: { region: "eu-west-1" } } },
        { ask_region: { action: "accept", content: { region: 5 } } },
        { ask_region: { action: rng.pick(["decline", "cancel", "maybe"]) } },
        { region: { action: "accept", content: { region: "eu-west-1" } } },
        randomJson(rng),
      ]);
    }
    if (rng.chance(0.5)) out.requestState = rng.chance(0.7) ? tamper(rng, sealed) : randomJson(rng);
  } else if (method === "prompts/get") {
    out.name = randomJson(rng);
  } else if (method === "resources/read") {
    out.uri = rng.pick(["file:///a", "x://é", "", 1]);
  } else if (rng.chance(0.3)) {
    out.cursor = randomJson(rng);
  }
  return out;
}

/**
 * One input line; the id it must be answered under when the line is a well-formed request, and
 * the id it cancels when it is a `notifications/cancelled` (that request may then go unanswered).
 */
function line(rng: Rng, id: number, sealed: string): { text: string; answeredAs?: number; cancels?: number } {
  const method = rng.pick(METHODS);
  const request = { jsonrpc: "2.0", id, method, params: params(rng, method, sealed) };
  switch (rng.int(14)) {
    case 0: {
      const json = JSON.stringify(request);
      return { text: json.slice(0, rng.int(json.length)) };
    }
    case 1:
      return { text: text(rng, 40) };
    case 2:
      return { text: JSON.stringify([request]) };
    case 3:
      return { text: JSON.stringify(randomJson(rng)) };
    case 4:
      return { text: JSON.stringify({ ...request, id: randomJson(rng) }) };
    case 5:
      return { text: JSON.stringify({ ...request, jsonrpc: rng.pick(["1.0", 2, null]) }) };
    case 6: {
      const method = rng.pick(["notifications/cancelled", "notifications/progress", "notifications/x"]);
      const cancels = rng.chance(0.5) ? rng.int(id + 1) : undefined;
      const text = JSON.stringify({
        jsonrpc: "2.0",
        method,
        params: cancels === undefined ? randomJson(rng) : { requestId: cancels },
      });
      return method === "notifications/cancelled" && cancels !== undefined ? { text, cancels } : { text };
    }
    case 7:
      return { text: JSON.stringify({ jsonrpc: "2.0", id: rng.int(id + 1), result: randomJson(rng) }) };
    case 8:
      return { text: `${"[".repeat(rng.pick([10, 5_000]))}` };
    default:
      return { text: JSON.stringify(request), answeredAs: id };
  }
}

/** The sealed `requestState` of a genuine first round, to tamper with. */
async function firstRound(server: RawServer, id: number): Promise<{ sealed: string; lines: number }> {
  const before = server.lines.length;
  server.write({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "provision", arguments: { name: "orders" }, _meta: ELICITING },
  });
  const lines = await server.waitLines(before + 1);
  const answer = JSON.parse(lines[before] as string) as {
    result: { resultType: string; requestState: string };
  };
  expect(answer.result.resultType).toBe("input_required");
  return { sealed: answer.result.requestState, lines: before + 1 };
}

afterEach(() => killSpawned());

describe("stdio server fuzz (real process)", () => {
  it.each([0x5eed, 0xbad5eed, 20261201])(
    `answers ${LINES} hostile lines (seed %i) with well-formed JSON-RPC and keeps serving`,
    async (seed) => {
      const server = new RawServer({}, SERVER);
      const { sealed } = await firstRound(server, 0);
      const rng = prng(seed);
      const expected = new Set<number>();
      const cancelled = new Set<number>();
      for (let id = 1; id <= LINES; id++) {
        const { text: out, answeredAs, cancels } = line(rng, id, sealed);
        if (answeredAs !== undefined) expected.add(answeredAs);
        if (cancels !== undefined) cancelled.add(cancels);
        server.write(`${out}\n`);
      }
      // Then a genuine flow: the round's state answered with the region.
      const done = LINES + 1;
      server.write({
        jsonrpc: "2.0",
        id: done,
        method: "tools/call",
        params: {
          name: "provision",
          arguments: { name: "orders" },
          inputResponses: { ask_region: { action: "accept", content: { region: "eu-west-1" } } },
          requestState: sealed,
          _meta: ELICITING,
        },
      });
      await until(
        () => server.lines.some((text) => text.startsWith(`{"jsonrpc":"2.0","id":${done},`)),
        "the final flow's answer",
        20_000,
      );

      const answered = new Map<unknown, number>();
      for (const text of server.lines.slice(1)) {
        const message = JSON.parse(text) as Record<string, unknown>;
        expect(message.jsonrpc).toBe("2.0");
        if (!("id" in message)) {
          expect(typeof message.method, text).toBe("string");
          continue;
        }
        const id = message.id;
        expect(id === null || typeof id === "string" || Number.isInteger(id), text).toBe(true);
        answered.set(id, (answered.get(id) ?? 0) + 1);
        expect("result" in message !== "error" in message, text).toBe(true);
        if ("error" in message) {
          const error = message.error as { code: number; message: unknown };
          expect(SPEC_CODES.has(error.code), text).toBe(true);
          expect(typeof error.message, text).toBe("string");
        }
      }
      // A cancelled request is answered at most once: not at all when the cancel came in time.
      for (const id of expected) {
        if (cancelled.has(id))
          expect(answered.get(id) ?? 0, `answers to request ${id}`).toBeLessThanOrEqual(1);
        else expect(answered.get(id), `answers to request ${id}`).toBe(1);
      }
      expect([...expected].filter((id) => !cancelled.has(id)).length).toBeGreaterThan(LINES / 4);
      const final = JSON.parse(server.lines.at(-1) as string) as { id: number; result: { content: unknown } };
      expect(final).toMatchObject({
        id: done,
        result: { content: [{ type: "text", text: "Provisioned 'orders' in eu-west-1." }] },
      });
      // Tampered state is refused with the one frozen error, and the log, not the wire, says why.
      const refusals = server.lines.filter((text) => text.includes("Invalid or expired requestState"));
      expect(refusals.length).toBeGreaterThan(20);
      for (const text of refusals) {
        expect(JSON.parse(text).error).toEqual({
          code: -32602,
          message: "Invalid or expired requestState",
          data: { reason: "invalid_request_state" },
        });
      }
      expect(server.stderr).not.toMatch(/TypeError|ReferenceError|RangeError|Unhandled|at .*\.ts:\d+/);
      server.end();
      expect(await server.exited).toEqual({ code: 0, signal: null });
      expect(server.partial).toBe("");
    },
    60_000,
  );
});
