/**
 * What the client reports for each kind of answer (JSON, event streams, encodings, error statuses,
 * broken bodies, redirects) is the same through `node:http` as through fetch.
 */
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { both, call, idOf, jsonResult, type Reply, response, type Seen } from "./raw-server.js";

const sse = (seen: Seen) => {
  const events = [
    `data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } })}\r\n\r\n`,
    ": keep-alive\n\n",
    `data: ${JSON.stringify({ jsonrpc: "2.0", id: idOf(seen), result: { done: true } })}\n\n`,
  ];
  const body = events.map((e) => `${Buffer.byteLength(e).toString(16)}\r\n${e}\r\n`).join("");
  return response(
    "200 OK",
    [
      ["content-type", "text/event-stream"],
      ["transfer-encoding", "chunked"],
    ],
    `${body}0\r\n\r\n`,
  );
};

const json = (seen: Seen) => JSON.stringify({ jsonrpc: "2.0", id: idOf(seen), result: { packed: true } });

describe("answers", () => {
  const cases: [string, Reply][] = [
    ["JSON", jsonResult],
    ["an event stream", sse],
    [
      "gzip",
      (s) =>
        response(
          "200 OK",
          [
            ["content-type", "application/json"],
            ["content-encoding", "gzip"],
          ],
          gzipSync(json(s)),
        ),
    ],
    [
      "x-gzip",
      (s) =>
        response(
          "200 OK",
          [
            ["content-type", "application/json"],
            ["content-encoding", "x-gzip"],
          ],
          gzipSync(json(s)),
        ),
    ],
    [
      "deflate",
      (s) =>
        response(
          "200 OK",
          [
            ["content-type", "application/json"],
            ["content-encoding", "deflate"],
          ],
          deflateSync(json(s)),
        ),
    ],
    [
      "raw deflate",
      (s) =>
        response(
          "200 OK",
          [
            ["content-type", "application/json"],
            ["content-encoding", "deflate"],
          ],
          deflateRawSync(json(s)),
        ),
    ],
    [
      "br",
      (s) =>
        response(
          "200 OK",
          [
            ["content-type", "application/json"],
            ["content-encoding", "br"],
          ],
          brotliCompressSync(json(s)),
        ),
    ],
    [
      "gzip then br",
      (s) =>
        response(
          "200 OK",
          [
            ["content-type", "application/json"],
            ["content-encoding", "gzip, br"],
          ],
          brotliCompressSync(gzipSync(json(s))),
        ),
    ],
    [
      "an unknown encoding",
      (s) =>
        response(
          "200 OK",
          [
            ["content-type", "application/json"],
            ["content-encoding", "zz"],
          ],
          json(s),
        ),
    ],
    [
      "too many encodings",
      (s) =>
        response(
          "200 OK",
          [
            ["content-type", "application/json"],
            ["content-encoding", "br,br,br,br,br,br"],
          ],
          json(s),
        ),
    ],
    ["a BOM", (s) => response("200 OK", [["content-type", "application/json"]], `\ufeff${json(s)}`)],
    [
      "repeated Content-Types",
      (s) =>
        response(
          "200 OK",
          [
            ["content-type", "application/json"],
            ["Content-Type", "text/html"],
          ],
          json(s),
        ),
    ],
    [
      "401 with a challenge",
      () =>
        response(
          "401 Unauthorized",
          [
            ["content-type", "application/json"],
            ["www-authenticate", 'Bearer error="invalid_token"'],
          ],
          '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no"}}',
        ),
    ],
    [
      "500 in plain text",
      () => response("500 Internal Server Error", [["content-type", "text/plain"]], "boom"),
    ],
    [
      "a JSON-RPC error at 404",
      (s) =>
        response(
          "404 Not Found",
          [["content-type", "application/json"]],
          JSON.stringify({ jsonrpc: "2.0", id: idOf(s), error: { code: -32601, message: "nope" } }),
        ),
    ],
    ["malformed JSON", () => response("200 OK", [["content-type", "application/json"]], "{")],
    ["no content type", () => response("200 OK", [], "")],
    ["204", () => response("204 No Content", [["content-type", "application/json"]])],
    [
      "a body that breaks off",
      () => ({
        bytes: Buffer.from(
          'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 50\r\n\r\n{"jsonrpc"',
        ),
        close: true,
      }),
    ],
    [
      "an event stream that breaks off",
      () => ({
        bytes: Buffer.from(
          "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n6\r\n: hi\n\n\r\n",
        ),
        close: true,
      }),
    ],
    [
      "a stream that ends before the response",
      () => response("200 OK", [["content-type", "text/event-stream"]], ": hi\n\n"),
    ],
    [
      "a 307 redirect",
      (s, port) =>
        s.head.startsWith("POST /mcp ")
          ? response("307 Temporary Redirect", [["location", `http://localhost:${port}/moved`]], "gone")
          : jsonResult(s),
    ],
    [
      "a 303 redirect",
      (s) =>
        s.head.startsWith("POST /mcp ")
          ? response("303 See Other", [["location", `/other?x=1`]])
          : response(
              "405 Method Not Allowed",
              [["content-type", "application/json"]],
              '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"use POST"}}',
            ),
    ],
    ["a redirect loop", () => response("308 Permanent Redirect", [["location", "/mcp"]])],
    ["a redirect elsewhere", () => response("302 Found", [["location", "ftp://127.0.0.1/x"]])],
  ];

  it.each(cases)("%s", async (_name, reply) => {
    const [direct, viaFetch] = await both(reply, call(), { authProvider: () => "secret" });
    expect(direct).toEqual(viaFetch);
  });
});
