import { describe, expect, it } from "vitest";
import { z } from "zod";
import { acceptedContent, elicitationRequest, inputRequired } from "../../../src/server/mcp/index.js";
import { type InputRequiredResult, McpError } from "../../../src/types/index.js";
import { errorOf, resultOf } from "../../helpers.js";
import { connect, quietServer, send, stamp } from "./helpers.js";

const STAMP = stamp("res");
const ELICIT = { elicitation: { form: {} } };
const Currency = z.object({ currency: z.enum(["EUR", "USD"]) });

describe("resources/list and resources/templates/list", () => {
  it("lists static resources, then what each template's list callback enumerates", async () => {
    const mcp = quietServer("res");
    mcp.resource(
      "file:///notes.txt",
      { name: "notes", title: "Notes", description: "My notes", mimeType: "text/plain" },
      () => "n",
    );
    mcp.resource(
      "users://{id}",
      {
        name: "user",
        description: "A user",
        mimeType: "application/json",
        list: () => [
          { uri: "users://1", name: "Ada" },
          { uri: "users://2", name: "Linus" },
        ],
      },
      ({ id }) => `{"id":"${id}"}`,
    );
    mcp.resource("reports://{quarter}", { description: "No list callback" }, () => "r");
    mcp.resource("file:///readme.md", {}, () => "r");
    expect(resultOf(await send(mcp, "resources/list"))).toEqual({
      resources: [
        {
          uri: "file:///notes.txt",
          name: "notes",
          title: "Notes",
          description: "My notes",
          mimeType: "text/plain",
        },
        { uri: "file:///readme.md", name: "file:///readme.md" },
        { uri: "users://1", name: "Ada" },
        { uri: "users://2", name: "Linus" },
      ],
      resultType: "complete",
      ttlMs: 0,
      cacheScope: "private",
      _meta: STAMP,
    });
    expect(resultOf(await send(mcp, "resources/templates/list"))).toEqual({
      resourceTemplates: [
        { uriTemplate: "users://{id}", name: "user", description: "A user", mimeType: "application/json" },
        { uriTemplate: "reports://{quarter}", name: "reports://{quarter}", description: "No list callback" },
      ],
      resultType: "complete",
      ttlMs: 0,
      cacheScope: "private",
      _meta: STAMP,
    });
  });

  it("advertises resources once one is registered, and then serves all three resource methods", async () => {
    const mcp = quietServer("res");
    mcp.resource("file:///a", {}, () => "a");
    expect(resultOf(await send(mcp, "server/discover")).capabilities).toEqual({ resources: {}, logging: {} });
    // The resources capability covers templates/list: a server with no template lists none.
    expect(resultOf(await send(mcp, "resources/templates/list"))).toEqual({
      resourceTemplates: [],
      resultType: "complete",
      ttlMs: 0,
      cacheScope: "private",
      _meta: STAMP,
    });
    mcp.resource("x://{id}", {}, () => "x");
    expect(resultOf(await send(mcp, "resources/templates/list")).resourceTemplates).toHaveLength(1);
  });

  it("rejects a duplicate static resource, a duplicate template and an invalid template", () => {
    const mcp = quietServer("res");
    mcp.resource("file:///a", {}, () => "a");
    mcp.resource("x://{id}", {}, () => "x");
    expect(() => mcp.resource("file:///a", {}, () => "b")).toThrow(
      'A resource "file:///a" is already registered',
    );
    expect(() => mcp.resource("x://{id}", {}, () => "y")).toThrow(
      'A resource template "x://{id}" is already registered',
    );
    expect(() => mcp.resource("x://{a-b}", {}, () => "y")).toThrow(/Invalid URI template/);
  });
});

