// Seeded garbage into a live HTTP+SSE (2024-11-05) stream: every POST answers a spec status
// (202, 400, 404 or 415), everything the stream carries is well-formed JSON-RPC, and the server
// goes on serving a well-formed request afterwards. Real loopback sockets.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcp } from "../../../examples/legacy-clients.js";
import { httpPlusSse } from "../../../src/transports/http/legacy-sse-server.js";
import { type HttpServerHandle, serveHttp } from "../../../src/transports/http/node.js";
import { SseParser } from "../../../src/transports/http/sse.js";
import { prng } from "../../prng.js";

let http: HttpServerHandle;
beforeAll(async () => {
  http = await serveHttp(mcp, { port: 0, legacy: { sse: httpPlusSse } });
});
afterAll(() => http.close());

const PRINTABLE = ' "{}[]:,0123456789abcxyz-._/\\é';
const METHODS = ["initialize", "tools/list", "tools/call", "ping", "resources/read", "nope", "", 7];

function garbage(rng: ReturnType<typeof prng>): string {
  const text = (max: number) =>
    Array.from({ length: rng.int(max) }, () => PRINTABLE.charAt(rng.int(PRINTABLE.length))).join("");
  const message: Record<string, unknown> = {
    jsonrpc: rng.pick(["2.0", "1.0", undefined]),
    id: rng.pick([1, "a", null, 1.5, undefined, {}]),
    method: rng.pick(METHODS),
    params: rng.pick([
      {},
      [],
      null,
      "x",
      { name: rng.pick(["provision", "nope", 3]), arguments: { name: text(8) } },
    ]),
  };
  if (rng.chance(0.2)) message.result = rng.pick([{}, null, "x"]);
  const json = JSON.stringify(rng.chance(0.1) ? [message] : message);
  switch (rng.int(5)) {
    case 0:
      return json.slice(0, rng.int(json.length));
    case 1:
      return text(40);
    default:
      return json;
  }
}

describe("HTTP+SSE under garbage", () => {
  it("answers every POST with a spec status and writes only JSON-RPC on the stream", async () => {
    const controller = new AbortController();
    const stream = await fetch(http.url, {
      headers: { accept: "text/event-stream" },
      signal: controller.signal,
    });
    const events: { event: string; data: string }[] = [];
    const parser = new SseParser((event) => events.push(event as never));
    const reader = stream.body?.getReader();
    const pump = (async () => {
      for (;;) {
        const chunk = await reader?.read().catch(() => undefined);
        if (!chunk || chunk.done) return;
        parser.push(chunk.value);
      }
    })();
    for (let i = 0; i < 50 && events.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    const endpoint = new URL(events[0]?.data ?? "", http.url);
    const rng = prng(20261130);
    const statuses = new Set<number>();
    for (let i = 0; i < 300; i++) {
      const response = await fetch(endpoint, {
        method: "POST",
        headers: { "content-type": rng.chance(0.05) ? "text/plain" : "application/json" },
        body: garbage(rng),
      });
      await response.arrayBuffer();
      statuses.add(response.status);
    }
    expect([...statuses].every((status) => [202, 400, 404, 415].includes(status))).toBe(true);

    // Still serving: a well-formed request gets its answer on the stream.
    const before = events.length;
    await fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: "last", method: "tools/list", params: {} }),
    });
    for (let i = 0; i < 100 && !events.slice(before).some((e) => e.data.includes('"last"')); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    for (const event of events.slice(1)) {
      const message = JSON.parse(event.data) as Record<string, unknown>;
      expect(message.jsonrpc).toBe("2.0");
      expect("result" in message || "error" in message || "method" in message).toBe(true);
    }
    expect(events.slice(before).some((e) => e.data.includes('"last"'))).toBe(true);
    controller.abort();
    await pump;
  });
});
