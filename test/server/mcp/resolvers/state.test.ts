import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  elicit,
  listRoots,
  MCPServer,
  questionDigest,
  RequestStateSecurity,
  resolver,
  sample,
  withOutcome,
} from "../../../../src/server/index.js";
import { silentLogger } from "../../../../src/server/logger.js";
import { decodeResolverState, encodeResolverState } from "../../../../src/server/mcp/resolvers/state.js";
import { recordingLogger } from "../../../helpers.js";
import { quietServer } from "../helpers.js";
import { accept, asked, DECLINE, Flow, FORM, form, type PlainState, spyState, textOf } from "./helpers.js";

const User = z.object({ username: z.string() });
const Ok = z.object({ ok: z.boolean() });
const DIGEST = /^[A-Za-z0-9_-]{22}$/;

/** login → confirm, with a spy after the boundary. */
function chainServer(logger = silentLogger) {
  const mcp = quietServer("srv", { logger });
  const spy = spyState(mcp);
  const runs = { login: 0, confirm: 0 };
  const login = resolver("login", () => {
    runs.login++;
    return elicit("Username?", User);
  });
  const confirm = resolver("confirm", { deps: { user: login } }, ({ deps }) => {
    runs.confirm++;
    return elicit(`As ${deps.user.username}?`, Ok);
  });
  mcp.tool("deploy", { resolve: { user: login, confirm } }, (_a, { user, confirm }) =>
    confirm.ok ? `deployed as ${user.username}` : "stopped",
  );
  return { mcp, spy, runs };
}
const LOGIN_Q = questionDigest(elicit("Username?", User));

describe("the plaintext state", () => {
  it("has the documented shape: v 1, outcomes pinned by q, asked = the questions of this round (#60, #62)", async () => {
    const { mcp, spy } = chainServer();
    const flow = new Flow(mcp, "deploy");
    await flow.round();
    expect(spy.inbound).toEqual([undefined]);
    expect(spy.outbound[0]).toBe(`{"v":1,"outcomes":{},"asked":{"login":"${LOGIN_Q}"}}`);
    // The wire never carries the plaintext.
    expect(flow.state).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(flow.state).not.toContain("login");

    await flow.round({ login: accept({ username: "octocat" }) });
    const confirmQ = questionDigest(elicit("As octocat?", Ok));
    expect(spy.inbound[1]).toBe(spy.outbound[0]); // the boundary hands the handler its own plaintext back
    expect(spy.last()).toEqual({
      v: 1,
      outcomes: { login: { action: "accept", data: { username: "octocat" }, q: LOGIN_Q } },
      asked: { confirm: confirmQ },
    });

    await flow.round({ confirm: accept({ ok: true }) });
    expect(spy.outbound[2]).toBeUndefined(); // complete: no state
  });

  it("a restored entry is carried on unchanged, byte for byte (#61, #62)", async () => {
    const mcp = quietServer();
    const spy = spyState(mcp);
    const login = resolver("login", () => elicit("Username?", User));
    const confirm = resolver("confirm", { deps: { login } }, () => elicit("Sure?", Ok));
    const last = resolver("last", { deps: { confirm } }, () => elicit("Really sure?", Ok));
    mcp.tool("t", { resolve: { login, last } }, (_a, { login }) => JSON.stringify(login));
    const flow = new Flow(mcp, "t");
    await flow.round();
    // The client's raw content is stored, extra fields included (the schema would strip them).
    await flow.round({ login: accept({ username: "octocat", extra: "kept" }) });
    const entry = spy.last().outcomes.login;
    expect(entry).toEqual({ action: "accept", data: { username: "octocat", extra: "kept" }, q: LOGIN_Q });
    const r3 = await flow.round({ confirm: accept({ ok: true }) });
    expect(Object.keys(asked(r3))).toEqual(["last"]);
    // Restored in round 3 and written again exactly as recorded in round 2.
    const text = (state: string | undefined) =>
      JSON.stringify((JSON.parse(state ?? "{}") as PlainState).outcomes.login);
    expect(text(spy.outbound[2])).toBe(text(spy.outbound[1]));
    expect(Object.keys(spy.last().outcomes).sort()).toEqual(["confirm", "login"]);
  });

  it("decodes tolerantly: anything unexpected reads as 'no progress yet' (#38)", () => {
    const empty = { outcomes: {}, asked: {} };
    for (const text of [
      undefined,
      "",
      "not json",
      "[]",
      "null",
      '"string"',
      '{"v":2,"outcomes":{},"asked":{}}',
      '{"v":1}',
      '{"v":1,"outcomes":[]}',
      '{"v":1,"outcomes":"x"}',
    ]) {
      expect(decodeResolverState(text), String(text)).toEqual(empty);
    }
    // Malformed entries are dropped one by one; well-formed ones survive.
    expect(
      decodeResolverState(
        JSON.stringify({
          v: 1,
          outcomes: {
            good: { action: "decline", q: "q1" },
            noQ: { action: "accept", data: {} },
            badAction: { action: "maybe", q: "q" },
            notObject: 7,
          },
          asked: { a: "qa", b: 5 },
        }),
      ),
    ).toEqual({ outcomes: { good: { action: "decline", q: "q1" } }, asked: { a: "qa" } });
  });

  it("encoding and decoding are inverse (#39)", () => {
    const state = {
      outcomes: {
        a: { action: "accept" as const, data: { x: 1 }, q: "qa" },
        d: { action: "decline" as const, q: "qd" },
        c: { action: "cancel" as const, q: "qc" },
      },
      asked: { n: "qn" },
    };
    expect(decodeResolverState(encodeResolverState(state))).toEqual(state);
    expect(JSON.parse(encodeResolverState(state)).v).toBe(1);
  });

  it.each([
    ["not JSON", "garbage"],
    [
      "another version",
      `{"v":3,"outcomes":{"login":{"action":"accept","data":{"username":"x"},"q":"${LOGIN_Q}"}}}`,
    ],
    ["outcomes not an object", '{"v":1,"outcomes":[]}'],
  ])("a state that is %s is read as round one, not an error (#38)", async (_name, text) => {
    const { mcp, spy } = chainServer();
    const flow = new Flow(mcp, "deploy");
    spy.forgeNext(text);
    const result = await flow.round({ login: accept({ username: "x" }) });
    expect(asked(result)).toEqual({ login: form("Username?", { username: { type: "string" } }) });
  });
});

