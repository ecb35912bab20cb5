// The README's demo: the seed's Provisioner (its region question declared as a resolver) served
// over Streamable HTTP on 127.0.0.1, and a client that answers the question and retries — every
// POST of both legs printed as it crosses the wire.
import { Client } from "roundtrip-mcp/client";
import { StreamableHttpClientTransport, serveHttp } from "roundtrip-mcp/http";
import { mcp } from "./resolver-region.js";

function shorten(text: string): string {
  // The sealed requestState is long and opaque; show its start only.
  return text.replace(/"v1\.([A-Za-z0-9_-]{12})[A-Za-z0-9_-]+"/g, '"v1.$1…"');
}

export async function runDemo(print: (line: string) => void = console.log): Promise<string> {
  const http = await serveHttp(mcp, { port: 0 });
  print(`server: ${mcp.name} on ${http.url.href}`);
  const loggingFetch = async (url: URL, init: RequestInit): Promise<Response> => {
    const headers = new Headers(init.headers);
    print(
      `\n→ POST ${url.pathname}  Mcp-Method: ${headers.get("mcp-method")}  Mcp-Name: ${headers.get("mcp-name") ?? "-"}`,
    );
    print(`  ${shorten(String(init.body))}`);
    const response = await fetch(url, init);
    const body = await response.text();
    print(`← ${response.status} ${shorten(body.trim())}`);
    return new Response(body, { status: response.status, headers: response.headers });
  };
  const client = await Client.connect(new StreamableHttpClientTransport(http.url, { fetch: loggingFetch }), {
    elicitation: async (_ctx, params) => {
      print(`\n? the server asks: ${params.message} → answering eu-west-1`);
      return { action: "accept", content: { region: "eu-west-1" } };
    },
  });
  try {
    const result = await client.callTool("provision", { name: "orders" });
    const text = result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    print(`\nprotocol: ${client.protocolVersion}\nresult: ${text}`);
    return text;
  } finally {
    await client.close();
    await http.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runDemo();
}
