import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Logger } from "../../../src/server/context.js";
import { silentLogger } from "../../../src/server/logger.js";
import { elicitationRequest, inputRequired, MCPServer } from "../../../src/server/mcp/index.js";
import { Server } from "../../../src/server/server.js";
import { RequestStateBoundary, RequestStateSecurity } from "../../../src/server/state/index.js";
import { httpStatusOf } from "../../../src/shared/dispatch.js";
import type { CallToolRequestParams, InputRequiredResult, InputResponses } from "../../../src/types/index.js";
import { errorOf, recordingLogger, resultOf, wireTap } from "../../helpers.js";
import { connect, linesAt, send, stamp } from "./helpers.js";

const KEY = "k".repeat(32);
const ELICIT = { elicitation: { form: {} } };
const Region = z.object({ region: z.string() });
const ANSWER: InputResponses = { region: { action: "accept", content: { region: "eu-west-1" } } };
const FROZEN = {
  code: -32602,
  message: "Invalid or expired requestState",
  data: { reason: "invalid_request_state" },
};

/** Registers `provision({name})`: round one asks with state `provision:<name>`; the retry reports what it saw. */
function withProvision(mcp: MCPServer, runs: (string | undefined)[] = []): MCPServer {
  const ask = (name: string, ctx: { requestState: string | undefined; inputResponses: unknown }) => {
    runs.push(ctx.requestState);
    if (ctx.inputResponses === undefined) {
      return inputRequired({
        inputRequests: { region: elicitationRequest("Which region?", Region) },
        requestState: `provision:${name}`,
      });
    }
    return `done with ${String(ctx.requestState)}`;
  };
  mcp.tool("provision", { input: z.object({ name: z.string() }) }, ({ name }, ctx) => ask(name, ctx));
  mcp.tool("deprovision", { input: z.object({ name: z.string() }) }, ({ name }, ctx) => ask(name, ctx));
  return mcp;
}

function provisioner(name = "fleet", logger: Logger = silentLogger, security?: RequestStateSecurity) {
  const runs: (string | undefined)[] = [];
  const mcp = withProvision(new MCPServer(name, { logger, requestStateSecurity: security }), runs);
  return { mcp, runs };
}

/** Round one of `provision` on `target`: the wire token. */
async function firstToken(
  target: { dispatch: MCPServer["dispatch"] },
  args = { name: "orders" },
  tool = "provision",
) {
  const first = resultOf(await send(target, "tools/call", { name: tool, arguments: args }, ELICIT));
  expect(first.resultType).toBe("input_required");
  return first.requestState as string;
}

function retry(
  target: { dispatch: MCPServer["dispatch"] },
  requestState: unknown,
  args: Record<string, unknown> = { name: "orders" },
  tool = "provision",
) {
  return send(
    target,
    "tools/call",
    { name: tool, arguments: args, inputResponses: ANSWER, requestState },
    ELICIT,
  );
}

const textOf = (result: Record<string, unknown>) => (result.content as { text: string }[])[0]?.text;

