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
