// An acknowledgement's task ids are the server's to choose: a list of a million must not be
// scanned again for every task notification, since only the ids the client asked for can match.
import { expect, it } from "vitest";
import { openSubscription } from "../../src/client/listen.js";
import type { ClientSession } from "../../src/client/session.js";
import type { JSONRPCNotification } from "../../src/types/index.js";

it("reads a huge acknowledged taskIds list a bounded number of times, however many notifications follow", async () => {
  const ids = Array.from({ length: 10_000 }, (_, i) => `t-${i}`);
  let reads = 0;
  // Counts every element read, as a scan over the list would make them.
  const taskIds = new Proxy(ids, {
    get(target, key, receiver) {
      if (typeof key === "string" && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  const notify = (method: string, params: Record<string, unknown>) => ({ jsonrpc: "2.0", method, params });
  const session = {
    request: async (
      _method: string,
      _params: unknown,
      options: { onNotification: (notification: JSONRPCNotification) => unknown },
    ) => {
      options.onNotification(
        notify("notifications/subscriptions/acknowledged", {
          notifications: { taskIds },
        }) as JSONRPCNotification,
      );
      for (let n = 0; n < 100; n++) {
        options.onNotification(notify("notifications/tasks", { taskId: "t-9999" }) as JSONRPCNotification);
      }
      return {};
    },
  } as unknown as ClientSession;
  const seen: unknown[] = [];
  const sub = openSubscription(session, { taskIds: ["t-9999"] }, (notification) => seen.push(notification));
  expect(await sub.acknowledged).toEqual({ taskIds: ids });
  await sub.closed;
  expect(seen).toHaveLength(100);
  // Validating the acknowledgement and narrowing it read the list a few times; 100 scans would be 1,000,000.
  expect(reads).toBeLessThan(5 * ids.length);
});
