import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServeHttpOptions } from "../../../src/transports/http/node.js";
import { post, REGION_TOOL, read, rpc, startServer } from "./helpers.js";

let endpoint: Awaited<ReturnType<typeof startServer>>;
let schemaLookups = 0;
beforeAll(async () => {
  endpoint = await startServer({
    toolInputSchema: (name) => {
      schemaLookups++;
      if (name === "explode") throw new Error("schema store down");
      return name === "route" ? REGION_TOOL.inputSchema : undefined;
    },
  });
});
afterAll(() => endpoint.close());

const mismatch = (id: number | string, message: string) => ({
  status: 400,
  contentType: "application/json",
  body: { jsonrpc: "2.0", id, error: { code: -32020, message } },
});
const b64 = (text: string) => `=?base64?${Buffer.from(text, "utf8").toString("base64")}?=`;

describe("MCP-Protocol-Version", () => {
  it("is required when the body carries an envelope", async () => {
    const res = await post(endpoint.url, rpc("tools/list", {}, 1), { "mcp-protocol-version": undefined });
    expect(await read(res)).toEqual(mismatch(1, "Missing required header MCP-Protocol-Version"));
  });

  it("must equal the envelope's version", async () => {
    const body = rpc("server/discover", {}, 2);
    body.params._meta["io.modelcontextprotocol/protocolVersion"] = "v999.0.0";
    expect(await read(await post(endpoint.url, body))).toEqual(
      mismatch(
        2,
        'Header MCP-Protocol-Version does not match params._meta["io.modelcontextprotocol/protocolVersion"]',
      ),
    );
    const res = await post(endpoint.url, rpc("tools/list", {}, 3), { "mcp-protocol-version": "2025-11-25" });
    expect((await read(res)).body).toMatchObject({ id: 3, error: { code: -32020 } });
  });

  it("is not looked at when the body has no envelope: the dispatcher answers -32602", async () => {
    const res = await post(
      endpoint.url,
      { jsonrpc: "2.0", id: 4, method: "tools/list", params: {} },
      { "mcp-protocol-version": undefined, "mcp-method": undefined },
    );
    expect(await read(res)).toEqual({
      status: 400,
      contentType: "application/json",
      body: {
        jsonrpc: "2.0",
        id: 4,
        error: { code: -32602, message: "Missing required params._meta envelope" },
      },
    });
  });
});

describe("Mcp-Method", () => {
  it("is required and must equal the body method (values are case-sensitive)", async () => {
    expect(
      await read(await post(endpoint.url, rpc("tools/list", {}, 5), { "mcp-method": undefined })),
    ).toEqual(mismatch(5, "Missing required header Mcp-Method"));
    for (const value of ["prompts/list", "Tools/List", "tools/list2"]) {
      expect(await read(await post(endpoint.url, rpc("tools/list", {}, 6), { "mcp-method": value }))).toEqual(
        mismatch(6, "Header Mcp-Method does not match the body method"),
      );
    }
  });

  it("is matched by a case-insensitive header name", async () => {
    const res = await post(endpoint.url, rpc("tools/list"), {
      "mcp-method": undefined,
      "MCP-METHOD": "tools/list",
    });
    expect(res.status).toBe(200);
  });

  it("comes after the JSON-RPC shape: a malformed request is -32600 whatever its headers", async () => {
    const res = await post(
      endpoint.url,
      { jsonrpc: "1.0", id: 7, method: "tools/list" },
      { "mcp-method": "x" },
    );
    expect((await read(res)).body).toMatchObject({ id: 7, error: { code: -32600 } });
  });
});