describe("#1 MCPServer: sealed on the wire, restored for the handler", () => {
  it("the client only ever sees an opaque v1. token and a faithful echo restores the plaintext", async () => {
    const { mcp, runs } = provisioner();
    const tap = wireTap();
    const session = await connect(mcp, { capabilities: ELICIT }, { onWire: tap.onWire });
    const first = await session.callTool("provision", { name: "orders" }, { allowInputRequired: true });
    expect(first.resultType).toBe("input_required");
    const token = (first as InputRequiredResult).requestState as string;
    expect(token).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(token).not.toContain("provision");
    expect(JSON.stringify(tap.received())).not.toContain("provision:orders");

    const second = await session.callTool(
      "provision",
      { name: "orders" },
      { allowInputRequired: true, inputResponses: ANSWER, requestState: token },
    );
    expect(second).toMatchObject({ content: [{ type: "text", text: "done with provision:orders" }] });
    expect(runs).toEqual([undefined, "provision:orders"]);
    const sentRetry = tap.sent()[1]?.params as CallToolRequestParams;
    expect(sentRetry.requestState).toBe(token);
    await session.close();
  });

  it("seals a state-only input_required result too", async () => {
    const mcp = new MCPServer("fleet", { logger: silentLogger });
    const seen: (string | undefined)[] = [];
    mcp.tool("poll", {}, (_a, ctx) => {
      seen.push(ctx.requestState);
      return ctx.requestState === undefined ? inputRequired({ requestState: "step-1" }) : "finished";
    });
    const first = resultOf(await send(mcp, "tools/call", { name: "poll" }));
    expect(first).toEqual({
      resultType: "input_required",
      requestState: expect.stringMatching(/^v1\./),
      _meta: stamp("fleet"),
    });
    expect(first.requestState).not.toContain("step-1");
    const second = resultOf(
      await send(mcp, "tools/call", { name: "poll", requestState: first.requestState }),
    );
    expect(textOf(second)).toBe("finished");
    expect(seen).toEqual([undefined, "step-1"]);
  });

  it("reseals every round with a fresh token", async () => {
    const mcp = new MCPServer("fleet", { logger: silentLogger });
    mcp.tool("wizard", {}, (_a, ctx) => {
      const step = Number(ctx.requestState ?? "0");
      return step < 3 ? inputRequired({ requestState: String(step + 1) }) : `done after ${step}`;
    });
    const tokens: string[] = [];
    let state: unknown;
    for (let i = 0; i < 3; i++) {
      const result = resultOf(
        await send(mcp, "tools/call", { name: "wizard", ...(state ? { requestState: state } : {}) }),
      );
      state = result.requestState;
      tokens.push(state as string);
    }
    expect(new Set(tokens).size).toBe(3);
    expect(textOf(resultOf(await send(mcp, "tools/call", { name: "wizard", requestState: state })))).toBe(
      "done after 3",
    );
  });
});

describe("a retry's params as JSON.parse makes them", () => {
  it("an own __proto__ key smuggles no inputResponses past the params checks", async () => {
    const { mcp, runs } = provisioner();
    const token = await firstToken(mcp);
    const params = JSON.parse(
      `{"name":"provision","arguments":{"name":"orders"},"requestState":${JSON.stringify(token)},` +
        `"__proto__":{"inputResponses":${JSON.stringify(ANSWER)}}}`,
    ) as Record<string, unknown>;
    expect(Object.hasOwn(params, "__proto__")).toBe(true);
    // Without its answers the retry asks again: the handler never saw the smuggled ones.
    const again = resultOf(await send(mcp, "tools/call", params, ELICIT));
    expect(again.resultType).toBe("input_required");
    expect(runs).toEqual([undefined, "provision:orders"]);
  });
});

describe("#2 a low-level Server with the one-line boundary behaves the same", () => {
  function lowLevel(logger: Logger = silentLogger) {
    const seen: unknown[] = [];
    const server = new Server("fleet", {
      logger,
      onCallTool: (_ctx, params) => {
        seen.push(params.requestState);
        return params.inputResponses
          ? { content: [{ type: "text", text: `done with ${String(params.requestState)}` }] }
          : {
              resultType: "input_required",
              inputRequests: { region: elicitationRequest("Which region?", Region) },
              requestState: "plain-1",
            };
      },
    });
    server.middleware.push(
      new RequestStateBoundary(RequestStateSecurity.ephemeral(), { defaultAudience: server.name }),
    );
    return { server, seen };
  }

  it("seals on the wire, restores the plaintext, and rejects a fabricated echo with the frozen error", async () => {
    const { server, seen } = lowLevel();
    const token = await firstToken(server);
    expect(token).toMatch(/^v1\./);
    expect(token).not.toContain("plain-1");
    expect(textOf(resultOf(await retry(server, token)))).toBe("done with plain-1");
    expect(errorOf(await retry(server, "plain-1"))).toEqual(FROZEN);
    expect(seen).toEqual([undefined, "plain-1"]);
  });

  it("does not accept tokens of an MCPServer with the same name (different ephemeral keys)", async () => {
    const { server } = lowLevel();
    const { mcp } = provisioner("fleet");
    expect(errorOf(await retry(server, await firstToken(mcp)))).toEqual(FROZEN);
  });
});

