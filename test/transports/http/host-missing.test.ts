// A request with no Host header at all (HTTP/1.0 allows it; no browser sends one, so it cannot be
// DNS rebinding): a loopback-only server reads it as local, and a server with an allow-list of
// hosts refuses it with 421, the same answer as for a foreign Host. Raw sockets, exact status lines.
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type HttpServerHandle, serveHttp } from "../../../src/transports/http/node.js";
import { headersFor, makeServer, rpc } from "./helpers.js";

const handles: HttpServerHandle[] = [];
afterEach(async () => {
  for (const handle of handles.splice(0)) await handle.close();
});

/** One HTTP/1.0 POST without a Host header; the whole answer as text (the server closes after it). */
function postWithoutHost(port: number): Promise<string> {
  const body = JSON.stringify(rpc("tools/list"));
  const headers = Object.entries(headersFor(rpc("tools/list")))
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      answer += chunk;
    });
    socket.once("end", () => resolve(answer));
    socket.once("error", reject);
    socket.write(`POST /mcp HTTP/1.0\r\n${headers}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });
}

describe("a request without a Host header", () => {
  it("is local to a loopback-only server, and answered", async () => {
    const handle = await serveHttp(makeServer().server, { port: 0 });
    handles.push(handle);
    const answer = await postWithoutHost(Number(handle.url.port));
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer).toContain('"tools":[');
  });

  it("gets 421 from a server with an allow-list of hosts", async () => {
    const handle = await serveHttp(makeServer().server, { port: 0, allowedHosts: ["mcp.example.com"] });
    handles.push(handle);
    const answer = await postWithoutHost(Number(handle.url.port));
    expect(answer).toMatch(/^HTTP\/1\.1 421 Misdirected Request\r\n/);
    expect(answer).toContain('"message":"Misdirected Request: Host not allowed"');
  });
});
