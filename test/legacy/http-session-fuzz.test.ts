/**
 * Seeded fuzzing of 2025-11-25 Streamable HTTP sessions over a real socket. Hostile clients open
 * real sessions and mix valid traffic with junk: back-channel questions answered with junk results,
 * junk errors, wrong or repeated ids, or not at all (then cancelled); stray responses and
 * notifications; GET streams opened and dropped; DELETE, then more traffic on the dead session.
 *
 * Invariants: every status is one the spec uses and every body is JSON-RPC; each request gets
 * exactly one response on its own POST (none once we cancelled it); a POST's stream carries
 * nothing but the back-channel's requests and notifications and that response; a deleted session
 * answers 404; nothing rejects unhandled; and the endpoint still serves a clean session at the end.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpServerHandle, serveHttp } from "../../src/transports/http/node.js";
import { buildDualEraServer } from "../fixtures/legacy/dual-era.js";
import { type JsonVocabulary, randomJson } from "../fuzz-values.js";
import { unhandledRejections } from "../helpers.js";
import { prng } from "../prng.js";
import { ACCEPT, openSession, post, sseMessages } from "./http-helpers.js";

type Rng = ReturnType<typeof prng>;
type Message = Record<string, unknown>;

const SEEDS = [2101, 2102, 2103];
const SESSIONS_PER_SEED = 3;
const STEPS = 40;
const POST_STATUSES = new Set([200, 202, 400, 404, 406, 413, 415]);
const GET_STATUSES = new Set([200, 404, 405, 406, 409]);
const BACK_CHANNEL_METHODS = new Set(["elicitation/create", "sampling/createMessage", "roots/list"]);
const NOTIFICATIONS = new Set([
  "notifications/progress",
  "notifications/message",
  "notifications/cancelled",
  "notifications/elicitation/complete",
]);
const TOOLS: Record<string, Record<string, unknown>> = {
  provision: { name: "db" },
  provision_outcome: { name: "db" },
  summarize: { topic: "mrtr" },
  workspace: {},
  connect: {},
  era: {},
};

const unhandled = unhandledRejections();
let handle: HttpServerHandle;
let url: string;

beforeAll(async () => {
  handle = await serveHttp(buildDualEraServer(), { port: 0, keepAliveMs: 0, drainTimeoutMs: 0 });
  url = handle.url.href;
});
afterAll(async () => {
  await handle.close();
});

function vocabulary(rng: Rng): JsonVocabulary {
  return {
    text: (max) => 'aé\u0000"{'.slice(0, rng.int(max + 1)),
    words: ["accept", "decline", "cancel", "2025-11-25", "elicitation/create", "eu-west-1"],
    keys: ["action", "content", "region", "role", "model", "roots", "uri", "code", "message"],
  };
}

/** A well-formed answer to a back-channel request. */
function rightAnswer(method: string): Message {
  if (method === "elicitation/create") return { action: "accept", content: { region: "eu-west-1" } };
  if (method === "sampling/createMessage") {
    return { role: "assistant", content: { type: "text", text: "A summary." }, model: "fuzz" };
  }
  return { roots: [{ uri: "file:///srv" }] };
}

function isJsonRpc(message: unknown): message is Message {
  return typeof message === "object" && message !== null && (message as Message).jsonrpc === "2.0";
}

async function expectJsonRpcBody(response: Response, what: string): Promise<Message | undefined> {
  const text = await response.text();
  if (text === "") return undefined;
  const body = JSON.parse(text) as unknown;
  expect(isJsonRpc(body), `${what}: ${text.slice(0, 200)}`).toBe(true);
  return body as Message;
}