describe("resources/read", () => {
  it("reads a string as text contents, with the configured mimeType, and cache hints", async () => {
    const mcp = quietServer("res");
    mcp.resource("file:///notes.txt", { mimeType: "text/plain" }, () => "hello");
    expect(resultOf(await send(mcp, "resources/read", { uri: "file:///notes.txt" }))).toEqual({
      contents: [{ uri: "file:///notes.txt", text: "hello", mimeType: "text/plain" }],
      resultType: "complete",
      ttlMs: 0,
      cacheScope: "private",
      _meta: STAMP,
    });
  });

  it("reads a Uint8Array as a base64 blob", async () => {
    const mcp = quietServer("res");
    mcp.resource(
      "file:///logo.png",
      { mimeType: "image/png" },
      () => new Uint8Array([0, 1, 2, 253, 254, 255]),
    );
    expect(resultOf(await send(mcp, "resources/read", { uri: "file:///logo.png" })).contents).toEqual([
      { uri: "file:///logo.png", blob: "AAEC/f7/", mimeType: "image/png" },
    ]);
  });

  it("reads a contents object (its own mimeType wins) and a contents array as-is", async () => {
    const mcp = quietServer("res");
    mcp.resource("file:///one", { mimeType: "text/plain" }, () => ({
      uri: "file:///one",
      text: "{}",
      mimeType: "application/json",
    }));
    mcp.resource("file:///one-untyped", { mimeType: "text/plain" }, () => ({
      uri: "file:///one-untyped",
      text: "x",
    }));
    mcp.resource("file:///many", {}, () => [
      { uri: "file:///many#1", text: "a" },
      { uri: "file:///many#2", blob: "AA==" },
    ]);
    mcp.resource("file:///full", {}, () => ({ contents: [{ uri: "file:///full", text: "f" }], ttlMs: 5000 }));
    expect(resultOf(await send(mcp, "resources/read", { uri: "file:///one" })).contents).toEqual([
      { uri: "file:///one", text: "{}", mimeType: "application/json" },
    ]);
    expect(resultOf(await send(mcp, "resources/read", { uri: "file:///one-untyped" })).contents).toEqual([
      { uri: "file:///one-untyped", text: "x", mimeType: "text/plain" },
    ]);
    expect(resultOf(await send(mcp, "resources/read", { uri: "file:///many" })).contents).toEqual([
      { uri: "file:///many#1", text: "a" },
      { uri: "file:///many#2", blob: "AA==" },
    ]);
    const full = resultOf(await send(mcp, "resources/read", { uri: "file:///full" }));
    expect(full).toMatchObject({ ttlMs: 5000, cacheScope: "private" });
  });

  it("reads a template with its decoded variables and the URI, and applies the template mimeType", async () => {
    const mcp = quietServer("res");
    const seen: unknown[] = [];
    mcp.resource("users://{org}/{id}", { mimeType: "application/json" }, (variables, _ctx, uri) => {
      seen.push({ variables, uri });
      return JSON.stringify(variables);
    });
    expect(resultOf(await send(mcp, "resources/read", { uri: "users://acme%20inc/42" }))).toEqual({
      contents: [
        { uri: "users://acme%20inc/42", text: '{"org":"acme inc","id":"42"}', mimeType: "application/json" },
      ],
      resultType: "complete",
      ttlMs: 0,
      cacheScope: "private",
      _meta: STAMP,
    });
    expect(seen).toEqual([{ variables: { org: "acme inc", id: "42" }, uri: "users://acme%20inc/42" }]);
  });

  it("decodes %2F in a variable, so a handler must check a name before it reaches a path", async () => {
    const mcp = quietServer("res");
    mcp.resource("files://{name}", {}, ({ name }) => `name=${name}`);
    expect(resultOf(await send(mcp, "resources/read", { uri: "files://..%2Fsecrets" })).contents).toEqual([
      { uri: "files://..%2Fsecrets", text: "name=../secrets" },
    ]);
  });

  it("prefers a static resource over a template that also matches", async () => {
    const mcp = quietServer("res");
    mcp.resource("users://{id}", {}, ({ id }) => `template ${id}`);
    mcp.resource("users://me", {}, () => "static me");
    expect(resultOf(await send(mcp, "resources/read", { uri: "users://me" })).contents).toEqual([
      { uri: "users://me", text: "static me" },
    ]);
  });

  it("serves a URI two templates match from the one registered first, as docs/servers.md says", async () => {
    const mcp = quietServer("res");
    mcp.resource("files://{+path}", {}, ({ path }) => `path ${path}`);
    mcp.resource("files://{name}", {}, ({ name }) => `name ${name}`);
    mcp.resource("docs://{name}", {}, ({ name }) => `name ${name}`);
    mcp.resource("docs://{+path}", {}, ({ path }) => `path ${path}`);
    expect(resultOf(await send(mcp, "resources/read", { uri: "files://a" })).contents).toEqual([
      { uri: "files://a", text: "path a" },
    ]);
    expect(resultOf(await send(mcp, "resources/read", { uri: "docs://a" })).contents).toEqual([
      { uri: "docs://a", text: "name a" },
    ]);
    // Removed and registered again, a template goes last.
    mcp.removeResource("files://{+path}");
    mcp.resource("files://{+path}", {}, ({ path }) => `path ${path}`);
    expect(resultOf(await send(mcp, "resources/read", { uri: "files://a" })).contents).toEqual([
      { uri: "files://a", text: "name a" },
    ]);
  });

  it("answers an unknown URI with -32602 and data.uri", async () => {
    const mcp = quietServer("res");
    mcp.resource("users://{id}", {}, () => "x");
    expect(errorOf(await send(mcp, "resources/read", { uri: "nothing://here" }))).toEqual({
      code: -32602,
      message: "Resource not found: nothing://here",
      data: { uri: "nothing://here" },
    });
  });

  it("does not call a template's handler with an {id}-style variable left empty: -32602", async () => {
    const mcp = quietServer("res");
    const seen: unknown[] = [];
    mcp.resource("users://{id}", {}, (variables) => {
      seen.push(variables);
      return "x";
    });
    mcp.resource("repos://{owner}/{+path}", {}, (variables) => {
      seen.push(variables);
      return "x";
    });
    mcp.resource("pairs://{a,b}", {}, (variables) => {
      seen.push(variables);
      return "x";
    });
    for (const uri of ["users://", "repos:///", "repos://acme/", "pairs://1", "pairs://1,"]) {
      expect(errorOf(await send(mcp, "resources/read", { uri }))).toEqual({
        code: -32602,
        message: `Resource not found: ${uri}`,
        data: { uri },
      });
    }
    expect(seen).toEqual([]);
    // Prefixed expressions ({?q}, {/seg}) may still be absent, as RFC 6570 expands an undefined one.
    mcp.resource("search://all{?q}", {}, (variables) => JSON.stringify(variables));
    expect(resultOf(await send(mcp, "resources/read", { uri: "search://all" })).contents).toEqual([
      { uri: "search://all", text: "{}" },
    ]);
    expect(resultOf(await send(mcp, "resources/read", { uri: "pairs://1,2" })).contents).toEqual([
      { uri: "pairs://1,2", text: "x" },
    ]);
  });

  it("answers a hostile URI against adjacent template expressions at once, with -32602", async () => {
    // Matched by the old regular expression, this 20 KB URI would have held the event loop for hours.
    const mcp = quietServer("res");
    mcp.resource("x://h{/a}{/b}{/c}", {}, () => "x");
    const uri = `x://h${"/a".repeat(10_000)}#`;
    expect(errorOf(await send(mcp, "resources/read", { uri }))).toMatchObject({
      code: -32602,
      data: { uri },
    });
    expect(resultOf(await send(mcp, "resources/read", { uri: "x://h/1/2/3" })).contents).toEqual([
      { uri: "x://h/1/2/3", text: "x" },
    ]);
  });

  it("keeps an McpError from a static resource or a template (code and data)", async () => {
    const mcp = quietServer("res");
    mcp.resource("file:///locked", {}, () => {
      throw new McpError(-32021, "Needs roots", { requiredCapabilities: { roots: {} } });
    });
    mcp.resource("locked://{id}", {}, () => {
      throw new McpError(-32602, "Bad id", { uri: "locked://x" });
    });
    expect(errorOf(await send(mcp, "resources/read", { uri: "file:///locked" }))).toEqual({
      code: -32021,
      message: "Needs roots",
      data: { requiredCapabilities: { roots: {} } },
    });
    expect(errorOf(await send(mcp, "resources/read", { uri: "locked://x" }))).toEqual({
      code: -32602,
      message: "Bad id",
      data: { uri: "locked://x" },
    });
  });

  // Regression: the retired -32002 went out as -32602 with no data.uri, so clients
  // (isResourceNotFound) could no longer tell "this user does not exist" from a malformed request.
  it("names the URI read when a handler's retired -32002 becomes -32602", async () => {
    const mcp = quietServer("res");
    mcp.resource("users://{id}", {}, ({ id }) => {
      throw new McpError(-32002, `No user ${id}`);
    });
    mcp.resource("teams://{id}", {}, () => {
      throw new McpError(-32002, "No team", { hint: "list teams first" });
    });
    expect(errorOf(await send(mcp, "resources/read", { uri: "users://7" }))).toEqual({
      code: -32602,
      message: "No user 7",
      data: { uri: "users://7" },
    });
    expect(errorOf(await send(mcp, "resources/read", { uri: "teams://1" }))).toEqual({
      code: -32602,
      message: "No team",
      data: { hint: "list teams first", uri: "teams://1" },
    });
  });
});