describe("Mcp-Name", () => {
  it.each([
    ["tools/call", { name: "echo" }, "params.name"],
    ["prompts/get", { name: "greet" }, "params.name"],
    ["resources/read", { uri: "file:///a.txt" }, "params.uri"],
  ])("is required on %s and must equal %s", async (method, params, field) => {
    expect(await read(await post(endpoint.url, rpc(method, params, 8), { "mcp-name": undefined }))).toEqual(
      mismatch(8, "Missing required header Mcp-Name"),
    );
    expect(await read(await post(endpoint.url, rpc(method, params, 9), { "mcp-name": "other" }))).toEqual(
      mismatch(9, `Header Mcp-Name does not match ${field}`),
    );
    expect((await post(endpoint.url, rpc(method, params))).status).toBe(200);
  });

  it("is not required on other methods", async () => {
    expect((await post(endpoint.url, rpc("tools/list"), { "mcp-name": "ignored" })).status).toBe(200);
  });

  it("is decoded from the base64 sentinel before comparing", async () => {
    const res = await post(endpoint.url, rpc("tools/call", { name: "café ☕" }, 10), {
      "mcp-name": b64("café ☕"),
    });
    expect((await read(res)).body).toMatchObject({ id: 10, result: { content: [{ text: "café ☕:{}" }] } });
    const upper = `=?BASE64?${Buffer.from(" padded ").toString("base64")}?=`;
    expect(
      (await post(endpoint.url, rpc("tools/call", { name: " padded " }), { "mcp-name": upper })).status,
    ).toBe(200);
  });

  it("must be sentinel-encoded when the plain value looks like the sentinel", async () => {
    const literal = "=?base64?ZWNobw==?=";
    const plain = await post(endpoint.url, rpc("tools/call", { name: literal }, 11), { "mcp-name": literal });
    expect(await read(plain)).toEqual(mismatch(11, "Header Mcp-Name does not match params.name"));
    const encoded = await post(endpoint.url, rpc("tools/call", { name: literal }), {
      "mcp-name": b64(literal),
    });
    expect(encoded.status).toBe(200);
  });

  it("rejects malformed base64 and non-UTF-8 payloads", async () => {
    for (const value of ["=?base64?not base64?=", "=?base64?ZWNobw?=", "=?base64?ZW* obw==?="]) {
      expect(
        await read(await post(endpoint.url, rpc("tools/call", { name: "echo" }, 12), { "mcp-name": value })),
      ).toEqual(mismatch(12, "Header Mcp-Name has a malformed base64 value"));
    }
    expect(
      await read(
        await post(endpoint.url, rpc("tools/call", { name: "echo" }, 13), { "mcp-name": "=?base64?/w==?=" }),
      ),
    ).toEqual(mismatch(13, "Header Mcp-Name has a base64 value that is not UTF-8"));
  });

  it("rejects raw non-ASCII bytes", async () => {
    const body = JSON.stringify(rpc("tools/call", { name: "café" }, 14));
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(endpoint.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": Buffer.from("café", "utf8").toString("latin1"),
        },
      });
      req.on("response", (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => {
          text += chunk.toString("utf8");
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on("error", reject);
      req.end(body);
    });
    expect([answer.status, JSON.parse(answer.body)]).toEqual([
      400,
      {
        jsonrpc: "2.0",
        id: 14,
        error: { code: -32020, message: "Header Mcp-Name contains invalid characters" },
      },
    ]);
  });

  it("has surrounding whitespace trimmed, as HTTP does", async () => {
    expect(
      (await post(endpoint.url, rpc("tools/call", { name: "echo" }), { "mcp-name": "  echo\t" })).status,
    ).toBe(200);
  });
});

