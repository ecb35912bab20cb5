/**
 * A hand-written 2025-only Streamable HTTP server (plain node:http, no roundtrip server code):
 * sessions minted on `initialize`, a `tools/call` that streams an `elicitation/create` and waits
 * for the client's POSTed answer. `probe` picks how it refuses a request without a session.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export type ProbeAnswer = "400-text" | "404-html" | "jsonrpc-400";

async function readBody(req: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return text;
}

export async function startLegacyHttpStub(probe: ProbeAnswer) {
  const sessions = new Set<string>();
  const waiting = new Map<number, (result: Record<string, unknown>) => void>();
  const seen: string[] = [];
  let nextId = 500;
  const server = createServer(async (req, res) => {
    const sid = req.headers["mcp-session-id"];
    const session = typeof sid === "string" && sessions.has(sid) ? sid : undefined;
    if (req.method !== "POST") {
      seen.push(`${req.method} ${session ? "session" : "-"}`);
      if (req.method === "DELETE" && session) sessions.delete(session);
      res.writeHead(req.method === "DELETE" && session ? 200 : 405).end();
      return;
    }
    const message = JSON.parse(await readBody(req)) as Record<string, unknown>;
    seen.push(`POST ${String(message.method ?? "response")} v=${req.headers["mcp-protocol-version"] ?? "-"}`);
    if (message.method === "initialize") {
      const id = randomUUID();
      sessions.add(id);
      res.writeHead(200, { "content-type": "application/json", "mcp-session-id": id });
      const result = {
        protocolVersion: "2025-03-26",
        capabilities: { tools: {} },
        serverInfo: { name: "http-stub", version: "1" },
      };
      res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
      return;
    }
    if (!session) {
      if (probe === "400-text")
        res.writeHead(400, { "content-type": "text/plain" }).end("Bad Request: no session");
      else if (probe === "404-html")
        res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not Found</h1>");
      else {
        const error = { code: -32000, message: "Bad Request: Server not initialized" };
        res
          .writeHead(400, { "content-type": "application/json" })
          .end(JSON.stringify({ jsonrpc: "2.0", id: null, error }));
      }
      return;
    }
    if (!("method" in message)) {
      waiting.get(message.id as number)?.(message.result as Record<string, unknown>);
      res.writeHead(202).end();
      return;
    }
    if (!("id" in message)) {
      res.writeHead(202).end();
      return;
    }
    if (message.method === "tools/call") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const id = nextId++;
      const params = {
        message: "Which region?",
        requestedSchema: { type: "object", properties: { region: { type: "string" } } },
      };
      res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id, method: "elicitation/create", params })}\n\n`);
      const answer = await new Promise<Record<string, unknown>>((resolve) => waiting.set(id, resolve));
      const region = (answer.content as { region?: string } | undefined)?.region;
      const name = ((message.params as Record<string, unknown>).arguments as { name?: string }).name;
      const result = { content: [{ type: "text", text: `HTTP stub provisioned ${name} in ${region}.` }] };
      res.end(`data: ${JSON.stringify({ jsonrpc: "2.0", id: message.id, result })}\n\n`);
      return;
    }
    const error = { code: -32601, message: `Method not found: ${String(message.method)}` };
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ jsonrpc: "2.0", id: message.id, error }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    sessions,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