describe("what the server consults", () => {
  it("unknown response keys and ghost state entries are ignored and not carried on (#49)", async () => {
    const { mcp, spy } = chainServer();
    const flow = new Flow(mcp, "deploy");
    await flow.round();
    spy.forgeNext({
      v: 1,
      outcomes: {
        ghost: { action: "accept", data: { anything: true }, q: "AAAAAAAAAAAAAAAAAAAAAA" },
        other_tool_key: { action: "decline", q: LOGIN_Q },
      },
      asked: { login: LOGIN_Q, ghost: "AAAAAAAAAAAAAAAAAAAAAA" },
    });
    const result = await flow.round({
      login: accept({ username: "octocat" }),
      never_asked: accept({ username: "mallory" }),
      ghost: accept({ anything: false }),
    });
    expect(Object.keys(asked(result))).toEqual(["confirm"]);
    const state = spy.last();
    expect(Object.keys(state.outcomes)).toEqual(["login"]);
    expect(state.outcomes.login?.data).toEqual({ username: "octocat" });
    expect(Object.keys(state.asked)).toEqual(["confirm"]);
    expect(textOf(await flow.round({ confirm: accept({ ok: true }) })).text).toBe("deployed as octocat");
  });

  it.each([
    ["non-object data", "octocat"],
    ["data failing the schema", { username: 42 }],
    ["no data", undefined],
  ])("a forged state entry with %s is re-asked, not an error (#50)", async (_name, data) => {
    const { mcp, spy } = chainServer();
    const flow = new Flow(mcp, "deploy");
    spy.forgeNext({ v: 1, outcomes: { login: { action: "accept", data, q: LOGIN_Q } }, asked: {} });
    const result = await flow.round();
    expect(asked(result)).toEqual({ login: form("Username?", { username: { type: "string" } }) });
    expect(spy.last()).toEqual({ v: 1, outcomes: {}, asked: { login: LOGIN_Q } });
  });

  it("an entry without a question digest is dropped and re-asked (#64)", async () => {
    const { mcp, spy } = chainServer();
    spy.forgeNext({
      v: 1,
      outcomes: { login: { action: "accept", data: { username: "x" } } as never },
      asked: {},
    });
    expect(Object.keys(asked(await new Flow(mcp, "deploy").round()))).toEqual(["login"]);
  });

  it("a valid entry with the live digest is used without asking (#61)", async () => {
    const { mcp, spy, runs } = chainServer();
    spy.forgeNext({
      v: 1,
      outcomes: { login: { action: "accept", data: { username: "restored" }, q: LOGIN_Q } },
      asked: {},
    });
    const result = await new Flow(mcp, "deploy").round();
    expect(asked(result)).toEqual({ confirm: form("As restored?", { ok: { type: "boolean" } }) });
    expect(runs).toEqual({ login: 1, confirm: 1 });
  });

  it("a state entry never replaces a pure resolver's computed value (#55, #56)", async () => {
    const mcp = quietServer();
    const spy = spyState(mcp);
    const pure = resolver("pure", () => "computed");
    const ask = resolver("ask", () => elicit("Go?", Ok));
    mcp.tool("t", { resolve: { pure, outcome: withOutcome(pure), ask } }, (_a, { pure, outcome }) =>
      JSON.stringify([pure, outcome]),
    );
    const flow = new Flow(mcp, "t");
    await flow.round();
    const askQ = spy.last().asked.ask as string;
    spy.forgeNext({
      v: 1,
      outcomes: {
        pure: { action: "decline", q: "x" },
        ask: { action: "accept", data: { ok: true }, q: askQ },
      },
      asked: { pure: "x" },
    });
    const done = await flow.round({ pure: accept({ forged: true }) });
    expect(textOf(done).text).toBe('["computed","computed"]');
  });

  it("an answer sent without the echoed state is re-asked, not consumed (#68)", async () => {
    const { mcp, spy } = chainServer();
    const flow = new Flow(mcp, "deploy");
    const first = await flow.round();
    const again = await flow.round({ login: accept({ username: "octocat" }) }, { requestState: null });
    expect(asked(again)).toEqual(asked(first));
    expect(spy.last().outcomes).toEqual({});
    // With the state, the same answer is consumed.
    const second = await flow.round({ login: accept({ username: "octocat" }) });
    expect(Object.keys(asked(second))).toEqual(["confirm"]);
  });

  it("an answer to a question not asked in the previous round is not consumed, and logged at info", async () => {
    const logger = recordingLogger();
    const { mcp } = chainServer(logger);
    const flow = new Flow(mcp, "deploy");
    await flow.round();
    // confirm was not asked yet: its early answer is ignored, login's is taken, confirm is then asked.
    const result = await flow.round({
      login: accept({ username: "octocat" }),
      confirm: accept({ ok: true }),
    });
    expect(Object.keys(asked(result))).toEqual(["confirm"]);
    expect(logger.lines).toEqual([
      "info: resolver 'confirm': ignored an answer to a question not asked in the previous round (reworded, or no echoed state)",
    ]);
  });
});

