/**
 * Seeded fuzzing of our client on a 2025-11-25 Streamable HTTP session against a hostile server on
 * a real loopback socket: sessions that expire (404) at random, so the client must open a new one
 * and send the request again; back-channel questions on a call's stream, well-formed or junk, under
 * odd ids; a GET stream of junk that ends, never ends or is refused; and the misbehaviours of any
 * HTTP peer (truncated bodies, wrong ids, destroyed sockets, streams that never end).
 *
 * Invariants: every call settles, with a result or an Error that says what went wrong; the client
 * answers each server request at most once and only well-formed ones reach the callback; nothing
 * rejects unhandled; and the same client still serves a good call at the end.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { Client } from "../../../src/client/index.js";
import { LegacyHttpClientTransport } from "../../../src/transports/http/legacy-client.js";
import { fuzzCalls, loopbackServers } from "../../fuzz-calls.js";
import { junk as anyJunk } from "../../fuzz-values.js";
import { unhandledRejections } from "../../helpers.js";
import { prng } from "../../prng.js";

const CALLS = 60;
const BATCH = 6;
const TIMEOUT_MS = 400;
const VERSION = "2025-11-25";
const KEYS = ["content", "message", "requestedSchema", "code", "action", "mode", "type"];

type Message = { jsonrpc?: string; id?: unknown; method?: string; params?: Record<string, unknown> };

const text = (value: string) => ({ content: [{ type: "text", text: value }] });
const event = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;
const ASK = {
  message: "Which region?",
  requestedSchema: { type: "object", properties: { region: { type: "string" } } },
};

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const payload = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(payload);
}

function sse(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
}

/** The hostile 2025 server, and what it saw of the client's answers to its questions. */
function hostile(seed: number) {
  const rng = prng(seed);
  const junk = () => anyJunk(rng, KEYS);
  /** Answers the client POSTed, per server request id. */
  const answers = new Map<string, number>();
  /** Calls parked on a question: server request id → finish the call's stream. */
  const waiting = new Map<string, (answer: Message) => void>();
  const sessions = new Set<string>();
  let sessionCount = 0;
  let askCount = 0;

  const ask = (res: ServerResponse, id: unknown, odd: boolean) => {
    const askId = odd ? rng.pick([`ask-${++askCount}`, ++askCount * 1000]) : `ask-${++askCount}`;
    sse(res);
    const params = odd && rng.chance(0.5) ? junk() : ASK;
    res.write(
      event({
        jsonrpc: "2.0",
        id: askId,
        method: rng.pick(["elicitation/create", "elicitation/create", "nope/x"]),
        params,
      }),
    );
    if (rng.chance(0.2))
      res.write(event({ jsonrpc: "2.0", id: askId, method: "elicitation/create", params: ASK }));
    waiting.set(String(askId), (answer) => {
      const result =
        "result" in answer ? text(`answered ${JSON.stringify(answer.result).slice(0, 40)}`) : text("refused");
      res.end(event({ jsonrpc: "2.0", id, result }));
    });
  };

  const misbehave = (res: ServerResponse, id: unknown) => {
    switch (rng.int(14)) {
      case 0:
      case 1:
        ask(res, id, false);
        return;
      case 2:
        ask(res, id, true);
        return;
      case 3:
        json(res, 404, { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Not Found" } });
        return;
      case 4:
        json(res, 200, `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{`);
        return;
      case 5:
        json(res, 200, { jsonrpc: "2.0", id: `${String(id)}-other`, result: text("lost") });
        return;
      case 6:
        json(res, 200, { jsonrpc: "2.0", id, error: junk() });
        return;
      case 7:
        sse(res);
        res.write(": thinking\n\n");
        return; // never ends: the client's timeout must
      case 8:
        res.writeHead(200, { "content-type": "application/json", "content-length": "400" });
        res.write('{"jsonrpc":"2.0",');
        res.destroy();
        return;
      case 9:
        sse(res);
        res.end(
          `data: {nope\n\n${event({ jsonrpc: "2.0", method: "notifications/message", params: junk() })}${event({ jsonrpc: "2.0", id, result: text("fine") })}`,
        );
        return;
      case 10:
        json(res, rng.pick([400, 500, 503]), junk());
        return;
      default:
        json(res, 200, { jsonrpc: "2.0", id, result: text("fine") });
    }
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const session = req.headers["mcp-session-id"];
    if (req.method === "DELETE") {
      if (typeof session === "string") sessions.delete(session);
      res.writeHead(200).end();
      return;
    }
    if (req.method === "GET") {
      const choice = rng.int(4);
      if (choice === 0) {
        res.writeHead(405).end();
        return;
      }
      sse(res);
      res.write(event({ jsonrpc: "2.0", method: "notifications/tools/list_changed" }));
      res.write(event(junk()));
      res.write(event({ jsonrpc: "2.0", id: `get-${++askCount}`, method: "roots/list", params: junk() }));
      if (choice === 1) res.end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      let message: Message;
      try {
        message = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Message;
      } catch {
        res.writeHead(400).end();
        return;
      }
      if (message.method === "initialize") {
        const id = `s-${++sessionCount}`;
        sessions.add(id);
        json(
          res,
          200,
          {
            jsonrpc: "2.0",
            id: message.id,
            result: {
              protocolVersion: VERSION,
              capabilities: { tools: {} },
              serverInfo: { name: "Hostile", version: "0" },
            },
          },
          { "mcp-session-id": id },
        );
        return;
      }
      if (typeof session !== "string" || !sessions.has(session)) {
        json(res, 404, { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Not Found" } });
        return;
      }
      if (message.method === undefined) {
        // A response to one of our questions (or a notification).
        if (message.id !== undefined) {
          const key = String(message.id);
          answers.set(key, (answers.get(key) ?? 0) + 1);
          const finish = waiting.get(key);
          waiting.delete(key);
          finish?.(message);
        }
        res.writeHead(202).end();
        return;
      }
      if (message.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      if (message.params?.name === "final") {
        json(res, 200, { jsonrpc: "2.0", id: message.id, result: text("still here") });
        return;
      }
      // Now and then the session expires just before a call: the client must open a new one.
      if (rng.chance(0.08)) sessions.delete(session);
      if (!sessions.has(session)) {
        json(res, 404, { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Not Found" } });
        return;
      }
      misbehave(res, message.id);
    });
  });
  return { server, answers, sessions: () => sessionCount };
}

const unhandled = unhandledRejections();
const serve = loopbackServers();

describe("client fuzz on a 2025 Streamable HTTP session with a hostile server (loopback)", () => {
  it.each([4, 17, 20261201])(
    `settles ${CALLS} calls (seed %i), answers each question at most once, and keeps working`,
    async (seed) => {
      const { server, answers, sessions } = hostile(seed);
      const url = await serve(server);
      let asked = 0;
      const client = await Client.connect(new LegacyHttpClientTransport(url), {
        mode: "legacy",
        elicitation: async (_ctx, params) => {
          expect(typeof params.message).toBe("string");
          asked++;
          return { action: "accept", content: { region: "eu-west-1" } };
        },
      });
      expect(client.protocolVersion).toBe(VERSION);
      const { fine, errors: kinds } = await fuzzCalls(client, {
        calls: CALLS,
        batch: BATCH,
        timeoutMs: TIMEOUT_MS,
      });
      if (process.env.FUZZ_DEBUG) console.log({ seed, fine, kinds, asked, sessions: sessions() });
      expect(fine).toBeGreaterThan(0);
      expect(kinds.size).toBeGreaterThan(1);
      expect(asked).toBeGreaterThan(0);
      // Sessions expired along the way, and the client opened new ones.
      expect(sessions()).toBeGreaterThan(1);
      for (const [id, count] of answers) expect(count, `answers to ${id}`).toBe(1);
      const final = await client.callTool("final", {});
      expect(final.content).toEqual([{ type: "text", text: "still here" }]);
      await client.close();
      expect(unhandled).toEqual([]);
    },
    30_000,
  );
});