describe("#3 a resource template flow is bound to its URI", () => {
  function reports() {
    const mcp = new MCPServer("reports", { logger: silentLogger });
    mcp.resource("reports://{id}", {}, ({ id }, ctx) =>
      ctx.requestState === undefined
        ? inputRequired({ requestState: `report:${id}` })
        : `report ${id} (state ${ctx.requestState})`,
    );
    return mcp;
  }

  it("restores the plaintext on the same URI and rejects the token on another URI", async () => {
    const mcp = reports();
    const first = resultOf(await send(mcp, "resources/read", { uri: "reports://1" }));
    expect(first.requestState).toMatch(/^v1\./);
    expect(
      errorOf(await send(mcp, "resources/read", { uri: "reports://2", requestState: first.requestState })),
    ).toEqual(FROZEN);
    const same = resultOf(
      await send(mcp, "resources/read", { uri: "reports://1", requestState: first.requestState }),
    );
    expect(same.contents).toEqual([{ uri: "reports://1", text: "report 1 (state report:1)" }]);
  });

  it("rejects a tools/call token replayed on resources/read", async () => {
    const mcp = withProvision(reports());
    const token = await firstToken(mcp);
    expect(errorOf(await send(mcp, "resources/read", { uri: "reports://1", requestState: token }))).toEqual(
      FROZEN,
    );
  });
});

describe("request binding on tools/call", () => {
  it("rejects a retry with different arguments, and the original arguments still complete", async () => {
    const logger = recordingLogger();
    const { mcp, runs } = provisioner("fleet", logger);
    const token = await firstToken(mcp);
    expect(errorOf(await retry(mcp, token, { name: "users" }))).toEqual(FROZEN);
    expect(linesAt(logger, "warn")).toEqual(["requestState rejected on tools/call: request binding"]);
    expect(textOf(resultOf(await retry(mcp, token)))).toBe("done with provision:orders");
    expect(runs).toEqual([undefined, "provision:orders"]);
  });

  it("rejects round-one state replayed on a different tool", async () => {
    const { mcp, runs } = provisioner();
    const token = await firstToken(mcp);
    expect(errorOf(await retry(mcp, token, { name: "orders" }, "deprovision"))).toEqual(FROZEN);
    expect(runs).toEqual([undefined]);
  });

  it("rejects a retry with another Date argument in process (no JSON wire between client and server)", async () => {
    const logger = recordingLogger();
    const mcp = new MCPServer("fleet", { logger });
    const runs: unknown[] = [];
    mcp.tool("pay", { input: z.object({ on: z.date() }) }, ({ on }, ctx) => {
      runs.push(on.toISOString());
      if (ctx.inputResponses === undefined) {
        return inputRequired({
          inputRequests: { region: elicitationRequest("Which region?", Region) },
          requestState: "pay",
        });
      }
      return "paid";
    });
    const first = await firstToken(mcp, { on: new Date(0) } as never, "pay");
    const other = { on: new Date(86_400_000) } as never;
    expect(errorOf(await retry(mcp, first, other, "pay"))).toEqual(FROZEN);
    expect(linesAt(logger, "warn")).toEqual(["requestState rejected on tools/call: request binding"]);
    expect(textOf(resultOf(await retry(mcp, first, { on: new Date(0) } as never, "pay")))).toBe("paid");
    expect(runs).toEqual(["1970-01-01T00:00:00.000Z", "1970-01-01T00:00:00.000Z"]);
  });
});

describe("#15 audience: the server name", () => {
  it("two MCPServers sharing a key but with different names reject each other's state", async () => {
    const { mcp: billing } = provisioner("billing", silentLogger, new RequestStateSecurity({ keys: [KEY] }));
    const logger = recordingLogger();
    const { mcp: fleet, runs } = provisioner("fleet", logger, new RequestStateSecurity({ keys: [KEY] }));
    expect(errorOf(await retry(fleet, await firstToken(billing)))).toEqual(FROZEN);
    expect(errorOf(await retry(billing, await firstToken(fleet)))).toEqual(FROZEN);
    expect(linesAt(logger, "warn")).toEqual(["requestState rejected on tools/call: audience"]);
    expect(runs).toEqual([undefined]);
  });

  it("two instances with the same name and key accept each other's state", async () => {
    const { mcp: one } = provisioner("fleet", silentLogger, new RequestStateSecurity({ keys: [KEY] }));
    const { mcp: two, runs } = provisioner("fleet", silentLogger, new RequestStateSecurity({ keys: [KEY] }));
    expect(textOf(resultOf(await retry(two, await firstToken(one))))).toBe("done with provision:orders");
    expect(runs).toEqual(["provision:orders"]);
  });

  it("an explicit policy audience overrides the name", async () => {
    const shared = () => new RequestStateSecurity({ keys: [KEY] }, { audience: "fleet-api" });
    const { mcp: a } = provisioner("fleet-a", silentLogger, shared());
    const { mcp: b } = provisioner("fleet-b", silentLogger, shared());
    expect(textOf(resultOf(await retry(b, await firstToken(a))))).toBe("done with provision:orders");
  });
});