describe("question pinning", () => {
  it("the digest pins the rendered question: same → same, message/schema/kind → different, 22 chars (#59)", () => {
    const a = questionDigest(elicit("Which region?", z.object({ region: z.string() })));
    expect(a).toMatch(DIGEST);
    expect(a).not.toContain("=");
    expect(questionDigest(elicit("Which region?", z.object({ region: z.string() })))).toBe(a);
    expect(questionDigest(elicit("Which region? ", z.object({ region: z.string() })))).not.toBe(a);
    expect(questionDigest(elicit("Which region?", z.object({ zone: z.string() })))).not.toBe(a);
    expect(questionDigest(elicit("Which region?", z.object({ region: z.string().min(2) })))).not.toBe(a);
    expect(questionDigest(elicit("Which region?", z.object({ region: z.string().optional() })))).not.toBe(a);
    const s = questionDigest(sample({ prompt: "Hi", maxTokens: 10 }));
    expect(s).toMatch(DIGEST);
    expect(questionDigest(sample({ prompt: "Hi", maxTokens: 10 }))).toBe(s);
    expect(questionDigest(sample({ prompt: "Hi", maxTokens: 11 }))).not.toBe(s);
    expect(questionDigest(listRoots())).toMatch(DIGEST);
  });

  it("a message that changes on every leg is asked again every round (the documented pitfall)", async () => {
    const mcp = quietServer();
    let leg = 0;
    const rate = resolver("rate", () => elicit(`Accept rate ${++leg}?`, Ok));
    mcp.tool("t", { resolve: { rate } }, () => "done");
    const flow = new Flow(mcp, "t");
    const messages: string[] = [];
    for (let i = 0; i < 4; i++) {
      const result = await flow.round(i === 0 ? undefined : { rate: accept({ ok: true }) });
      messages.push((asked(result).rate as { params: { message: string } }).params.message);
    }
    expect(messages).toEqual(["Accept rate 1?", "Accept rate 2?", "Accept rate 3?", "Accept rate 4?"]);
  });

  it("the digest in the state is the digest of the question on the wire", async () => {
    const { mcp, spy } = chainServer();
    await new Flow(mcp, "deploy").round();
    expect(spy.last().asked).toEqual({ login: LOGIN_Q });
  });

  /**
   * Two deployments of one service (same name, same shared key): v2 rewords the region question.
   * Round trips may land on either.
   */
  function fleet() {
    const security = new RequestStateSecurity({ keys: [randomBytes(32)] });
    const build = (regionMessage: string) => {
      const mcp = new MCPServer("provisioner", { requestStateSecurity: security, logger: silentLogger });
      const spy = spyState(mcp);
      const region = resolver("region", () => elicit(regionMessage, z.object({ region: z.string() })));
      const size = resolver("size", () => elicit("Size in GB?", z.object({ gb: z.number() })));
      const confirm = resolver("confirm", { deps: { region: withOutcome(region), size } }, ({ deps }) =>
        elicit(
          `Provision ${deps.size.gb} GB in ${deps.region.action === "accept" ? deps.region.content.region : "any region"}?`,
          Ok,
        ),
      );
      mcp.tool("provision", { resolve: { region: withOutcome(region), size, confirm } }, (_a, r) =>
        r.confirm.ok && r.region.action === "accept"
          ? `${r.size.gb} GB in ${r.region.content.region}`
          : `${r.size.gb} GB, region ${r.region.action}`,
      );
      return { mcp, spy };
    };
    return { v1: build("Which region?"), v2: build("Which cloud region should it live in?") };
  }

  it("a reworded question drops the stored answer and re-asks; a sibling's answer survives (#65)", async () => {
    const { v1, v2 } = fleet();
    const flow = new Flow(v1.mcp, "provision");
    expect(Object.keys(asked(await flow.round())).sort()).toEqual(["region", "size"]);
    const r2 = await flow.round({ region: accept({ region: "eu" }), size: accept({ gb: 20 }) });
    expect(Object.keys(asked(r2))).toEqual(["confirm"]);
    // The retry lands on v2, which rewords the region question.
    const r3 = await flow.round({ confirm: accept({ ok: true }) }, { target: v2.mcp });
    expect(asked(r3)).toEqual({
      region: form("Which cloud region should it live in?", { region: { type: "string" } }),
    });
    const state = v2.spy.last();
    expect(Object.keys(state.outcomes)).toEqual(["size"]); // the sibling's answer survives
    expect(state.outcomes.size?.data).toEqual({ gb: 20 });
    const r4 = await flow.round({ region: accept({ region: "us" }) }, { target: v2.mcp });
    expect(asked(r4)).toEqual({ confirm: form("Provision 20 GB in us?", { ok: { type: "boolean" } }) });
    const done = await flow.round({ confirm: accept({ ok: true }) }, { target: v2.mcp });
    expect(textOf(done)).toEqual({ text: "20 GB in us", isError: false });
  });

  it("a recorded decline of a reworded question does not suppress the new question (#66)", async () => {
    const { v1, v2 } = fleet();
    const flow = new Flow(v1.mcp, "provision");
    await flow.round();
    await flow.round({ region: DECLINE, size: accept({ gb: 5 }) });
    expect(v1.spy.last().outcomes.region).toMatchObject({ action: "decline" });
    const r3 = await flow.round({ confirm: accept({ ok: true }) }, { target: v2.mcp });
    expect(Object.keys(asked(r3))).toEqual(["region"]);
    // Back on v1 (the old wording), the decline would have been honoured.
    const flowOld = new Flow(v1.mcp, "provision");
    await flowOld.round();
    await flowOld.round({ region: DECLINE, size: accept({ gb: 5 }) });
    expect(textOf(await flowOld.round({ confirm: accept({ ok: true }) })).text).toBe("5 GB, region decline");
  });

  it("a reworded question is re-asked even when its answer first arrives there (#67)", async () => {
    const { v1, v2 } = fleet();
    const flow = new Flow(v1.mcp, "provision");
    await flow.round();
    // v1 asked; the answers reach v2, whose wording differs: `asked` pins the pending question.
    const r2 = await flow.round(
      { region: accept({ region: "eu" }), size: accept({ gb: 1 }) },
      { target: v2.mcp },
    );
    expect(asked(r2)).toEqual({
      region: form("Which cloud region should it live in?", { region: { type: "string" } }),
    });
    expect(Object.keys(v2.spy.last().outcomes)).toEqual(["size"]);
  });

  it("a shared key and name let the unchanged deployment finish what the other started", async () => {
    const security = new RequestStateSecurity({ keys: [randomBytes(32)] });
    const build = () => {
      const mcp = new MCPServer("same", { requestStateSecurity: security, logger: silentLogger });
      const ask = resolver("ask", () => elicit("Name?", z.object({ name: z.string() })));
      mcp.tool("t", { resolve: { ask } }, (_a, { ask }) => ask.name);
      return mcp;
    };
    const [a, b] = [build(), build()];
    const flow = new Flow(a, "t");
    await flow.round();
    expect(textOf(await flow.round({ ask: accept({ name: "ok" }) }, { target: b })).text).toBe("ok");
  });
});