/** One hostile session: `steps` random actions, with the invariants checked as it goes. */
async function hostileSession(rng: Rng, label: string): Promise<{ calls: number; answered: number }> {
  const words = vocabulary(rng);
  const session = await openSession(url, { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} });
  expect(session.status, label).toBe(200);
  const headers = session.headers;
  let deleted = false;
  let nextId = 1_000;
  let calls = 0;
  let answered = 0;

  /** POSTs `body`; on a deleted session, a well-formed message must get 404 (junk may get 400 first). */
  const send = async (body: unknown, what: string, wellFormed = true) => {
    const response = await post(url, body, headers);
    expect(POST_STATUSES.has(response.status), `${what}: status ${response.status}`).toBe(true);
    if (deleted && wellFormed && response.status !== 404) {
      throw new Error(`${what}: a deleted session answered ${response.status}`);
    }
    return response;
  };

  /** A tools/call whose back-channel questions get junk before (maybe) a real answer. */
  const hostileCall = async (step: number) => {
    const id = nextId++;
    const name = rng.pick(Object.keys(TOOLS));
    const args = rng.chance(0.85) ? TOOLS[name] : randomJson(rng, words);
    const response = await send(
      { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } },
      `${label} step ${step} tools/call ${name}`,
    );
    if (response.status !== 200) {
      await expectJsonRpcBody(response, `${label} step ${step}`);
      return;
    }
    calls++;
    if (response.headers.get("content-type") !== "text/event-stream") {
      const body = await expectJsonRpcBody(response, `${label} step ${step}`);
      expect(body?.id).toBe(id);
      answered++;
      return;
    }
    let cancelled = false;
    let responses = 0;
    for await (const message of sseMessages(response)) {
      expect(isJsonRpc(message), `${label} step ${step}: ${JSON.stringify(message)}`).toBe(true);
      if (message.id === id && message.method === undefined) {
        expect("result" in message || "error" in message).toBe(true);
        responses++;
        continue;
      }
      const method = String(message.method);
      if (message.id === undefined) {
        expect(NOTIFICATIONS.has(method), `${label}: notification ${method}`).toBe(true);
        continue;
      }
      expect(BACK_CHANNEL_METHODS.has(method), `${label}: request ${method}`).toBe(true);
      await answerHostilely(message, method, id, () => {
        cancelled = true;
      });
    }
    expect(responses, `${label} step ${step}: responses to ${name}`).toBe(cancelled ? 0 : 1);
    if (!cancelled) answered++;
  };

  const answerHostilely = async (ask: Message, method: string, callId: number, onCancel: () => void) => {
    const what = `${label} answer to ${method}`;
    // Junk first, any number of times: none of it carries the question's id as a valid answer.
    for (let junk = rng.int(3); junk > 0; junk--) {
      const strayId = rng.pick([ask.id === 0 ? 1 : 0, `${String(ask.id)}x`, 987_654, -1]);
      await expectJsonRpcBody(
        await send({ jsonrpc: "2.0", id: strayId, result: randomJson(rng, words) }, what),
        what,
      );
    }
    switch (rng.int(5)) {
      case 0: // a junk result under the right id
        await send({ jsonrpc: "2.0", id: ask.id, result: randomJson(rng, words) }, what);
        break;
      case 1: // an error, well-formed or not
        await send(
          {
            jsonrpc: "2.0",
            id: ask.id,
            error: rng.chance(0.5) ? { code: -32603, message: "no" } : randomJson(rng, words),
          },
          what,
        );
        break;
      case 2: // no answer: the client cancels its own request instead
        onCancel();
        await send(
          {
            jsonrpc: "2.0",
            method: "notifications/cancelled",
            params: { requestId: callId, reason: "fuzz" },
          },
          what,
        );
        break;
      default: // the right answer, sometimes twice
        await send({ jsonrpc: "2.0", id: ask.id, result: rightAnswer(method) }, what);
        if (rng.chance(0.3)) await send({ jsonrpc: "2.0", id: ask.id, result: rightAnswer(method) }, what);
    }
  };

  for (let step = 0; step < STEPS; step++) {
    const what = `${label} step ${step}`;
    switch (rng.int(9)) {
      case 0:
      case 1:
      case 2:
        await hostileCall(step);
        break;
      case 3: {
        // A junk message: a request, a notification, a response or a batch of random shapes.
        const body = rng.pick([
          {
            jsonrpc: "2.0",
            id: nextId++,
            method: rng.pick(["tools/list", "ping", "nope", "initialize"]),
            params: randomJson(rng, words),
          },
          {
            jsonrpc: "2.0",
            method: rng.pick(["notifications/cancelled", "notifications/initialized", "x"]),
            params: randomJson(rng, words),
          },
          { jsonrpc: "2.0", id: randomJson(rng, words), result: randomJson(rng, words) },
          randomJson(rng, words),
          [randomJson(rng, words), randomJson(rng, words)],
        ]);
        await expectJsonRpcBody(await send(body, what, false), what);
        break;
      }
      case 4: {
        const id = nextId++;
        const response = await send({ jsonrpc: "2.0", id, method: rng.pick(["tools/list", "ping"]) }, what);
        const body = await expectJsonRpcBody(response, what);
        if (response.status === 200) expect(body?.id).toBe(id);
        break;
      }
      case 5: {
        // A GET stream, opened and dropped at once.
        const controller = new AbortController();
        const stream = await fetch(url, {
          method: "GET",
          headers: {
            ...headers,
            accept: rng.chance(0.8) ? "text/event-stream" : (ACCEPT.split(",")[0] ?? ""),
          },
          signal: controller.signal,
        }).catch(() => undefined);
        if (stream) expect(GET_STATUSES.has(stream.status), `${what}: GET ${stream.status}`).toBe(true);
        if (stream && deleted) expect(stream.status, `${what}: GET of a deleted session`).toBe(404);
        controller.abort();
        break;
      }
      case 6:
        if (rng.chance(0.25)) {
          const ended = await fetch(url, { method: "DELETE", headers });
          expect(ended.status, `${what}: DELETE`).toBe(deleted ? 404 : 200);
          deleted = true;
        }
        break;
      default:
        // A session header that is not this one.
        expect(
          (
            await post(
              url,
              { jsonrpc: "2.0", id: nextId++, method: "ping" },
              { ...headers, "mcp-session-id": `${session.id}x` },
            )
          ).status,
        ).toBe(404);
    }
  }
  if (!deleted) await fetch(url, { method: "DELETE", headers });
  return { calls, answered };
}