describe("#20 MCPServer seals by default", () => {
  it("mints v1. tokens and answers a fabricated plaintext echo with exactly the frozen error (HTTP 400)", async () => {
    const logger = recordingLogger();
    const { mcp, runs } = provisioner("fleet", logger);
    expect(await firstToken(mcp)).toMatch(/^v1\./);
    const response = await retry(mcp, "provision:orders");
    expect(response).toEqual({ jsonrpc: "2.0", id: expect.any(Number), error: FROZEN });
    expect(httpStatusOf(response as NonNullable<typeof response>)).toBe(400);
    expect(runs).toEqual([undefined]);
    expect(linesAt(logger, "warn")).toEqual([
      expect.stringMatching(/^requestState rejected on tools\/call: \S/),
    ]);
  });

  it("logs the rejection reason but never the token", async () => {
    const logger = recordingLogger();
    const { mcp } = provisioner("fleet", logger);
    const token = await firstToken(mcp);
    const tampered = `${token.slice(0, -2)}${token.endsWith("AA") ? "BB" : "AA"}`;
    expect(errorOf(await retry(mcp, tampered))).toEqual(FROZEN);
    expect(errorOf(await retry(mcp, `${token}x`))).toEqual(FROZEN);
    const warnings = linesAt(logger, "warn");
    expect(warnings).toHaveLength(2);
    for (const line of warnings) expect(line).toMatch(/^requestState rejected on tools\/call: [a-z ]+$/);
    const everything = logger.lines.join("\n");
    expect(everything).not.toContain(token.slice(3, 20));
    expect(everything).not.toContain("provision:orders");
  });

  it("answers the same frozen error on prompts/get and resources/read", async () => {
    const mcp = new MCPServer("fleet", { logger: silentLogger });
    mcp.prompt("p", {}, () => "x");
    mcp.resource("r://{id}", {}, () => "x");
    expect(errorOf(await send(mcp, "prompts/get", { name: "p", requestState: "forged" }))).toEqual(FROZEN);
    expect(errorOf(await send(mcp, "resources/read", { uri: "r://1", requestState: "forged" }))).toEqual(
      FROZEN,
    );
  });
});

describe("#21 the default key is per instance", () => {
  it("two default MCPServers with the same name never cross-accept", async () => {
    const logger = recordingLogger();
    const { mcp: one } = provisioner("fleet");
    const { mcp: two, runs } = provisioner("fleet", logger);
    expect(errorOf(await retry(two, await firstToken(one)))).toEqual(FROZEN);
    expect(errorOf(await retry(one, await firstToken(two)))).toEqual(FROZEN);
    expect(linesAt(logger, "warn")).toEqual(["requestState rejected on tools/call: unknown key"]);
    expect(runs).toEqual([undefined]);
  });
});

describe("#22 a boundary-free low-level Server", () => {
  it("passes requestState through verbatim in both directions", async () => {
    const seen: unknown[] = [];
    const server = new Server("bare", {
      logger: silentLogger,
      onCallTool: (_ctx, params) => {
        seen.push(params.requestState);
        return { resultType: "input_required", requestState: "plain-1" };
      },
    });
    const first = resultOf(await send(server, "tools/call", { name: "t" }));
    expect(first).toEqual({ resultType: "input_required", requestState: "plain-1", _meta: stamp("bare") });
    await send(server, "tools/call", { name: "t", requestState: "anything at all" });
    expect(seen).toEqual([undefined, "anything at all"]);
  });
});

