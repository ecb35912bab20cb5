/**
 * Seeded fuzzing of our client against a hostile Streamable HTTP server on a real loopback
 * socket: random statuses and content types, truncated and oversized bodies, wrong ids, malformed
 * error objects, SSE streams of garbage, streams that never end, sockets destroyed mid-answer,
 * stray server→client requests. Every call must settle (a typed result, or an Error that says
 * what went wrong) within its timeout, nothing may reject unhandled, and the same client must
 * still serve a good call afterwards.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { Client } from "../../../src/client/index.js";
import { StreamableHttpClientTransport } from "../../../src/transports/http/client.js";
import { fuzzCalls, loopbackServers } from "../../fuzz-calls.js";
import { junk as anyJunk } from "../../fuzz-values.js";
import { unhandledRejections } from "../../helpers.js";
import { prng } from "../../prng.js";

const CALLS = 96;
const BATCH = 12;
const TIMEOUT_MS = 300;
const MAX_RESPONSE_BYTES = 64 * 1024;
const INFO = { "io.modelcontextprotocol/serverInfo": { name: "Hostile", version: "0.0.0" } };
const DISCOVERED = {
  resultType: "complete",
  supportedVersions: ["2026-07-28"],
  capabilities: { tools: {} },
  ttlMs: 0,
  cacheScope: "public",
  _meta: INFO,
};

type Rng = ReturnType<typeof prng>;

function text(value: string) {
  return { resultType: "complete", content: [{ type: "text", text: value }], _meta: INFO };
}

const KEYS = ["resultType", "content", "inputRequests", "requestState", "code", "message"];
const junk = (rng: Rng) => anyJunk(rng, KEYS);

function json(res: ServerResponse, status: number, body: unknown): void {
  const payload = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json" }).end(payload);
}

function sse(res: ServerResponse, events: string[], end = true): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const event of events) res.write(event);
  if (end) res.end();
}

const event = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

/** Answers one POST of a `tools/call` with one of the misbehaviours (or, now and then, properly). */
function misbehave(rng: Rng, res: ServerResponse, id: unknown): void {
  const ok = { jsonrpc: "2.0", id, result: text("fine") };
  switch (rng.int(18)) {
    case 0: {
      const status = rng.pick([400, 401, 403, 404, 405, 406, 415, 500, 502, 503]);
      const headers: Record<string, string> = {
        "content-type": rng.pick(["application/json", "text/plain"]),
      };
      if (status === 401)
        headers["www-authenticate"] = rng.pick(['Bearer error="invalid_token"', "Basic", "é"]);
      res.writeHead(status, headers).end(rng.chance(0.5) ? JSON.stringify(junk(rng)) : "<html>nope</html>");
      return;
    }
    case 1:
      json(res, 200, `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{`);
      return;
    case 2:
      res.writeHead(200, { "content-type": "text/html" }).end("<html>hello</html>");
      return;
    case 3:
      json(res, 200, { jsonrpc: "2.0", id: `${String(id)}-other`, result: text("lost") });
      return;
    case 4:
      json(res, 200, { jsonrpc: "2.0", id, error: junk(rng) });
      return;
    case 5:
      sse(res, [
        "data: {not json\n\n",
        `event: message\ndata: ${JSON.stringify(junk(rng))}\n\n`,
        ": ping\n\n",
      ]);
      return;
    case 6:
      sse(res, [": hello\n\n", event(ok)]);
      return;
    case 7:
      sse(res, [": still thinking\n\n"], false);
      return; // never ends: the client's timeout must
    case 8:
      json(res, 200, { ...ok, result: text("y".repeat(MAX_RESPONSE_BYTES * 2)) });
      return;
    case 9:
      res.writeHead(202).end();
      return;
    case 10:
      res.writeHead(200, { "content-type": "application/json", "content-length": "500" });
      res.write('{"jsonrpc":"2.0",');
      res.destroy();
      return;
    case 11:
      json(res, 200, [ok]);
      return;
    case 12:
      sse(res, [
        event({ jsonrpc: "2.0", id: "srv-1", method: "elicitation/create", params: junk(rng) }),
        event(ok),
      ]);
      return;
    case 13:
      json(res, 200, { ...ok, result: { ...text("odd"), resultType: "weird" } });
      return;
    case 14:
      json(res, 200, { jsonrpc: "2.0", id, result: junk(rng) });
      return;
    default:
      json(res, 200, ok);
      return;
  }
}

function hostile(seed: number): Server {
  const rng = prng(seed);
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      let message: { id?: unknown; method?: string; params?: { name?: unknown } };
      try {
        message = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        res.writeHead(400).end();
        return;
      }
      if (message.id === undefined) {
        res.writeHead(202).end();
      } else if (message.method === "server/discover") {
        json(res, 200, { jsonrpc: "2.0", id: message.id, result: DISCOVERED });
      } else if (message.params?.name === "final") {
        json(res, 200, { jsonrpc: "2.0", id: message.id, result: text("still here") });
      } else {
        misbehave(rng, res, message.id);
      }
    });
  });
}

const unhandled = unhandledRejections();
const serve = loopbackServers();

describe("client fuzz against a hostile Streamable HTTP server (loopback)", () => {
  it.each([3, 11, 20261201])(
    `settles ${CALLS} calls (seed %i) with results or clear errors, and keeps working`,
    async (seed) => {
      const server = hostile(seed);
      const url = await serve(server);
      const client = await Client.connect(
        new StreamableHttpClientTransport(url, { maxResponseBytes: MAX_RESPONSE_BYTES }),
        { elicitation: async () => ({ action: "decline" }) },
      );
      expect(client.protocolVersion).toBe("2026-07-28");
      const { fine, errors: kinds } = await fuzzCalls(client, {
        calls: CALLS,
        batch: BATCH,
        timeoutMs: TIMEOUT_MS,
      });
      expect(fine).toBeGreaterThan(0);
      expect(kinds.size).toBeGreaterThan(2);
      const final = await client.callTool("final", {});
      expect(final.content).toEqual([{ type: "text", text: "still here" }]);
      await client.close();
      expect(unhandled).toEqual([]);
    },
    30_000,
  );
});
