/**
 * Seeded fuzzing of the HTTP endpoint: malformed bodies and header sets, straight into the fetch
 * handler (10 000+) and over a real socket (~300). Every answer must be a spec status and, when
 * it has a body, well-formed JSON-RPC; nothing may crash or reject unhandled.
 */
import { Agent, request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpHandler } from "../../../src/transports/http/handler.js";
import { SseParser } from "../../../src/transports/http/sse.js";
import { randomJson as anyJson } from "../../fuzz-values.js";
import { meta, unhandledRejections } from "../../helpers.js";
import { prng } from "../../prng.js";
import { makeServer, REGION_TOOL, startServer } from "./helpers.js";

const SPEC_STATUSES = new Set([200, 202, 400, 403, 404, 405, 406, 413, 415, 421]);
const SPEC_CODES = new Set([-32700, -32600, -32601, -32602, -32603, -32020, -32021, -32022]);
const MAX_BODY = 8 * 1024;

/** The shared seeded generator, plus the text shapes this fuzzer needs. */
function fuzzRng(seed: number) {
  const base = prng(seed);
  const { int, pick } = base;
  const text = (max: number, alphabet = "") => {
    let out = "";
    const length = int(max + 1);
    for (let i = 0; i < length; i++)
      out += alphabet ? alphabet.charAt(int(alphabet.length)) : String.fromCharCode(int(0xff) + 1);
    return out;
  };
  /** Header-safe bytes: visible ASCII, space, tab and Latin-1 (what HTTP/1.1 can carry at all). */
  const headerText = (max: number) =>
    text(max).replace(/[^\t\x20-\x7e\x80-\xff]/g, () => pick(["\t", "é", " ", "\u00ff", "~"]));
  return { ...base, text, headerText };
}
type Rng = ReturnType<typeof fuzzRng>;