describe("Mcp-Param-* (x-mcp-header)", () => {
  const call = (
    args: Record<string, unknown>,
    headers: Record<string, string | undefined>,
    id: number | string = 20,
  ) => post(endpoint.url, rpc("tools/call", { name: "route", arguments: args }, id), headers);

  it("accepts matching headers: strings as-is, integers compared numerically, booleans", async () => {
    const res = await call(
      { region: "eu-west-1", shards: 42, dryRun: false, target: { zone: "b" } },
      {
        "mcp-param-region": "eu-west-1",
        "Mcp-Param-Shards": "042",
        "mcp-param-dry-run": "false",
        "mcp-param-zone": "b",
      },
    );
    expect(res.status).toBe(200);
  });

  it("needs a header for every present, non-null argument", async () => {
    expect(await read(await call({ region: "eu" }, {}, 21))).toEqual(
      mismatch(21, "Missing required header Mcp-Param-Region"),
    );
    expect(await read(await call({ target: { zone: "b" } }, {}, 22))).toEqual(
      mismatch(22, "Missing required header Mcp-Param-Zone"),
    );
    expect((await call({ region: null, target: "not an object" }, {})).status).toBe(200);
  });

  it("rejects a header that disagrees with the body", async () => {
    const cases: [Record<string, unknown>, Record<string, string>, string][] = [
      [{ region: "eu" }, { "mcp-param-region": "us" }, "arguments.region"],
      [{ region: "eu" }, { "mcp-param-region": "EU" }, "arguments.region"],
      [{ shards: 42 }, { "mcp-param-shards": "4.2e1" }, "arguments.shards"],
      [{ shards: 42 }, { "mcp-param-shards": "+42" }, "arguments.shards"],
      [{ dryRun: true }, { "mcp-param-dry-run": "True" }, "arguments.dryRun"],
      [{}, { "mcp-param-region": "eu" }, "arguments.region"],
      [{ shards: 1.5 }, { "mcp-param-shards": "1.5" }, "arguments.shards"],
    ];
    for (const [args, headers, field] of cases) {
      const name = Object.keys(headers)[0]?.replace("mcp-param-", "") ?? "";
      const pretty = name === "dry-run" ? "Dry-Run" : name.charAt(0).toUpperCase() + name.slice(1);
      expect(await read(await call(args, headers, 23))).toEqual(
        mismatch(23, `Header Mcp-Param-${pretty} does not match ${field}`),
      );
    }
  });

  it("decodes the base64 sentinel and rejects a malformed one", async () => {
    expect((await call({ region: "eu-wést" }, { "mcp-param-region": b64("eu-wést") })).status).toBe(200);
    expect(await read(await call({ region: "eu" }, { "mcp-param-region": "=?base64?%%?=" }, 24))).toEqual(
      mismatch(24, "Header Mcp-Param-Region has a malformed base64 value"),
    );
  });

  it("works with an asynchronous schema lookup (a promise or a bare thenable): matches, mismatches and a rejection", async () => {
    const find = (name: string) => {
      if (name === "explode") throw new Error("schema store down");
      return name === "route" ? REGION_TOOL.inputSchema : undefined;
    };
    const lookups: ServeHttpOptions["toolInputSchema"][] = [
      async (name) => find(name),
      (name) =>
        ({
          // biome-ignore lint/suspicious/noThenProperty: a non-promise thenable is the point of this case.
          then: (resolve: (value: unknown) => void, reject: (error: unknown) => void) => {
            try {
              resolve(find(name));
            } catch (error) {
              reject(error);
            }
          },
        }) as unknown as Promise<object | undefined>,
    ];
    for (const toolInputSchema of lookups) await checkWithLookup(toolInputSchema);
  });

  async function checkWithLookup(toolInputSchema: ServeHttpOptions["toolInputSchema"]) {
    const asyncEndpoint = await startServer({ toolInputSchema });
    try {
      const route = (args: Record<string, unknown>, headers: Record<string, string>, id: number) =>
        post(asyncEndpoint.url, rpc("tools/call", { name: "route", arguments: args }, id), headers);
      expect((await route({ region: "eu" }, { "mcp-param-region": "eu" }, 26)).status).toBe(200);
      expect(await read(await route({ region: "eu" }, { "mcp-param-region": "us" }, 27))).toEqual(
        mismatch(27, "Header Mcp-Param-Region does not match arguments.region"),
      );
      expect(await read(await post(asyncEndpoint.url, rpc("tools/call", { name: "explode" }, 28)))).toEqual({
        status: 500,
        contentType: "application/json",
        body: { jsonrpc: "2.0", id: 28, error: { code: -32603, message: "Internal error" } },
      });
    } finally {
      await asyncEndpoint.close();
    }
  }

  it("is skipped for tools without a schema, and a failing lookup answers 500", async () => {
    const before = schemaLookups;
    expect(
      (await post(endpoint.url, rpc("tools/call", { name: "echo", arguments: { region: "x" } }))).status,
    ).toBe(200);
    expect(schemaLookups).toBe(before + 1);
    expect(await read(await post(endpoint.url, rpc("tools/call", { name: "explode" }, 25)))).toEqual({
      status: 500,
      contentType: "application/json",
      body: { jsonrpc: "2.0", id: 25, error: { code: -32603, message: "Internal error" } },
    });
  });
});
