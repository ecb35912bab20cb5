/** The calls the client fuzz tests make against their hostile servers, and what each must come to. */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect } from "vitest";
import type { Client } from "../src/client/index.js";

/** What a batch of fuzzed calls came to: successes, and failures by error class. */
export interface CallOutcomes {
  fine: number;
  readonly errors: Map<string, number>;
}

/**
 * Makes `calls` `tools/call`s in concurrent batches of `batch`, each with its own `timeoutMs`, so
 * that answers meant for one call could settle another. Every call must settle with a result whose
 * `content` is an array, or with an Error that has a message.
 *
 * @example
 * const { fine, errors } = await fuzzCalls(client, { calls: 96, batch: 12, timeoutMs: 300 });
 */
export async function fuzzCalls(
  client: Client,
  options: { calls: number; batch: number; timeoutMs: number },
): Promise<CallOutcomes> {
  const outcomes: CallOutcomes = { fine: 0, errors: new Map() };
  const { calls, batch, timeoutMs } = options;
  for (let start = 0; start < calls; start += batch) {
    const settled = await Promise.allSettled(
      Array.from({ length: batch }, (_, i) => client.callTool("any", { n: start + i }, { timeoutMs })),
    );
    for (const outcome of settled) {
      if (outcome.status === "fulfilled") {
        expect(Array.isArray((outcome.value as { content?: unknown }).content)).toBe(true);
        outcomes.fine++;
        continue;
      }
      const error = outcome.reason as Error;
      expect(error).toBeInstanceOf(Error);
      expect(error.message.length, `${error.constructor.name} ${JSON.stringify(error)}`).toBeGreaterThan(0);
      const kind = error.constructor.name;
      outcomes.errors.set(kind, (outcomes.errors.get(kind) ?? 0) + 1);
      if (process.env.FUZZ_DEBUG) console.log(kind, error.message.slice(0, 160));
    }
  }
  return outcomes;
}

/**
 * Serves a test file's hostile `node:http` servers on 127.0.0.1, each closed after its test.
 * Returns the function that starts one and gives its `/mcp` URL.
 *
 * @example
 * const serve = loopbackServers();
 * const url = await serve(hostile(seed));
 */
export function loopbackServers(): (server: Server) => Promise<URL> {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
  return async (server) => {
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  };
}
