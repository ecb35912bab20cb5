// --arg typed by the schemas servers actually publish: an optional or nullable argument is
// written `{"anyOf": [{"type": "integer"}, {"type": "null"}]}` by Pydantic (`Optional[int]`) and
// by other generators, not `{"type": [...]}`. The server below validates its arguments, as they do.
import { afterAll, beforeAll, describe, it } from "vitest";
import { jsonSchema, MCPServer } from "../../src/server/index.js";
import { type HttpServerHandle, serveHttp } from "../../src/transports/http/node.js";
import { runInProcess } from "./harness.js";

let http: HttpServerHandle;
let url = "";

beforeAll(async () => {
  const mcp = new MCPServer("Generated schemas", { version: "1.0.0" });
  mcp.server.logger.warn = () => {};
  const input = jsonSchema({
    type: "object",
    properties: {
      limit: { anyOf: [{ type: "integer" }, { type: "null" }], default: null },
      ratio: { oneOf: [{ type: "number" }, { type: "boolean" }] },
      color: { anyOf: [{ $ref: "#/$defs/Color" }, { type: "null" }] },
    },
    $defs: { Color: { type: "string", enum: ["red", "blue"] } },
  });
  mcp.tool("echo", { input }, (args) => JSON.stringify(args));
  http = await serveHttp(mcp, { port: 0 });
  url = String(http.url);
});

afterAll(() => http.close());

describe.concurrent("--arg against anyOf / oneOf properties", () => {
  it("types a number, a boolean and null by the branches' types", async ({ expect }) => {
    const run = await runInProcess([
      "call",
      url,
      "echo",
      "--arg",
      "limit=3",
      "--arg",
      "ratio=0.5",
      "--arg",
      "color=red",
    ]);
    expect(run).toEqual({ code: 0, stdout: '{"limit":3,"ratio":0.5,"color":"red"}\n', stderr: "" });
    const more = await runInProcess(["call", url, "echo", "--arg", "limit=null", "--arg", "ratio=true"]);
    expect(more).toEqual({ code: 0, stdout: '{"limit":null,"ratio":true}\n', stderr: "" });
  });

  it("refuses what no branch takes as a usage error (exit 2), before calling the tool", async ({
    expect,
  }) => {
    const run = await runInProcess(["call", url, "echo", "--arg", "limit=2.5"]);
    expect(run).toEqual({ code: 2, stdout: "", stderr: 'roundtrip: --arg limit: "2.5" is not an integer\n' });
  });
});
