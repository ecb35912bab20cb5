import { describe, expect, it } from "vitest";
import { fulfil, provision } from "../../examples/manual-loop.js";
import { ASK_REGION, server } from "../../examples/provisioner-lowlevel.js";
import { ClientSession } from "../../src/client/session.js";
import { MemoryTransport } from "../../src/transports/memory.js";
import { wireTap } from "../helpers.js";

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
  "io.modelcontextprotocol/clientInfo": { name: "roundtrip-client", version: "0.1.0" },
};
const SERVER_INFO = { "io.modelcontextprotocol/serverInfo": { name: "Provisioner", version: "" } };

describe("examples/provisioner-lowlevel + examples/manual-loop", () => {
  it("drives the seed's Provisioner through two legs with the exact wire JSON", async () => {
    const tap = wireTap();
    const session = await ClientSession.connect(new MemoryTransport(server, { onWire: tap.onWire }), {
      capabilities: { elicitation: { form: {} } },
    });
    const result = await provision(session, "orders");
    expect(result).toEqual({
      content: [{ type: "text", text: "Provisioned 'orders' in eu-west-1." }],
      resultType: "complete",
      _meta: SERVER_INFO,
    });
    expect(tap.messages).toEqual([
      {
        direction: "client→server",
        message: {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "provision", arguments: { name: "orders" }, _meta: ENVELOPE },
        },
      },
      {
        direction: "server→client",
        message: {
          jsonrpc: "2.0",
          id: 1,
          result: {
            resultType: "input_required",
            inputRequests: { region: ASK_REGION },
            requestState: "provision-v1",
            _meta: SERVER_INFO,
          },
        },
      },
      {
        direction: "client→server",
        message: {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: {
            name: "provision",
            arguments: { name: "orders" },
            inputResponses: { region: { action: "accept", content: { region: "eu-west-1" } } },
            requestState: "provision-v1",
            _meta: ENVELOPE,
          },
        },
      },
      {
        direction: "server→client",
        message: {
          jsonrpc: "2.0",
          id: 2,
          result: {
            content: [{ type: "text", text: "Provisioned 'orders' in eu-west-1." }],
            resultType: "complete",
            _meta: SERVER_INFO,
          },
        },
      },
    ]);
  });

  it("lists the tool with its explicit input schema", async () => {
    const session = await ClientSession.connect(new MemoryTransport(server));
    const listed = await session.listTools();
    expect(listed.tools.map((t) => t.name)).toEqual(["provision"]);
    expect(listed).toMatchObject({ ttlMs: 0, cacheScope: "private", resultType: "complete" });
  });

  it("asks again when the answer was declined (no content)", async () => {
    const session = await ClientSession.connect(new MemoryTransport(server), {
      capabilities: { elicitation: {} },
    });
    const again = await session.callTool(
      "provision",
      { name: "orders" },
      {
        allowInputRequired: true,
        inputResponses: { region: { action: "decline" } },
        requestState: "provision-v1",
      },
    );
    expect(again).toMatchObject({ resultType: "input_required", inputRequests: { region: ASK_REGION } });
  });

  it("refuses to ask a client that declared no elicitation capability (-32021)", async () => {
    const session = await ClientSession.connect(new MemoryTransport(server));
    await expect(
      session.callTool("provision", { name: "orders" }, { allowInputRequired: true }),
    ).rejects.toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    });
  });

  it("fulfil refuses a request it cannot answer", () => {
    expect(() => fulfil({ method: "roots/list", params: {} })).toThrow(
      'this client cannot answer a "roots/list" request',
    );
  });
});
