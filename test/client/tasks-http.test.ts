/**
 * A task over real loopback HTTP: the exact wire of tools/call → tasks/get → tasks/update →
 * tasks/get, and tasks/cancel — the declared extension, the Mcp-Method and Mcp-Name headers (the
 * task id for tasks/*), and the JSON bodies.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { ConnectionClosedError } from "../../src/shared/errors.js";
import { createHttpHandler } from "../../src/transports/http/handler.js";
import { type Exchange, listen, posts, recordingHandler } from "../interop/helpers.js";
import { ELICIT, text, textOf } from "./stubs.js";
import { DECLARED, TASK_ID, taskServer } from "./task-stubs.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {}, url: {} }, ...DECLARED },
  "io.modelcontextprotocol/clientInfo": { name: "roundtrip-client", version: "0.1.0" },
};

/** The standard headers of one POST, and its body. */
const wire = (exchange: Exchange | undefined) => ({
  method: exchange?.headers["mcp-method"],
  name: exchange?.headers["mcp-name"],
  version: exchange?.headers["mcp-protocol-version"],
  body: JSON.parse(exchange?.rawBody ?? "null"),
});

describe("tasks over Streamable HTTP", () => {
  it("declares the extension and mirrors the task id into Mcp-Name on every tasks/* request", async () => {
    const stub = taskServer((_poll, updates) =>
      updates.length === 0
        ? { status: "input_required", inputRequests: { q: ELICIT } }
        : { status: "completed", result: text(`thanks ${JSON.stringify(updates[0])}`) },
    );
    const recorded = recordingHandler(createHttpHandler(stub.server));
    const { url, close } = await listen(recorded.handler);
    closers.push(close);
    const client = await Client.connect(url, {
      tasks: true,
      elicitation: () => ({ action: "accept", content: { name: "ada" } }),
    });
    closers.push(() => client.close());

    const result = await client.callTool("export", { rows: 1 });
    await client.cancelTask(TASK_ID);

    const answer = { q: { action: "accept", content: { name: "ada" } } };
    expect(textOf(result)).toBe(`thanks ${JSON.stringify(answer)}`);
    const call = wire(posts(recorded.exchanges, "tools/call")[0]);
    expect(call).toMatchObject({ method: "tools/call", name: "export", version: "2026-07-28" });
    expect(call.body.params).toEqual({ name: "export", arguments: { rows: 1 }, _meta: ENVELOPE });
    expect(posts(recorded.exchanges, "tools/call")[0]?.response?.result).toMatchObject({
      resultType: "task",
      taskId: TASK_ID,
      status: "working",
    });

    const expectTaskPost = (
      exchange: Exchange | undefined,
      method: string,
      params: Record<string, unknown>,
    ) =>
      expect(wire(exchange)).toEqual({
        method,
        name: TASK_ID,
        version: "2026-07-28",
        body: { jsonrpc: "2.0", id: expect.any(Number), method, params: { ...params, _meta: ENVELOPE } },
      });
    const gets = posts(recorded.exchanges, "tasks/get");
    expect(gets).toHaveLength(2);
    for (const get of gets) expectTaskPost(get, "tasks/get", { taskId: TASK_ID });
    const updates = posts(recorded.exchanges, "tasks/update");
    expect(updates).toHaveLength(1);
    expectTaskPost(updates[0], "tasks/update", { taskId: TASK_ID, inputResponses: answer });
    expectTaskPost(posts(recorded.exchanges, "tasks/cancel")[0], "tasks/cancel", { taskId: TASK_ID });
    // The order on the wire: the task is fetched, fed, fetched again, then cancelled by hand. (The
    // stub advertises the extension, so the client also asks to follow the task; it serves no
    // listen, and polling carries on.)
    const methods = recorded.exchanges.map((e) => e.body.method);
    expect(methods.filter((m) => m !== "server/discover" && m !== "subscriptions/listen")).toEqual([
      "tools/call",
      "tasks/get",
      "tasks/update",
      "tasks/get",
      "tasks/cancel",
    ]);
    const listens = posts(recorded.exchanges, "subscriptions/listen");
    expect(listens).toHaveLength(1);
    expect(wire(listens[0]).body.params.notifications).toEqual({ taskIds: [TASK_ID] });
    expect(listens[0]?.response?.error?.code).toBe(-32601);
  });

  it("client.close() ends a call waiting out a task's poll interval at once, with ConnectionClosedError", async () => {
    const stub = taskServer([{ status: "working" }], { handle: { pollIntervalMs: 30_000 } });
    const { url, close } = await listen(createHttpHandler(stub.server));
    closers.push(close);
    const client = await Client.connect(url, { tasks: true });
    let created!: () => void;
    const handed = new Promise<void>((resolve) => {
      created = resolve;
    });
    const call = client.callTool("export", {}, { onTask: () => created() });
    await handed;
    await client.close();
    // Without the close reaching the wait, the call would last the full 30 s poll interval.
    const outcome = await Promise.race([
      call.then(
        () => "resolved",
        (error: unknown) => error,
      ),
      new Promise((resolve) => setTimeout(resolve, 1_000, "still waiting")),
    ]);
    expect(outcome).toBeInstanceOf(ConnectionClosedError);
    expect(stub.methods()).toEqual(["tools/call"]);
  });
});