describe("#24 an explicit null requestState is treated as absent", () => {
  it("with a boundary (MCPServer): the handler sees undefined", async () => {
    const mcp = new MCPServer("fleet", { logger: silentLogger });
    const seen: unknown[] = [];
    mcp.tool("t", {}, (_a, ctx) => {
      seen.push(ctx.requestState, "requestState" in ctx.request.params);
      return "ok";
    });
    expect(textOf(resultOf(await send(mcp, "tools/call", { name: "t", requestState: null })))).toBe("ok");
    expect(seen).toEqual([undefined, false]);
  });

  it.each([
    ["without a boundary", false],
    ["with the one-line boundary", true],
  ])("low-level Server %s: the handler sees undefined", async (_label, boundary) => {
    const seen: unknown[] = [];
    const server = new Server("fleet", {
      logger: silentLogger,
      onCallTool: (_ctx, params) => {
        seen.push(params.requestState, "requestState" in params);
        return { content: [] };
      },
    });
    if (boundary) {
      server.middleware.push(
        new RequestStateBoundary(RequestStateSecurity.ephemeral(), { defaultAudience: server.name }),
      );
    }
    expect(resultOf(await send(server, "tools/call", { name: "t", requestState: null })).resultType).toBe(
      "complete",
    );
    expect(seen).toEqual([undefined, false]);
  });
});

// Regression: in-process callers build params with spreads (`{ ...base, requestState: state }`), so
// an own `undefined` field reaches `dispatch`; JSON cannot carry undefined, so it must read as absent,
// not be refused with the frozen -32602 request-state error.
describe("an own undefined requestState or inputResponses given to dispatch is treated as absent", () => {
  const UNDEFINED = { requestState: undefined, inputResponses: undefined };

  it.each([
    ["tools/call", { name: "t" }],
    ["prompts/get", { name: "p" }],
    ["resources/read", { uri: "r://x" }],
  ])("MCPServer %s: the handler sees neither", async (method, params) => {
    const mcp = new MCPServer("fleet", { logger: silentLogger });
    const seen: unknown[] = [];
    const look = (ctx: { requestState?: string; inputResponses?: unknown }) =>
      seen.push(ctx.requestState, ctx.inputResponses);
    mcp.tool("t", {}, (_a, ctx) => {
      look(ctx);
      return "ok";
    });
    mcp.prompt("p", {}, (_a, ctx) => {
      look(ctx);
      return "ok";
    });
    mcp.resource("r://{id}", {}, (_v, ctx) => {
      look(ctx);
      return "ok";
    });
    const response = await send(mcp, method, { ...params, ...UNDEFINED });
    expect(resultOf(response).resultType).toBe("complete");
    expect(seen).toEqual([undefined, undefined]);
  });

  it.each([
    ["without a boundary", false],
    ["with the one-line boundary", true],
  ])("low-level Server %s: the handler runs", async (_label, boundary) => {
    const seen: unknown[] = [];
    const server = new Server("fleet", {
      logger: silentLogger,
      onCallTool: (_ctx, params) => {
        seen.push(params.requestState, params.inputResponses);
        return { content: [] };
      },
    });
    if (boundary) {
      server.middleware.push(
        new RequestStateBoundary(RequestStateSecurity.ephemeral(), { defaultAudience: server.name }),
      );
    }
    for (const params of [UNDEFINED, { requestState: undefined }, { inputResponses: undefined }]) {
      const response = await send(server, "tools/call", { name: "t", ...params });
      expect(resultOf(response)).toEqual({ content: [], resultType: "complete", _meta: stamp("fleet") });
    }
    expect(seen).toEqual(Array(6).fill(undefined));
  });
});

describe("#48 an explicit policy needs a real name or an audience", () => {
  it("throws at construction for an MCPServer named '' with an explicit policy and no audience", () => {
    expect(
      () =>
        new MCPServer("", {
          logger: silentLogger,
          requestStateSecurity: new RequestStateSecurity({ keys: [KEY] }),
        }),
    ).toThrow(/needs a real name or an explicit RequestStateSecurity\(\{ audience \}\)/);
  });

  it("constructs with the default posture, or with an audience-set policy", async () => {
    const unnamed = withProvision(new MCPServer("", { logger: silentLogger }));
    expect(await firstToken(unnamed)).toMatch(/^v1\./);
    const withAudience = withProvision(
      new MCPServer("", {
        logger: silentLogger,
        requestStateSecurity: new RequestStateSecurity({ keys: [KEY] }, { audience: "fleet" }),
      }),
    );
    const token = await firstToken(withAudience);
    expect(textOf(resultOf(await retry(withAudience, token)))).toBe("done with provision:orders");
  });
});
