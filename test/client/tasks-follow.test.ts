// The client follows a task's notifications/tasks when the server has the extension: with a poll
// interval of a minute, a task still finishes (and asks its question) at once. Our server and
// client, in memory and over real loopback HTTP.
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Client } from "../../src/client/client.js";
import {
  elicitationRequest,
  inputRequired,
  inputResponse,
  MCPServer,
  silentLogger,
} from "../../src/server/index.js";
import { serverTasks } from "../../src/server/tasks/index.js";
import { serveHttp } from "../../src/transports/http/node.js";
import { MemoryTransport } from "../../src/transports/memory.js";
import { wireTap } from "../helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const ASK = elicitationRequest("Go on?", z.object({ go: z.boolean() }));

/** A task that waits 50 ms, asks, waits 50 ms, then answers; clients are told to poll once a minute. */
function slowPollServer(): MCPServer {
  const mcp = new MCPServer("follow", {
    logger: silentLogger,
    tasks: serverTasks({ immediateResultMs: 0, pollIntervalMs: 60_000 }),
  });
  mcp.tool("job", { task: "optional" }, async (_args, ctx) => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const answer = inputResponse(ctx, "go");
    if (answer.kind !== "accept") return inputRequired({ inputRequests: { go: ASK } });
    return `went: ${JSON.stringify(answer.content)}`;
  });
  return mcp;
}

const connect = async (target: MemoryTransport | URL) => {
  const client = await Client.connect(target, {
    tasks: true,
    elicitation: () => ({ action: "accept", content: { go: true } }),
  });
  closers.push(() => client.close());
  return client;
};

describe("following a task's notifications", () => {
  it("in memory: asks and finishes on the pushed changes, with a poll after each one", async () => {
    const tap = wireTap();
    const client = await connect(new MemoryTransport(slowPollServer(), { onWire: tap.onWire }));
    const seen: string[] = [];
    // Without the notifications the first poll alone would wait 60 s, past the test's timeout.
    const result = await client.callTool("job", {}, { onTask: (task) => void seen.push(task.status) });
    expect(result.content).toEqual([{ type: "text", text: 'went: {"go":true}' }]);
    expect(seen).toContain("input_required");
    expect(seen.at(-1)).toBe("completed");
    const sent = tap.sent().map((message) => message.method);
    const pushed = tap.received().filter((message) => message.method === "notifications/tasks");
    expect(sent.filter((method) => method === "subscriptions/listen")).toHaveLength(1);
    expect(pushed.length).toBeGreaterThanOrEqual(2);
    // One poll per change at most: the pushes drive the polls, not a timer.
    expect(sent.filter((method) => method === "tasks/get").length).toBeLessThanOrEqual(pushed.length + 1);
  });

  it("over HTTP: the same, through a listen stream", async () => {
    const http = await serveHttp(slowPollServer());
    closers.push(() => http.close());
    const client = await connect(http.url);
    const seen: string[] = [];
    const result = await client.callTool("job", {}, { onTask: (task) => void seen.push(task.status) });
    expect(result.content).toEqual([{ type: "text", text: 'went: {"go":true}' }]);
    expect(seen.at(-1)).toBe("completed");
  });

  it("polls once the stream is acknowledged: a change made before the stream was up is not waited out", async () => {
    const mcp = new MCPServer("follow", {
      logger: silentLogger,
      tasks: serverTasks({ immediateResultMs: 0, pollIntervalMs: 60_000 }),
    });
    let finished!: () => void;
    const done = new Promise<void>((resolve) => {
      finished = resolve;
    });
    mcp.tool("job", { task: "optional" }, async (_args, ctx) => {
      // Finishes as soon as the call became a task, and only then lets the listen stream in.
      while (ctx.task?.taskId === undefined) await new Promise((resolve) => setImmediate(resolve));
      setTimeout(finished, 10);
      return "done";
    });
    mcp.server.middleware.push(async (ctx, next) => {
      if (ctx.method === "subscriptions/listen") await done;
      return next(ctx);
    });
    const tap = wireTap();
    const client = await connect(new MemoryTransport(mcp, { onWire: tap.onWire }));
    // The task's only change preceded the stream: without a poll at the ack, this waits 60 s.
    const result = await client.callTool("job", {});
    expect(result.content).toEqual([{ type: "text", text: "done" }]);
    expect(tap.received().filter((message) => message.method === "notifications/tasks")).toEqual([]);
    expect(tap.sent().filter((message) => message.method === "tasks/get")).toHaveLength(1);
  }, 3_000);

  it("follows concurrent tasks on one stream per session, leaving the server's listen slots to others", async () => {
    const mcp = new MCPServer("follow", {
      logger: silentLogger,
      maxSubscriptions: 2,
      listChanged: true,
      tasks: serverTasks({ immediateResultMs: 0, pollIntervalMs: 60_000 }),
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    mcp.tool("job", { task: "optional" }, async () => {
      await released;
      return "done";
    });
    const tap = wireTap();
    const client = await connect(new MemoryTransport(mcp, { onWire: tap.onWire }));
    const calls = [1, 2, 3].map(() => client.callTool("job", {}));
    // Settled below; a failing assertion in between must not leave them unhandled.
    for (const call of calls) call.catch(() => {});
    const followsAll = () =>
      tap
        .received()
        .some(
          (message) =>
            message.method === "notifications/subscriptions/acknowledged" &&
            (message.params as { notifications: { taskIds?: string[] } }).notifications.taskIds?.length === 3,
        );
    while (!followsAll()) await new Promise((resolve) => setTimeout(resolve, 5));
    // One stream follows all three tasks (the ones it replaced are closed), so the second slot is
    // still free for another client.
    const other = await connect(new MemoryTransport(mcp));
    await expect(other.listen({ toolsListChanged: true }, () => {}).acknowledged).resolves.toEqual({
      toolsListChanged: true,
    });
    release();
    // Every task finishes on its pushed change, not after the 60 s poll interval.
    for (const result of await Promise.all(calls)) {
      expect(result.content).toEqual([{ type: "text", text: "done" }]);
    }
    // With no task left to follow, the stream is closed and its slot freed.
    const listenAgain = () => other.listen({ toolsListChanged: true }, () => {}).acknowledged;
    let again = await listenAgain().catch(() => undefined);
    for (let tries = 0; again === undefined && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      again = await listenAgain().catch(() => undefined);
    }
    expect(again).toEqual({ toolsListChanged: true });
  }, 3_000);
});