const METHODS = [
  "tools/call",
  "tools/list",
  "prompts/get",
  "resources/read",
  "server/discover",
  "nope/x",
  "initialize",
  "",
];
const PRINTABLE = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCXYZ[\\]^_`abcxyz{|}~";

function randomJson(rng: Rng): unknown {
  return anyJson(rng, {
    text: (max) => rng.text(max, PRINTABLE),
    words: ["2026-07-28", "v999", "route", "=?base64?eA==?=", "café"],
    keys: ["name", "uri", "_meta", "arguments", "id"],
  });
}

function validBody(rng: Rng): Record<string, unknown> {
  const method = rng.pick(METHODS);
  const params: Record<string, unknown> = { _meta: meta() };
  if (method === "tools/call") {
    params.name = rng.pick(["echo", "progress", "route", "needs-sampling", "café"]);
    params.arguments = rng.chance(0.5)
      ? { region: rng.pick(["eu", "us", 7, null]), shards: rng.pick([1, "1", 2.5]) }
      : {};
    if (params.name === "progress" || rng.chance(0.3))
      params._meta = { ...meta(), progressToken: rng.pick(["t", 1]) };
  }
  if (method === "prompts/get") params.name = "p";
  if (method === "resources/read") params.uri = rng.pick(["file:///a", "x://é"]);
  return { jsonrpc: "2.0", id: rng.pick([1, "a", 0, -5]), method, params };
}

function mutateBody(rng: Rng, body: Record<string, unknown>): string {
  const roll = rng.int(12);
  const json = JSON.stringify(body);
  switch (roll) {
    case 0:
      return json.slice(0, rng.int(json.length));
    case 1: {
      const i = rng.int(json.length);
      return json.slice(0, i) + rng.text(3) + json.slice(i + 1);
    }
    case 2:
      return JSON.stringify([body, body].slice(0, rng.int(3)));
    case 3:
      return JSON.stringify(randomJson(rng));
    case 4: {
      const copy: Record<string, unknown> = { ...body };
      delete copy[rng.pick(["jsonrpc", "id", "method", "params"])];
      return JSON.stringify(copy);
    }
    case 5:
      return JSON.stringify({ ...body, [rng.pick(["jsonrpc", "id", "method", "params"])]: randomJson(rng) });
    case 6:
      return JSON.stringify({ ...body, params: { ...(body.params as object), _meta: randomJson(rng) } });
    case 7:
      return JSON.stringify({ ...body, pad: "x".repeat(rng.pick([10, MAX_BODY, 3 * MAX_BODY])) });
    case 8:
      return `${"[".repeat(rng.pick([10, 5000, 100_000]))}`.slice(0, MAX_BODY);
    case 9:
      return JSON.stringify({
        jsonrpc: "2.0",
        method: rng.pick(["notifications/cancelled", "x", ""]),
        params: randomJson(rng),
      });
    default:
      return json;
  }
}

function headerSet(rng: Rng, body: Record<string, unknown>): Record<string, string> {
  const params = (body.params ?? {}) as Record<string, unknown>;
  const headers: Record<string, string> = {
    "content-type": rng.pick([
      "application/json",
      "application/json; charset=utf-8",
      "text/plain",
      "",
      "application/*",
    ]),
    accept: rng.pick([
      "application/json, text/event-stream",
      "*/*",
      "application/json",
      "text/event-stream;q=0, */*",
      "",
    ]),
    "mcp-protocol-version": rng.pick(["2026-07-28", "2026-07-28", "v999", "2025-11-25", rng.headerText(6)]),
    "mcp-method": rng.chance(0.8) ? String(body.method) : rng.headerText(8),
    "mcp-name": rng.pick([
      String(params.name ?? params.uri ?? ""),
      `=?base64?${rng.headerText(8)}?=`,
      rng.headerText(6),
      "=?base64?Y2Fmw6k=?=",
    ]),
    "mcp-param-region": rng.pick(["eu", "us", "7", "=?base64?ZXU=?=", rng.headerText(4)]),
    "mcp-param-shards": rng.pick(["1", "01", "2.5", "x"]),
  };
  if (rng.chance(0.2))
    headers.origin = rng.pick(["http://localhost:3000", "http://evil.example", "null", rng.headerText(10)]);
  if (rng.chance(0.2))
    headers.host = rng.pick(["localhost", "127.0.0.1:1", "evil.example", "[::1]", rng.headerText(10)]);
  if (rng.chance(0.1)) headers["content-length"] = rng.pick(["0", "99999999", "abc", "-1"]);
  if (rng.chance(0.1)) headers["mcp-session-id"] = rng.headerText(8);
  for (const key of Object.keys(headers)) if (rng.chance(0.08)) delete headers[key];
  return headers;
}

let streamed = 0;

/** Checks one answer against the spec's statuses and the JSON-RPC shapes. */
async function checkAnswer(response: Response): Promise<void> {
  expect(SPEC_STATUSES.has(response.status), `status ${response.status}`).toBe(true);
  const type = response.headers.get("content-type") ?? "";
  const text = await response.text();
  if (response.status === 202 || response.status === 405) return;
  // Node's own HTTP/1.1 rejections (no Host header, unparsable request) carry no body at all.
  if (response.status === 400 && type === "" && text === "") return;
  if (type.startsWith("text/event-stream")) {
    const messages: unknown[] = [];
    const parser = new SseParser((event) => messages.push(JSON.parse(event.data)));
    parser.push(text);
    expect(messages.length).toBeGreaterThan(0);
    streamed++;
    return checkMessage(messages.at(-1), 200);
  }
  expect(type, `status ${response.status} body ${text.slice(0, 200)}`).toBe("application/json");
  checkMessage(JSON.parse(text), response.status);
}

function checkMessage(message: unknown, status: number): void {
  const record = message as Record<string, unknown>;
  expect(record.jsonrpc).toBe("2.0");
  const id = record.id;
  expect(id === null || typeof id === "string" || Number.isInteger(id), `id ${String(id)}`).toBe(true);
  if ("result" in record && status === 200) return;
  const error = record.error as { code: unknown; message: unknown };
  expect(typeof error.message).toBe("string");
  if (status !== 200) expect(SPEC_CODES.has(error.code as number), `code ${String(error.code)}`).toBe(true);
  else expect(Number.isInteger(error.code)).toBe(true);
}

const unhandled = unhandledRejections();

describe("fuzzing the fetch handler", () => {
  it("answers 10 000 malformed requests with spec statuses and JSON-RPC bodies", {
    timeout: 20_000,
  }, async () => {
    const rng = fuzzRng(0x5eed);
    const handler = createHttpHandler(makeServer().server, {
      localhostOnly: true,
      maxBodyBytes: MAX_BODY,
      keepAliveMs: 0,
      toolInputSchema: (name) => (name === "route" ? REGION_TOOL.inputSchema : undefined),
    });
    const statuses = new Map<number, number>();
    for (let batch = 0; batch < 200; batch++) {
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          const body = validBody(rng);
          const method = rng.chance(0.93)
            ? "POST"
            : rng.pick(["GET", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD"]);
          const init: RequestInit = { method, headers: headerSet(rng, body) };
          if (method !== "GET" && method !== "HEAD")
            init.body = rng.chance(0.85) ? mutateBody(rng, body) : JSON.stringify(body);
          const response = await handler(
            new Request(`http://${rng.pick(["localhost", "127.0.0.1:9"])}/mcp`, init),
          );
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          await checkAnswer(response);
        }),
      );
    }
    expect([...statuses.values()].reduce((a, b) => a + b)).toBe(10_000);
    // The generator must actually reach every rung.
    for (const status of [200, 202, 400, 403, 404, 405, 406, 413, 415, 421])
      expect(statuses.get(status) ?? 0).toBeGreaterThan(0);
    expect(streamed).toBeGreaterThan(0);
    expect(unhandled).toEqual([]);
  });
});

