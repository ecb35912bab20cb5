import { describe, expect, it } from "vitest";
import { mcp as deployer } from "../../examples/resolver-chain.js";
import { mcp as provisioner } from "../../examples/resolver-region.js";
import { mcp as workspace } from "../../examples/resolver-roots.js";
import { mcp as writer } from "../../examples/resolver-sample.js";
import { mcp as shop, stock } from "../../examples/resolver-stock.js";
import { ClientSession } from "../../src/client/session.js";
import { silentLogger } from "../../src/server/logger.js";
import type { MCPServer } from "../../src/server/mcp/index.js";
import { MemoryTransport } from "../../src/transports/memory.js";
import {
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  type InputResponses,
  isInputRequiredResult,
} from "../../src/types/index.js";
import { wireTap } from "../helpers.js";

for (const server of [deployer, provisioner, workspace, writer, shop]) {
  server.server.logger.warn = silentLogger.warn;
  server.server.logger.error = silentLogger.error;
}

const FORM: ClientCapabilities = { elicitation: { form: {} } };
const stamp = (name: string) => ({ "io.modelcontextprotocol/serverInfo": { name, version: "" } });

function formRequest(message: string, properties: Record<string, unknown>) {
  return {
    method: "elicitation/create",
    params: {
      mode: "form",
      message,
      requestedSchema: { type: "object", properties, required: Object.keys(properties) },
    },
  };
}

/**
 * Drives one tool call by hand (the manual loop) through a wire tap: `answers[i]` answers round i.
 * Returns every input_required result, the final result and the tap.
 */
async function drive(
  server: MCPServer,
  capabilities: ClientCapabilities,
  tool: string,
  args: Record<string, unknown>,
  answers: InputResponses[],
) {
  const tap = wireTap();
  const session = await ClientSession.connect(new MemoryTransport(server, { onWire: tap.onWire }), {
    capabilities,
  });
  const rounds: InputRequiredResult[] = [];
  let result: CallToolResult | InputRequiredResult = await session.callTool(tool, args, {
    allowInputRequired: true,
  });
  while (isInputRequiredResult(result)) {
    rounds.push(result);
    const inputResponses = answers[rounds.length - 1];
    if (inputResponses === undefined) throw new Error(`no answers for round ${rounds.length}`);
    result = await session.callTool(tool, args, {
      allowInputRequired: true,
      inputResponses,
      requestState: result.requestState,
    });
  }
  await session.close();
  const calls = tap.sent().filter((m) => m.method === "tools/call");
  return { rounds, result, calls, tap };
}

/** The `inputRequests` of each round, as they crossed the wire. */
const requestsOf = (rounds: InputRequiredResult[]) => rounds.map((r) => r.inputRequests);

/** The wire params of each tools/call the client sent. */
const paramsOf = (calls: Record<string, unknown>[]) => calls.map((c) => c.params as Record<string, unknown>);

describe("examples/resolver-region", () => {
  const ASK = formRequest("Which region should the database live in?", {
    region: { type: "string", description: "Cloud region, e.g. eu-west-1" },
  });

  it("asks for the region once, then provisions", async () => {
    const answer: InputResponses = { ask_region: { action: "accept", content: { region: "eu-west-1" } } };
    const { rounds, result, calls } = await drive(provisioner, FORM, "provision", { name: "orders" }, [
      answer,
    ]);
    expect(requestsOf(rounds)).toEqual([{ ask_region: ASK }]);
    expect(rounds[0]?._meta).toEqual(stamp("Provisioner"));
    expect(result).toEqual({
      content: [{ type: "text", text: "Provisioned 'orders' in eu-west-1." }],
      resultType: "complete",
      _meta: stamp("Provisioner"),
    });
    // Same name and arguments on the retry, the answer under the same key, the state echoed byte-exact.
    const [first, second] = paramsOf(calls);
    expect(calls).toHaveLength(2);
    expect(first).toMatchObject({ name: "provision", arguments: { name: "orders" } });
    expect(first?.inputResponses).toBeUndefined();
    expect(second).toMatchObject({
      name: "provision",
      arguments: { name: "orders" },
      inputResponses: answer,
    });
    expect(second?.requestState).toBe(rounds[0]?.requestState);
    // Sealed: the wire never shows the plaintext resolver state.
    expect(rounds[0]?.requestState).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(rounds[0]?.requestState).not.toContain("asked");
  });

  it("hides the resolved parameter from the tool's schema", async () => {
    const session = await ClientSession.connect(new MemoryTransport(provisioner));
    const { tools } = await session.listTools();
    expect(tools).toEqual([
      {
        name: "provision",
        description: "Provision a database. Asks which region to put it in.",
        inputSchema: {
          $schema: "https://json-schema.org/draft/2020-12/schema",
          type: "object",
          properties: { name: { type: "string" } },
          required: ["name"],
        },
      },
    ]);
  });

  it("refuses a client that cannot answer a form: -32021 naming the resolver", async () => {
    const session = await ClientSession.connect(new MemoryTransport(provisioner));
    await expect(session.callTool("provision", { name: "orders" })).rejects.toMatchObject({
      code: -32021,
      message: "Client did not declare the form elicitation capability required by resolver 'ask_region'",
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    });
  });
});

