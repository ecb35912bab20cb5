// Spec §3.3: when the server ends a `subscriptions/listen` stream gracefully it SHOULD answer the
// listen request with `{resultType: "complete", _meta: {subscriptionId}}`, as the HTTP transport does
// at shutdown. Over stdio the server ends its streams when stdin ends or `close()` is called: each
// open stream gets that result as its last line. Checked on a real child process's raw stdout.
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { Dispatcher } from "../../../src/shared/dispatch.js";
import { serveStdio } from "../../../src/transports/stdio/server.js";
import { killSpawned, RawServer, until } from "./helpers.js";

const LISTEN_SERVER = fileURLToPath(new URL("../../fixtures/stdio/listen-server.ts", import.meta.url));
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const SERVER_INFO = { "io.modelcontextprotocol/serverInfo": { name: "Listener", version: "1.0.0" } };
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

afterEach(killSpawned);

const listen = (id: number | string, notifications: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "subscriptions/listen",
  params: { _meta: ENVELOPE, notifications },
});
/** The closing result, serialized exactly as the server writes it. */
const closingLine = (id: number | string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    result: { resultType: "complete", _meta: { [SUBSCRIPTION_ID]: id, ...SERVER_INFO } },
  });

/** Spawns the listen fixture and opens two streams (one cancelled by the client before the end). */
async function twoOpenStreams(): Promise<RawServer> {
  const server = new RawServer({}, LISTEN_SERVER);
  server.write(listen("L-1", { toolsListChanged: true }));
  server.write(listen(2, { promptsListChanged: true }));
  server.write(listen(3, { toolsListChanged: true }));
  await until(() => server.lines.length >= 3, "three acknowledgements");
  // The client ended this one itself: it gets no response, now or at close.
  server.write({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3 } });
  await new Promise((resolve) => setTimeout(resolve, 100));
  return server;
}

describe("a stdio server that closes ends its open listen streams with their result", () => {
  it("answers each open listen request when stdin ends, then exits", async () => {
    const server = await twoOpenStreams();
    server.end();
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.lines.slice(3).sort()).toEqual([closingLine("L-1"), closingLine(2)].sort());
    expect(server.partial).toBe("");
    expect(server.stderr).not.toContain("[roundtrip]");
  });

  it("answers each open listen request when close() is called, then exits", async () => {
    const server = await twoOpenStreams();
    server.child.kill("SIGTERM");
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.lines.slice(3).sort()).toEqual([closingLine("L-1"), closingLine(2)].sort());
    expect(server.partial).toBe("");
  });
});

describe("serveStdio's close()", () => {
  it("resolves closed only once the listen streams' closing results are written", async () => {
    // A dispatcher that takes a moment to answer a listen request its signal ended.
    const slow: Dispatcher = {
      dispatch: (message, ctx = {}) => {
        const { id } = message as { id: number };
        return new Promise((resolve) => {
          ctx.signal?.addEventListener("abort", () => {
            setTimeout(() => resolve({ jsonrpc: "2.0", id, result: { resultType: "complete" } }), 20);
          });
        });
      },
    };
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let written = "";
    stdout.on("data", (chunk: Buffer) => {
      written += chunk.toString("utf8");
    });
    const handle = serveStdio(slow, { stdin, stdout });
    stdin.write(`${JSON.stringify(listen(4, { toolsListChanged: true }))}\n`);
    await new Promise((resolve) => setTimeout(resolve, 10));
    handle.close();
    await handle.closed;
    expect(written).toBe('{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete"}}\n');
  });
});