describe("fuzzing over a real socket", () => {
  let endpoint: Awaited<ReturnType<typeof startServer>>;
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  beforeAll(async () => {
    endpoint = await startServer({ maxBodyBytes: MAX_BODY, keepAliveMs: 5 });
  });
  afterAll(async () => {
    agent.destroy();
    await endpoint.close();
  });

  function send(rng: Rng): Promise<number> {
    const body = validBody(rng);
    const headers = headerSet(rng, body);
    delete headers["content-length"];
    const method = rng.chance(0.9) ? "POST" : rng.pick(["GET", "DELETE", "PUT", "OPTIONS"]);
    const payload = Buffer.from(rng.chance(0.8) ? mutateBody(rng, body) : JSON.stringify(body), "utf8");
    const abortEarly = rng.chance(0.05);
    return new Promise((resolve, reject) => {
      const req = httpRequest(endpoint.url, { method, headers, agent }, async (res) => {
        try {
          if (abortEarly) {
            req.destroy();
            return resolve(-1);
          }
          const chunks: Buffer[] = [];
          for await (const chunk of res) chunks.push(chunk as Buffer);
          const response = new Response(
            res.statusCode === 202 || res.statusCode === 405 || method === "HEAD"
              ? null
              : Buffer.concat(chunks),
            {
              status: res.statusCode,
              headers: { "content-type": String(res.headers["content-type"] ?? "") },
            },
          );
          await checkAnswer(response);
          resolve(res.statusCode ?? 0);
        } catch (error) {
          reject(error);
        }
      });
      req.on("error", (error) => (abortEarly ? resolve(-1) : reject(error)));
      if (method !== "GET") req.end(payload);
      else req.end();
    });
  }

  it("answers ~300 malformed requests without crashing", { timeout: 15_000 }, async () => {
    const rng = fuzzRng(0xbadc0de);
    const seen: number[] = [];
    for (let batch = 0; batch < 20; batch++) {
      seen.push(...(await Promise.all(Array.from({ length: 15 }, () => send(rng)))));
    }
    expect(seen).toHaveLength(300);
    expect(new Set(seen).size).toBeGreaterThan(6);
    expect(seen.filter((s) => s === 200).length).toBeGreaterThan(0);
    // Still serving after the storm.
    const health = await fetch(endpoint.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/list",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta() } }),
    });
    expect(health.status).toBe(200);
    expect(unhandled).toEqual([]);
  });
});