describe("2025 Streamable HTTP sessions under hostile clients", () => {
  for (const seed of SEEDS) {
    it(`seed ${seed}: ${SESSIONS_PER_SEED} sessions × ${STEPS} steps keep every invariant`, {
      timeout: 30_000,
    }, async () => {
      const rng = prng(seed);
      const outcomes = await Promise.all(
        Array.from({ length: SESSIONS_PER_SEED }, (_, index) =>
          hostileSession(prng(seed * 100 + index + rng.int(1)), `seed ${seed} session ${index}`),
        ),
      );
      // The runs did exercise the back-channel, and the endpoint still serves a clean session.
      expect(outcomes.reduce((sum, outcome) => sum + outcome.calls, 0)).toBeGreaterThan(0);
      const clean = await openSession(url);
      const response = await post(
        url,
        {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "provision", arguments: { name: "db" } },
        },
        clean.headers,
      );
      const messages = sseMessages(response);
      const ask = (await messages.next()).value as Message;
      await post(
        url,
        { jsonrpc: "2.0", id: ask.id, result: rightAnswer("elicitation/create") },
        clean.headers,
      );
      expect((await messages.next()).value).toEqual({
        jsonrpc: "2.0",
        id: 2,
        result: { content: [{ type: "text", text: "Provisioned db in eu-west-1." }] },
      });
      await fetch(url, { method: "DELETE", headers: clean.headers });
      expect(unhandled).toEqual([]);
    });
  }
});
