import { describe, expect, it } from "vitest";
import { JsonRpcConnection } from "../../src/shared/connection.js";
import type { Transport } from "../../src/shared/transport.js";
import type { JSONRPCMessage } from "../../src/types/index.js";

/** A transport that records what the connection sends and lets the test deliver messages. */
function loopback() {
  const sent: JSONRPCMessage[] = [];
  const transport: Transport = {
    start: async () => {},
    send: async (message) => {
      sent.push(message);
    },
    close: async () => {},
  };
  return { transport, sent, deliver: (message: unknown) => transport.onmessage?.(message as JSONRPCMessage) };
}

describe("JsonRpcConnection: requests from the peer", () => {
  it("answers a request delivered again while its first copy runs once; a later reuse runs again", async () => {
    const { transport, sent, deliver } = loopback();
    const connection = new JsonRpcConnection(transport);
    const releases: (() => void)[] = [];
    const runs: unknown[] = [];
    connection.onRequest = async (_method, params) => {
      runs.push(params);
      await new Promise<void>((resolve) => {
        releases.push(resolve);
      });
      return { action: "accept", content: { n: runs.length } };
    };
    await connection.start();
    const ask = { jsonrpc: "2.0", id: "srv-1", method: "elicitation/create", params: { message: "?" } };
    deliver(ask);
    deliver(ask);
    deliver({ ...ask, id: 1 });
    await new Promise((resolve) => setImmediate(resolve));
    // "srv-1" and 1 are different ids; the repeat of "srv-1" never reached the handler.
    expect(runs).toHaveLength(2);
    for (const release of releases) release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent.map((message) => (message as { id: unknown }).id).sort()).toEqual([1, "srv-1"]);
    deliver(ask);
    await new Promise((resolve) => setImmediate(resolve));
    expect(runs).toHaveLength(3);
  });

  it.each([
    ["a fractional id", 1.5],
    ["a boolean id", true],
    ["an object id", { a: 1 }],
    ["an array id", [1]],
  ])(
    "answers a request with %s as an Invalid Request (id null) and never dispatches it",
    async (_label, id) => {
      const { transport, sent, deliver } = loopback();
      const connection = new JsonRpcConnection(transport);
      const dispatched: string[] = [];
      connection.onRequest = async (method) => {
        dispatched.push(method);
        return {};
      };
      await connection.start();
      deliver({ jsonrpc: "2.0", id, method: "elicitation/create", params: { message: "?" } });
      deliver({ jsonrpc: "2.0", id: 7, method: "ping" });
      await new Promise((resolve) => setImmediate(resolve));
      expect(sent).toEqual([
        { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request" } },
        { jsonrpc: "2.0", id: 7, result: {} },
      ]);
      expect(dispatched).toEqual(["ping"]);
    },
  );
});
