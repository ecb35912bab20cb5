// A cacheable result nested deeper than JSON.stringify can walk (JSON.parse copes) is used as it
// is and not cached: copying it for the cache must not turn a good answer into a RangeError.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { Client } from "../../src/client/index.js";
import { DISCOVERED } from "./stubs.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const DEPTH = 100_000;
const DEEP = `${'{"a":'.repeat(DEPTH)}1${"}".repeat(DEPTH)}`;

/** A raw server answering each method with the JSON text `results` gives for it; counts the requests. */
async function rawServer(results: Record<string, string>) {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => {
      const { id, method } = JSON.parse(body) as { id?: number; method: string };
      if (id === undefined) return void res.writeHead(202).end();
      asked.push(method);
      const result = results[method] ?? JSON.stringify(DISCOVERED);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(`{"jsonrpc":"2.0","id":${id},"result":${result}}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, asked };
}

it("serves a list and a read nested 100,000 deep uncached, then keeps caching", async () => {
  const { url, asked } = await rawServer({
    "tools/list": `{"ttlMs":60000,"tools":[{"name":"t","inputSchema":{"type":"object","x":${DEEP}}}]}`,
    "resources/read": `{"ttlMs":60000,"contents":[{"uri":"x://a","text":"t","_meta":{"d":${DEEP}}}]}`,
    "prompts/list": `{"ttlMs":60000,"prompts":[{"name":"p"}]}`,
  });
  const client = await Client.connect(url);
  closers.push(() => client.close());
  for (let round = 0; round < 2; round++) {
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["t"]);
    expect((await client.readResource("x://a")).contents[0]?.uri).toBe("x://a");
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(["p"]);
  }
  // The deep answers were fetched each time; the shallow one was served from the cache.
  expect(asked.filter((method) => method !== "server/discover")).toEqual([
    "tools/list",
    "resources/read",
    "prompts/list",
    "tools/list",
    "resources/read",
  ]);
  expect(client.cache?.size).toBe(1);
});
