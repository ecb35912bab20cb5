// A hostile server's text never reaches the terminal raw, whichever path it takes to stderr: the
// real binary, run as a child process against a server whose answers are rewritten on the way.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, it } from "vitest";
import { jsonSchema, MCPServer } from "../../src/server/index.js";
import { type HttpServerHandle, serveHttp } from "../../src/transports/http/node.js";
import { runCli } from "./harness.js";

/** A property name that would retitle the terminal window and clear the screen if printed raw. */
const HOSTILE = "n\u001b]0;pwned\u0007\u001b[2J";

/** CSI and OSC as single C1 characters (an xterm acts on them), and a right-to-left override. */
const C1_TEXT = "a\u009b2Jb\u009d0;pwned\u0007c\u202ed";

let upstream: HttpServerHandle;
let proxy: Server;
let url = "";

/**
 * Forwards to the real server, adding an `x-mcp-header` the client must refuse to the `number`
 * property of the listed tool: the server itself would not advertise it.
 */
function rewritingProxy(target: URL): Server {
  return createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string" && name !== "host" && name !== "content-length") headers[name] = value;
    }
    const answer = await fetch(new URL(req.url ?? "/", target), {
      method: req.method,
      headers,
      body: req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks),
    });
    const text = (await answer.text()).replace('{"type":"number"}', '{"type":"number","x-mcp-header":"N"}');
    const out: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (name !== "content-length" && name !== "content-encoding") out[name] = value;
    });
    res.writeHead(answer.status, out).end(text);
  });
}

beforeAll(async () => {
  const mcp = new MCPServer("Hostile", { version: "1.0.0" });
  mcp.server.logger.warn = () => {};
  mcp.tool(
    "shape",
    { input: jsonSchema({ type: "object", properties: { [HOSTILE]: { type: "number" } } }) },
    () => "ok",
  );
  mcp.tool("c1", { description: "C1 controls and a bidi override" }, () => C1_TEXT);
  upstream = await serveHttp(mcp, { port: 0 });
  proxy = rewritingProxy(upstream.url);
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${upstream.url.pathname}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await upstream.close();
});

describe("a hostile server", { timeout: 60_000 }, () => {
  it("cannot print escape sequences through a client warning (a dropped tool's property name)", async ({
    expect,
  }) => {
    const run = await runCli(["tools", url]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("c1\n  C1 controls and a bidi override\n");
    expect(run.stderr).toBe(
      'roundtrip: warning: Dropping tool "shape": x-mcp-header on property n\ufffd]0;pwned\ufffd\ufffd[2J needs type string, integer or boolean\n',
    );
  });

  it("cannot drive the terminal through --json: C1 controls and bidi overrides are \\u-escaped", async ({
    expect,
  }) => {
    const run = await runCli(["call", url, "c1", "--json"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('"text": "a\\u009b2Jb\\u009d0;pwned\\u0007c\\u202ed"');
    expect(JSON.parse(run.stdout).content).toEqual([{ type: "text", text: C1_TEXT }]);
  });

  it("cannot print escape sequences through a stdio server's stdout line that is not JSON", async ({
    expect,
  }) => {
    const run = await runCli(["tools", "--", "node", "-e", `console.log(${JSON.stringify(HOSTILE)})`]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(
      "roundtrip: warning: The transport reported: Ignored a line from the server that is not JSON: n\ufffd]0;pwned\ufffd\ufffd[2J\n",
    );
    expect(run.stderr).not.toContain("\u001b");
  });
});
