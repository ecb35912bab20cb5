// resetTimeoutOnProgress: a request's timeout restarts whenever it reports progress, up to
// maxTimeoutMs in all (spec §3.5: a client MAY reset the timeout on progress, and SHOULD enforce a
// maximum). Without it, a long job that keeps reporting is cut off at timeoutMs. In memory and over
// HTTP (where progress arrives on the request's own stream), and over stdio (routed by its token).
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { RequestTimeoutError } from "../../src/shared/errors.js";
import { serveHttp } from "../../src/transports/http/node.js";
import { progressServer } from "../fixtures/progress-tool.js";
import { REPO_ROOT } from "../transports/stdio/helpers.js";

const PROGRESS_SERVER = fileURLToPath(new URL("../fixtures/stdio/progress-server.ts", import.meta.url));

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe.each([
  ["in memory", async () => progressServer()],
  [
    "over HTTP",
    async () => {
      const http = await serveHttp(progressServer(), { port: 0 });
      closers.push(() => http.close());
      return http.url.href;
    },
  ],
  [
    "over stdio (progress routed by its token)",
    async () => ({ command: process.execPath, args: ["--import", "tsx", PROGRESS_SERVER], cwd: REPO_ROOT }),
  ],
])("resetTimeoutOnProgress %s", (_label, target) => {
  async function connect() {
    const client = await Client.connect(await target());
    closers.push(() => client.close());
    return client;
  }
  const long = { steps: 12, everyMs: 40, quietMs: 0 }; // ~480 ms, reporting every 40 ms

  it("without it, a job longer than timeoutMs fails even while reporting", async () => {
    const client = await connect();
    const failure = await client
      .callTool("work", long, { timeoutMs: 250, onProgress: () => {} })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RequestTimeoutError);
    expect((failure as Error).message).toBe("Request tools/call timed out after 250 ms");
  });

  it("with it, the same job finishes, each report restarting the clock", async () => {
    const client = await connect();
    let reports = 0;
    const result = await client.callTool("work", long, {
      timeoutMs: 250,
      resetTimeoutOnProgress: true,
      onProgress: () => reports++,
    });
    expect(result.content).toEqual([{ type: "text", text: "done" }]);
    expect(reports).toBe(12);
  });

  it("a job that goes quiet still times out, and maxTimeoutMs caps one that never stops", async () => {
    const client = await connect();
    const quiet = await client
      .callTool(
        "work",
        { steps: 2, everyMs: 40, quietMs: 700 },
        {
          timeoutMs: 250,
          resetTimeoutOnProgress: true,
          onProgress: () => {},
        },
      )
      .catch((error: unknown) => error);
    expect((quiet as Error).message).toBe("Request tools/call timed out after 250 ms");

    const capped = await client
      .callTool("work", long, {
        timeoutMs: 250,
        resetTimeoutOnProgress: true,
        maxTimeoutMs: 350,
        onProgress: () => {},
      })
      .catch((error: unknown) => error);
    expect(capped).toBeInstanceOf(RequestTimeoutError);
    expect((capped as Error).message).toBe("Request tools/call timed out after 350 ms");
  });
});

describe("timeoutMs beyond a timer's range", () => {
  it("a client connected with a 30-day timeout does not fail a 40 ms call as timed out", async () => {
    const client = await Client.connect(progressServer(), { timeoutMs: 30 * 24 * 3600 * 1000 });
    closers.push(() => client.close());
    const result = await client.callTool("work", { steps: 2, everyMs: 20, quietMs: 0 });
    expect(result.content).toEqual([{ type: "text", text: "done" }]);
  });
});
