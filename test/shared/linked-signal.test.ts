/**
 * linkSignals: one signal that aborts with the first of its sources, unlinked on dispose. And what
 * it is for: a client's flows with their own signal no longer pile up on the connection's signal
 * (with `AbortSignal.any` on Node 20, every flow's signal stayed reachable from it).
 */
import { getEventListeners } from "node:events";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { linkSignals } from "../../src/shared/linked-signal.js";
import { MemoryTransport } from "../../src/transports/memory.js";
import { askingServer, ELICIT } from "../client/stubs.js";

const listeners = (signal: AbortSignal) => getEventListeners(signal, "abort").length;

describe("linkSignals", () => {
  it("aborts with the reason of the first source to abort, and then leaves every source alone", () => {
    const [a, b] = [new AbortController(), new AbortController()];
    const link = linkSignals(a.signal, undefined, b.signal);
    expect([link.signal.aborted, listeners(a.signal), listeners(b.signal)]).toEqual([false, 1, 1]);
    const reason = new Error("b first");
    b.abort(reason);
    a.abort(new Error("a later"));
    expect([link.signal.aborted, link.signal.reason]).toEqual([true, reason]);
    expect([listeners(a.signal), listeners(b.signal)]).toEqual([0, 0]);
  });

  it("is aborted at once when a source already is, and listens to none", () => {
    const a = new AbortController();
    const b = new AbortController();
    a.abort("gone");
    const link = linkSignals(b.signal, a.signal);
    expect([link.signal.aborted, link.signal.reason, listeners(b.signal)]).toEqual([true, "gone", 0]);
  });

  it("dispose unlinks it from its sources: a later abort no longer reaches it", () => {
    const [a, b] = [new AbortController(), new AbortController()];
    const link = linkSignals(a.signal, b.signal);
    link.dispose();
    link.dispose();
    a.abort();
    expect([listeners(a.signal), listeners(b.signal), link.signal.aborted]).toEqual([0, 0, false]);
  });

  it("a lone source is the signal itself: no controller, no listener", () => {
    const a = new AbortController();
    const link = linkSignals(undefined, a.signal);
    expect([link.signal === a.signal, listeners(a.signal)]).toEqual([true, 0]);
    link.dispose();
    expect(link.signal.aborted).toBe(false);
  });
});

describe("a long-lived client's flows with a signal", () => {
  it("leave nothing behind on the connection: 4,000 input rounds do not grow the heap", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const client = await Client.connect(new MemoryTransport(askingServer("q", ELICIT)), {
      elicitation: () => ({ action: "accept", content: { name: "ada" } }),
    });
    const closed = client.session.connection.closedSignal;
    const flows = async (n: number) => {
      for (let i = 0; i < n; i++) {
        await client.callTool("t", {}, { signal: new AbortController().signal });
      }
    };
    await flows(500);
    gc();
    const before = process.memoryUsage().heapUsed;
    await flows(4000);
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    // With AbortSignal.any([signal, closed]) each flow kept about 2 KB: 8 MB here.
    expect(grown).toBeLessThan(2_000_000);
    expect(listeners(closed)).toBe(0);
    await client.close();
  });
});