describe("examples/resolver-chain", () => {
  const LOGIN = formRequest("Username?", { username: { type: "string", minLength: 1 } });
  const CONFIRM = formRequest("Deploy api as octocat?", { ok: { type: "boolean" } });
  const octocat: InputResponses = { login: { action: "accept", content: { username: "octocat" } } };

  it("asks login, then confirm (which uses the login and the argument), then deploys", async () => {
    const { rounds, result, calls } = await drive(deployer, FORM, "deploy", { service: "api" }, [
      octocat,
      { confirm: { action: "accept", content: { ok: true } } },
    ]);
    expect(requestsOf(rounds)).toEqual([{ login: LOGIN }, { confirm: CONFIRM }]);
    expect(result.content).toEqual([{ type: "text", text: "Deployed api as octocat." }]);
    expect(calls).toHaveLength(3);
    // Each round echoes the state of the round before it; each state is fresh.
    const params = paramsOf(calls);
    expect(params[1]?.requestState).toBe(rounds[0]?.requestState);
    expect(params[2]?.requestState).toBe(rounds[1]?.requestState);
    expect(rounds[0]?.requestState).not.toBe(rounds[1]?.requestState);
    // The login answer is not sent again: the server kept it in the sealed state.
    expect(params[2]?.inputResponses).toEqual({ confirm: { action: "accept", content: { ok: true } } });
  });

  it("a declined confirmation reaches the tool, which cancels", async () => {
    const { rounds, result } = await drive(deployer, FORM, "deploy", { service: "api" }, [
      octocat,
      { confirm: { action: "decline" } },
    ]);
    expect(requestsOf(rounds)).toEqual([{ login: LOGIN }, { confirm: CONFIRM }]);
    expect(result.content).toEqual([{ type: "text", text: "Deployment of api cancelled." }]);
    expect(result.isError).toBeUndefined();
  });

  it("an accepted 'no' cancels too", async () => {
    const { result } = await drive(deployer, FORM, "deploy", { service: "api" }, [
      octocat,
      { confirm: { action: "accept", content: { ok: false } } },
    ]);
    expect(result.content).toEqual([{ type: "text", text: "Deployment of api cancelled." }]);
  });

  it("a declined login fails the call: the tool asked for the plain value", async () => {
    const { rounds, result } = await drive(deployer, FORM, "deploy", { service: "api" }, [
      { login: { action: "decline" } },
    ]);
    expect(requestsOf(rounds)).toEqual([{ login: LOGIN }]);
    expect(result).toMatchObject({
      content: [{ type: "text", text: "Resolver 'login' could not resolve: elicitation was declined" }],
      isError: true,
    });
  });

  it("an empty username does not match the schema and fails the call", async () => {
    const { result } = await drive(deployer, FORM, "deploy", { service: "api" }, [
      { login: { action: "accept", content: { username: "" } } },
    ]);
    expect(result).toMatchObject({
      content: [
        { type: "text", text: "Resolver 'login' received content that does not match the requested schema" },
      ],
      isError: true,
    });
  });
});

