/**
 * Our wire, recorded once from a real flow and replayed without the SDK: the platform floors and
 * the client/server split that explain the HTTP rows (what `Request`/`Response` or `node:http`
 * cost with exactly our bytes, and which side of ours adds what over a bare peer).
 */
import { Agent, createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { EXPECTED_TEXT, expectEqual, firstText, LegCounter } from "./workload.js";

/** One POST of our client and our server's answer, as they were on the wire. */
export interface RecordedPost {
  /** The JSON-RPC method of the request. */
  readonly method: string;
  /** Request headers as our client set them (the transport adds Host and Content-Length). */
  readonly headers: readonly [string, string][];
  readonly body: string;
  readonly status: number;
  readonly responseHeaders: readonly [string, string][];
  readonly responseBody: string;
}

/** The POSTs of `Client.connect` and of one two-round MRTR flow after it. */
export interface RecordedFlow {
  readonly connect: readonly RecordedPost[];
  readonly flow: readonly RecordedPost[];
}

const RECORDING_URL = new URL("http://localhost/mcp");

function entriesOf(headers: Headers): [string, string][] {
  const entries: [string, string][] = [];
  headers.forEach((value, name) => {
    entries.push([name, value]);
  });
  return entries;
}

/** Runs `Client.connect` and one MRTR flow of ours through the in-process handler, recording each POST. */
export async function recordOurFlow(): Promise<RecordedFlow> {
  // Loaded here so that the echo processes, which import this module too, never load the SDK.
  const { buildOurServer, ourFlow } = await import("./ours.js");
  const { connectOursHttp, ourHandler } = await import("./ours-http.js");
  const handler = ourHandler(buildOurServer(new LegCounter()));
  const posts: RecordedPost[] = [];
  const client = await connectOursHttp(RECORDING_URL, async (url, init) => {
    const incoming = new Request(url, init);
    const body = await incoming.clone().text();
    const response = await handler(incoming);
    const responseBody = await response.text();
    posts.push({
      method: (JSON.parse(body) as { method: string }).method,
      headers: entriesOf(incoming.headers),
      body,
      status: response.status,
      responseHeaders: entriesOf(response.headers),
      responseBody,
    });
    return new Response(responseBody, { status: response.status, headers: response.headers });
  });
  const connected = posts.length;
  expectEqual("recorded flow", firstText(await ourFlow(client)), EXPECTED_TEXT);
  await client.close();
  const flow = posts.slice(connected);
  expectEqual("recorded POSTs per flow", flow.length, 2);
  return { connect: posts.slice(0, connected), flow };
}

/**
 * The floor of the in-process web path: each recorded POST as a `Request` (with an abort signal
 * when `signal`, as every client that can cancel passes one), its body read and parsed, then the
 * recorded answer as a `Response`, read and parsed. No SDK code runs.
 */
export async function webFloorFlow(
  recorded: RecordedFlow,
  counters: { legs: LegCounter; posts: { count: number } },
  signal: boolean,
): Promise<unknown> {
  let last: { result?: unknown } = {};
  for (const post of recorded.flow) {
    counters.posts.count++;
    const incoming = new Request(RECORDING_URL, {
      method: "POST",
      headers: post.headers as [string, string][],
      body: post.body,
      signal: signal ? new AbortController().signal : null,
    });
    JSON.parse(await incoming.text());
    counters.legs.count++;
    const response = new Response(post.responseBody, {
      status: post.status,
      headers: post.responseHeaders as [string, string][],
    });
    last = JSON.parse(await response.text()) as { result?: unknown };
  }
  return last.result;
}

function postJson(url: URL, agent: Agent, headers: Record<string, string>, body: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: "POST", agent, headers: { ...headers, "content-length": String(Buffer.byteLength(body)) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
          } catch (error) {
            reject(error);
          }
        });
        res.on("error", reject);
      },
    );
    // A kept-alive socket the server closed as this request went out (its idle timeout passes
    // while the other variants run): Node's documented answer is to retry on a fresh one.
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (req.reusedSocket && error.code === "ECONNRESET") {
        postJson(url, agent, headers, body).then(resolve, reject);
      } else reject(error);
    });
    req.end(body);
  });
}

/**
 * A bare `node:http` keep-alive client that plays our client's part of the flow against a real
 * server: the recorded first POST, then the recorded retry with the `requestState` just received.
 */
export function bareClient(recorded: RecordedFlow, url: URL): { flow: () => Promise<unknown>; agent: Agent } {
  const agent = new Agent({ keepAlive: true });
  const [first, retry] = recorded.flow as [RecordedPost, RecordedPost];
  const headers = Object.fromEntries(first.headers);
  const retryMessage = JSON.parse(retry.body) as { params: Record<string, unknown> };
  const flow = async () => {
    const answer = (await postJson(url, agent, headers, first.body)) as {
      result?: { requestState?: unknown };
    };
    const state = answer.result?.requestState;
    if (typeof state !== "string")
      throw new Error(`no requestState: ${JSON.stringify(answer).slice(0, 200)}`);
    const body = JSON.stringify({ ...retryMessage, params: { ...retryMessage.params, requestState: state } });
    return ((await postJson(url, agent, headers, body)) as { result?: unknown }).result;
  };
  return { flow, agent };
}

/**
 * A bare `node:http` server that plays our server's part: it parses each POST and answers the
 * recorded result for its method (the retry is the `tools/call` that carries `inputResponses`)
 * under the request's id. `onPost` counts POSTs; `legs` counts `tools/call`s.
 */
export function bareServer(recorded: RecordedFlow, legs: LegCounter): Server {
  const results = new Map<string, { result: unknown; headers: Record<string, string> }>();
  const [first, retry] = recorded.flow as [RecordedPost, RecordedPost];
  const keep = (key: string, post: RecordedPost) => {
    const headers = Object.fromEntries(post.responseHeaders.filter(([name]) => name !== "content-length"));
    results.set(key, { result: (JSON.parse(post.responseBody) as { result: unknown }).result, headers });
  };
  for (const post of recorded.connect) keep(post.method, post);
  keep("tools/call", first);
  keep("tools/call+answers", retry);
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const message = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        id?: unknown;
        method: string;
        params?: { inputResponses?: unknown };
      };
      const isRetry = message.method === "tools/call" && message.params?.inputResponses !== undefined;
      if (message.method === "tools/call") legs.count++;
      const answer = results.get(isRetry ? "tools/call+answers" : message.method);
      if (!answer) {
        res.writeHead(500).end();
        return;
      }
      const body = JSON.stringify({ jsonrpc: "2.0", id: message.id, result: answer.result });
      res.writeHead(200, { ...answer.headers, "content-length": Buffer.byteLength(body) });
      res.end(body);
    });
  });
}

/** Listens on an ephemeral loopback port; resolves the MCP endpoint URL. */
export function listenLoopback(server: Server): Promise<URL> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve(new URL(`http://127.0.0.1:${port}/mcp`));
    });
  });
}