describe("resources/read and input_required", () => {
  it("refuses an InputRequiredResult from a static resource with -32603 saying only templates participate", async () => {
    const mcp = quietServer("res");
    mcp.resource("file:///ask", {}, () => inputRequired({ requestState: "s" }));
    const error = errorOf(await send(mcp, "resources/read", { uri: "file:///ask" }));
    expect(error.code).toBe(-32603);
    expect(error.message).toBe(
      "Static resource file:///ask returned an InputRequiredResult; static resources cannot ask for input, " +
        "only resource templates participate in multi-round-trip requests",
    );
  });

  it("seals a template's input_required on the wire (no cache hints) and restores the plaintext on a faithful echo", async () => {
    const mcp = quietServer("res");
    const rounds: { state: string | undefined; responses: unknown }[] = [];
    mcp.resource("reports://{quarter}", { mimeType: "text/plain" }, async ({ quarter }, ctx) => {
      rounds.push({ state: ctx.requestState, responses: ctx.inputResponses });
      const choice = await acceptedContent(ctx, "currency", Currency);
      if (!choice) {
        return inputRequired({
          inputRequests: { currency: elicitationRequest(`Currency for ${quarter}?`, Currency) },
          requestState: `report:${quarter}`,
        });
      }
      return `Revenue ${quarter} in ${choice.currency} (state ${ctx.requestState})`;
    });

    const first = resultOf(await send(mcp, "resources/read", { uri: "reports://Q1" }, ELICIT));
    expect(first).toEqual({
      resultType: "input_required",
      inputRequests: {
        currency: {
          method: "elicitation/create",
          params: {
            mode: "form",
            message: "Currency for Q1?",
            requestedSchema: {
              type: "object",
              properties: { currency: { type: "string", enum: ["EUR", "USD"] } },
              required: ["currency"],
            },
          },
        },
      },
      requestState: expect.stringMatching(/^v1\./),
      _meta: STAMP,
    });
    expect(first.requestState).not.toContain("report:Q1");

    const second = resultOf(
      await send(
        mcp,
        "resources/read",
        {
          uri: "reports://Q1",
          inputResponses: { currency: { action: "accept", content: { currency: "EUR" } } },
          requestState: first.requestState,
        },
        ELICIT,
      ),
    );
    expect(second).toEqual({
      contents: [
        { uri: "reports://Q1", text: "Revenue Q1 in EUR (state report:Q1)", mimeType: "text/plain" },
      ],
      resultType: "complete",
      ttlMs: 0,
      cacheScope: "private",
      _meta: STAMP,
    });
    expect(rounds).toEqual([
      { state: undefined, responses: undefined },
      { state: "report:Q1", responses: { currency: { action: "accept", content: { currency: "EUR" } } } },
    ]);
  });

  it("completes a retry that carries only inputResponses (the template minted no state)", async () => {
    const mcp = quietServer("res");
    mcp.resource("reports://{quarter}", {}, async ({ quarter }, ctx) => {
      const choice = await acceptedContent(ctx, "currency", Currency);
      if (!choice) {
        return inputRequired({ inputRequests: { currency: elicitationRequest("Currency?", Currency) } });
      }
      return `${quarter}:${choice.currency}:${String(ctx.requestState)}`;
    });
    const first = resultOf(await send(mcp, "resources/read", { uri: "reports://Q2" }, ELICIT));
    expect(first.resultType).toBe("input_required");
    expect(first).not.toHaveProperty("requestState");
    const second = resultOf(
      await send(
        mcp,
        "resources/read",
        {
          uri: "reports://Q2",
          inputResponses: { currency: { action: "accept", content: { currency: "USD" } } },
        },
        ELICIT,
      ),
    );
    expect(second.contents).toEqual([{ uri: "reports://Q2", text: "Q2:USD:undefined" }]);
  });

  it("applies configured cache hints to complete reads only, never to input_required", async () => {
    const mcp = quietServer("res", {
      cacheHints: { "resources/read": { ttlMs: 60_000, cacheScope: "public" } },
    });
    mcp.resource("x://{id}", {}, ({ id }, ctx) =>
      ctx.inputResponses ? `done ${id}` : inputRequired({ requestState: "wait" }),
    );
    const asked = resultOf(await send(mcp, "resources/read", { uri: "x://1" }));
    expect(asked).not.toHaveProperty("ttlMs");
    expect(asked).not.toHaveProperty("cacheScope");
    const done = resultOf(
      await send(mcp, "resources/read", {
        uri: "x://1",
        inputResponses: { any: { action: "decline" } },
        requestState: asked.requestState,
      }),
    );
    expect(done).toMatchObject({ ttlMs: 60_000, cacheScope: "public", resultType: "complete" });
  });

  it("drives the loop end to end with ClientSession (allowInputRequired)", async () => {
    const mcp = quietServer("res");
    mcp.resource("reports://{quarter}", {}, async ({ quarter }, ctx) => {
      const choice = await acceptedContent(ctx, "currency", Currency);
      if (!choice) {
        return inputRequired({
          inputRequests: { currency: elicitationRequest("Currency?", Currency) },
          requestState: quarter,
        });
      }
      return `${ctx.requestState}:${choice.currency}`;
    });
    const session = await connect(mcp, { capabilities: ELICIT });
    const first = await session.readResource("reports://Q3", { allowInputRequired: true });
    expect(first.resultType).toBe("input_required");
    const token = (first as InputRequiredResult).requestState;
    expect(token).toMatch(/^v1\./);
    const second = await session.readResource("reports://Q3", {
      allowInputRequired: true,
      inputResponses: { currency: { action: "accept", content: { currency: "EUR" } } },
      requestState: token,
    });
    expect(second).toMatchObject({ contents: [{ uri: "reports://Q3", text: "Q3:EUR" }] });
    await session.close();
  });
});

