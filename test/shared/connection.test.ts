import { afterEach, describe, expect, it, vi } from "vitest";
import { JsonRpcConnection } from "../../src/shared/connection.js";
import { ConnectionClosedError, RequestTimeoutError } from "../../src/shared/errors.js";
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

  it("sends no response to a request the peer cancelled while it was being answered", async () => {
    const { transport, sent, deliver } = loopback();
    const connection = new JsonRpcConnection(transport);
    const releases: (() => void)[] = [];
    connection.onRequest = async () => {
      await new Promise<void>((resolve) => {
        releases.push(resolve);
      });
      return { action: "decline" };
    };
    await connection.start();
    deliver({ jsonrpc: "2.0", id: "srv-1", method: "elicitation/create", params: { message: "?" } });
    deliver({ jsonrpc: "2.0", id: "srv-2", method: "elicitation/create", params: { message: "?" } });
    deliver({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "srv-1" } });
    // A cancel for an id nobody is answering marks nothing: a later request with it is answered.
    deliver({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "srv-3" } });
    await new Promise((resolve) => setImmediate(resolve));
    for (const release of releases) release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual([{ jsonrpc: "2.0", id: "srv-2", result: { action: "decline" } }]);
    deliver({ jsonrpc: "2.0", id: "srv-1", method: "elicitation/create", params: { message: "?" } });
    deliver({ jsonrpc: "2.0", id: "srv-3", method: "elicitation/create", params: { message: "?" } });
    await new Promise((resolve) => setImmediate(resolve));
    for (const release of releases.slice(2)) release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent.slice(1).map((message) => (message as { id: unknown }).id)).toEqual(["srv-1", "srv-3"]);
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

/** The longest delay a timer honours; Node turns a longer one into 1 ms. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

describe("JsonRpcConnection: timeouts", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Starts a `tools/call` on a fresh connection and records how it settles. */
  async function call(options: Parameters<JsonRpcConnection["request"]>[2]) {
    const { transport } = loopback();
    const connection = new JsonRpcConnection(transport);
    await connection.start();
    const outcome: { settled?: unknown } = {};
    connection.request("tools/call", { name: "slow" }, options).then(
      () => (outcome.settled = "resolved"),
      (error: unknown) => (outcome.settled = error),
    );
    return outcome;
  }

  it("a timeoutMs beyond a timer's range waits the longest a timer can instead of failing at once", async () => {
    vi.useFakeTimers();
    const outcome = await call({ timeoutMs: 2 ** 31 });
    await vi.advanceTimersByTimeAsync(LONGEST_TIMER_MS - 1);
    expect(outcome).toEqual({});
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome.settled).toBeInstanceOf(RequestTimeoutError);
    expect((outcome.settled as Error).message).toBe(`Request tools/call timed out after ${2 ** 31} ms`);
  });

  it("so does a restarted timeout beyond a timer's range", async () => {
    vi.useFakeTimers();
    const { transport, deliver } = loopback();
    const connection = new JsonRpcConnection(transport);
    await connection.start();
    let settled: unknown;
    const params = { name: "slow", _meta: { progressToken: "p" } };
    connection
      .request("tools/call", params, {
        timeoutMs: 2 ** 31,
        resetTimeoutOnProgress: true,
        onNotification: () => {},
      })
      .catch((error: unknown) => (settled = error));
    deliver({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "p", progress: 1 },
    });
    await vi.advanceTimersByTimeAsync(LONGEST_TIMER_MS - 1);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect((settled as Error).message).toBe(`Request tools/call timed out after ${2 ** 31} ms`);
  });

  it("maxTimeoutMs below timeoutMs caps a request that never reports progress", async () => {
    vi.useFakeTimers();
    const outcome = await call({ timeoutMs: 300, maxTimeoutMs: 20, resetTimeoutOnProgress: true });
    await vi.advanceTimersByTimeAsync(19);
    expect(outcome).toEqual({});
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome.settled).toBeInstanceOf(RequestTimeoutError);
    expect((outcome.settled as Error).message).toBe("Request tools/call timed out after 20 ms");
  });
});

describe("JsonRpcConnection: close", () => {
  it("settles pending calls and rethrows when the transport fails to close", async () => {
    const transport: Transport = {
      start: async () => {},
      send: async () => {},
      close: async () => {
        throw new Error("EPIPE");
      },
    };
    const connection = new JsonRpcConnection(transport);
    await connection.start();
    let failure: unknown;
    connection.request("tools/call", { name: "x" }).catch((error: unknown) => {
      failure = error;
    });
    await expect(connection.close()).rejects.toThrow("EPIPE");
    await new Promise((resolve) => setImmediate(resolve));
    expect(failure).toBeInstanceOf(ConnectionClosedError);
    expect({ closed: connection.closed, message: (failure as Error).message }).toEqual({
      closed: true,
      message: "Connection closed",
    });
  });
});

describe("JsonRpcConnection: routing notifications", () => {
  it("a subscriptionId that names a pending call other than a listen does not reach that call", async () => {
    const { transport, sent, deliver } = loopback();
    const connection = new JsonRpcConnection(transport);
    const heardByConnection: unknown[] = [];
    connection.onNotification = (notification) => heardByConnection.push(notification);
    await connection.start();
    const heardByCall: unknown[] = [];
    const call = connection.request(
      "tools/call",
      { name: "slow" },
      { onNotification: (n) => heardByCall.push(n) },
    );
    const id = (sent[0] as { id: string | number }).id;
    const forged = {
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { uri: "file:///x", _meta: { "io.modelcontextprotocol/subscriptionId": id } },
    };
    deliver(forged);
    expect(heardByCall).toEqual([]);
    expect(heardByConnection).toEqual([forged]);
    deliver({ jsonrpc: "2.0", id, result: { content: [] } });
    await call;
  });

  it("a subscriptionId that names a pending listen reaches that listen", async () => {
    const { transport, sent, deliver } = loopback();
    const connection = new JsonRpcConnection(transport);
    const heardByConnection: unknown[] = [];
    connection.onNotification = (notification) => heardByConnection.push(notification);
    await connection.start();
    const heardByListen: unknown[] = [];
    const listen = connection.request(
      "subscriptions/listen",
      { notifications: { toolsListChanged: true } },
      { onNotification: (n) => heardByListen.push(n), endsOnPeerCancel: true },
    );
    const id = (sent[0] as { id: string | number }).id;
    const change = {
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: { _meta: { "io.modelcontextprotocol/subscriptionId": id } },
    };
    deliver(change);
    expect(heardByListen).toEqual([change]);
    expect(heardByConnection).toEqual([]);
    deliver({ jsonrpc: "2.0", id, result: { _meta: { "io.modelcontextprotocol/subscriptionId": id } } });
    await listen;
  });
});
