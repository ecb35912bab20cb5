// The official SDK v1's HTTP+SSE client (SSEClientTransport, the deprecated 2024-11-05 transport;
// @modelcontextprotocol/sdk 1.32.2, a dev dependency) against examples/legacy-sse-server.ts:
// a client we did not write finds the POST URL in our endpoint event, and our resolver's question
// reaches its elicitation handler over the stream.
import { Client as OfficialClient } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { serveEveryGeneration } from "../../examples/legacy-sse-server.js";
import type { HttpServerHandle } from "../../src/transports/http/node.js";

let http: HttpServerHandle;
beforeAll(async () => {
  http = await serveEveryGeneration();
});
afterAll(() => http.close());

it("the official v1 SSE client lists, calls, and answers our resolver's elicitation", async () => {
  const client = new OfficialClient(
    { name: "official-v1", version: "1.32.2" },
    { capabilities: { elicitation: {} } },
  );
  const asked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return { action: "accept", content: { region: "eu-west-1" } };
  });
  await client.connect(new SSEClientTransport(http.url));
  try {
    expect(client.getServerVersion()).toEqual({ name: "Provisioner", version: "" });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
      "provision",
      "provision_by_hand",
    ]);
    expect(await client.callTool({ name: "provision", arguments: { name: "orders" } })).toEqual({
      content: [{ type: "text", text: "Provisioned orders in eu-west-1." }],
    });
    expect(asked).toEqual(["Which region?"]);
  } finally {
    await client.close();
  }
});