describe("round-trip fidelity", () => {
  it("a recorded answer containing a lone surrogate survives to later rounds (#69)", async () => {
    const mcp = quietServer();
    const spy = spyState(mcp);
    const name = resolver("name", () => elicit("Name?", z.object({ name: z.string() })));
    const ok = resolver("ok", { deps: { name } }, () => elicit("Sure?", Ok));
    const third = resolver("third", { deps: { ok } }, () => elicit("Really sure?", Ok));
    mcp.tool("t", { resolve: { name, third } }, (_a, { name }) => JSON.stringify(name.name));
    const flow = new Flow(mcp, "t");
    const lone = "a\ud800b";
    await flow.round();
    await flow.round({ name: accept({ name: lone }) });
    await flow.round({ ok: accept({ ok: true }) });
    expect(spy.last().outcomes.name?.data).toEqual({ name: lone });
    const done = await flow.round({ third: accept({ ok: true }) });
    expect(textOf(done)).toEqual({ text: JSON.stringify(lone), isError: false });
  });

  it("a resolver tool seals and completes on a fully default MCPServer (#70)", async () => {
    const mcp = new MCPServer("");
    const ask = resolver("ask", () => elicit("Name?", z.object({ name: z.string() })));
    mcp.tool("hello", { resolve: { ask } }, (_a, { ask }) => `Hello, ${ask.name}!`);
    const flow = new Flow(mcp, "hello", {}, FORM);
    const first = await flow.round();
    expect(first.requestState).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(String(first.requestState)).not.toContain("asked");
    expect(textOf(await flow.round({ ask: accept({ name: "world" }) })).text).toBe("Hello, world!");
  });
});