describe("completion/complete on template variables", () => {
  function server() {
    const mcp = quietServer("res");
    const contexts: unknown[] = [];
    mcp.resource(
      "repos://{owner}/{repo}",
      {
        complete: {
          repo: (value, context) => {
            contexts.push(context);
            return ["roundtrip", "rust", "ruby"].filter((r) => r.startsWith(value));
          },
        },
      },
      () => "x",
    );
    return { mcp, contexts };
  }
  const ref = (uri: string, name: string, value: string, context?: Record<string, string>) => ({
    ref: { type: "ref/resource", uri },
    argument: { name, value },
    ...(context ? { context: { arguments: context } } : {}),
  });

  it("completes a variable with the other variables as context, and advertises completions", async () => {
    const { mcp, contexts } = server();
    expect(
      resultOf(
        await send(mcp, "completion/complete", ref("repos://{owner}/{repo}", "repo", "ru", { owner: "me" })),
      ),
    ).toEqual({
      completion: { values: ["rust", "ruby"], total: 2, hasMore: false },
      resultType: "complete",
      _meta: STAMP,
    });
    expect(contexts).toEqual([{ arguments: { owner: "me" } }]);
    expect(resultOf(await send(mcp, "server/discover")).capabilities).toEqual({
      resources: {},
      completions: {},
      logging: {},
    });
  });

  it("answers a variable without a completer with empty values and an unknown template with -32602", async () => {
    const { mcp } = server();
    expect(
      resultOf(await send(mcp, "completion/complete", ref("repos://{owner}/{repo}", "owner", ""))).completion,
    ).toEqual({ values: [] });
    expect(errorOf(await send(mcp, "completion/complete", ref("nope://{x}", "x", "")))).toEqual({
      code: -32602,
      message: "Unknown resource template: nope://{x}",
    });
  });

  it("answers a static resource's URI (a ref/resource may name one) with empty values, not -32602", async () => {
    const { mcp } = server();
    mcp.resource("file:///notes.txt", {}, () => "notes");
    expect(resultOf(await send(mcp, "completion/complete", ref("file:///notes.txt", "x", "")))).toEqual({
      completion: { values: [] },
      resultType: "complete",
      _meta: STAMP,
    });
  });
});