describe("examples/resolver-stock", () => {
  const BACKORDER = formRequest("gadget is out of stock. Place a backorder?", {
    backorder: { type: "boolean" },
  });

  it("an item in stock asks nothing", async () => {
    expect(stock.widget).toBeGreaterThan(0);
    // No capabilities at all: a resolver that does not ask needs none.
    const { rounds, result, calls } = await drive(shop, {}, "order", { item: "widget" }, []);
    expect(rounds).toEqual([]);
    expect(calls).toHaveLength(1);
    expect(result.content).toEqual([{ type: "text", text: "Ordered one widget." }]);
  });

  it.each([
    [true, "Backordered one gadget."],
    [false, "No order placed for gadget."],
  ])("an item out of stock asks, and honours backorder=%s", async (backorder, text) => {
    expect(stock.gadget).toBe(0);
    const { rounds, result } = await drive(shop, FORM, "order", { item: "gadget" }, [
      { backorder: { action: "accept", content: { backorder } } },
    ]);
    expect(requestsOf(rounds)).toEqual([{ backorder: BACKORDER }]);
    expect(result.content).toEqual([{ type: "text", text }]);
  });

  it("an unknown item counts as out of stock", async () => {
    const { rounds } = await drive(shop, FORM, "order", { item: "sprocket" }, [
      { backorder: { action: "accept", content: { backorder: false } } },
    ]);
    expect(requestsOf(rounds)).toEqual([
      {
        backorder: formRequest("sprocket is out of stock. Place a backorder?", {
          backorder: { type: "boolean" },
        }),
      },
    ]);
  });
});

describe("examples/resolver-sample", () => {
  const SAMPLING: ClientCapabilities = { sampling: {} };

  it("samples the client's model and returns its text", async () => {
    const answer: InputResponses = {
      summary: {
        role: "assistant",
        content: { type: "text", text: "Cats sleep a lot." },
        model: "claude-test",
        stopReason: "endTurn",
      },
    };
    const { rounds, result } = await drive(
      writer,
      SAMPLING,
      "summarize",
      { text: "Cats sleep 16 hours a day." },
      [answer],
    );
    expect(requestsOf(rounds)).toEqual([
      {
        summary: {
          method: "sampling/createMessage",
          params: {
            maxTokens: 100,
            messages: [
              {
                role: "user",
                content: { type: "text", text: "Summarize in one sentence: Cats sleep 16 hours a day." },
              },
            ],
          },
        },
      },
    ]);
    expect(result.content).toEqual([{ type: "text", text: "Cats sleep a lot." }]);
  });

  it("a non-text completion reads as '(no text)'", async () => {
    const { result } = await drive(writer, SAMPLING, "summarize", { text: "x" }, [
      {
        summary: {
          role: "assistant",
          content: { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
          model: "m",
        },
      },
    ]);
    expect(result.content).toEqual([{ type: "text", text: "(no text)" }]);
  });

  it("a client without sampling is refused with -32021", async () => {
    const session = await ClientSession.connect(new MemoryTransport(writer), { capabilities: FORM });
    await expect(session.callTool("summarize", { text: "x" })).rejects.toMatchObject({
      code: -32021,
      message: "Client did not declare the sampling capability required by resolver 'summary'",
      data: { requiredCapabilities: { sampling: {} } },
    });
  });
});

describe("examples/resolver-roots", () => {
  it("lists the client's roots by name, falling back to the URI", async () => {
    const answer: InputResponses = {
      roots: { roots: [{ uri: "file:///home/me/app", name: "app" }, { uri: "file:///home/me/notes" }] },
    };
    const { rounds, result } = await drive(workspace, { roots: { listChanged: true } }, "workspace", {}, [
      answer,
    ]);
    expect(requestsOf(rounds)).toEqual([{ roots: { method: "roots/list", params: {} } }]);
    expect(result.content).toEqual([{ type: "text", text: "app\nfile:///home/me/notes" }]);
  });

  it("a client without roots is refused with -32021", async () => {
    const session = await ClientSession.connect(new MemoryTransport(workspace));
    await expect(session.callTool("workspace", {})).rejects.toMatchObject({
      code: -32021,
      message: "Client did not declare the roots capability required by resolver 'roots'",
      data: { requiredCapabilities: { roots: {} } },
    });
  });
});
