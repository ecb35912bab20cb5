import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type AnyResolver,
  elicit,
  elicitUrl,
  InvalidSignature,
  resolver,
  ToolError,
  withOutcome,
} from "../../../../src/server/mcp/index.js";
import type { InputRequiredResult } from "../../../../src/types/index.js";
import { recordingLogger } from "../../../helpers.js";
import { quietServer } from "../helpers.js";
import { accept, asked, CANCEL, DECLINE, Flow, form, SAMPLED, spyState, textOf } from "./helpers.js";

const Confirm = z.object({ ok: z.boolean() });

/** The seed's folder deletion: asks only when the folder is not empty, branches on every outcome. */
function folderServer() {
  const mcp = quietServer();
  const files: Record<string, string[]> = { empty: [], full: ["a.txt", "b.txt"] };
  const deleted: string[] = [];
  const confirmDelete = resolver("confirm_delete", { args: ["folder"] }, ({ args }) => {
    const count = files[String(args.folder)]?.length ?? 0;
    if (count === 0) return { action: "accept" as const, content: { ok: true } };
    return elicit(`Delete ${String(args.folder)} and its ${count} files?`, Confirm);
  });
  mcp.tool(
    "delete_folder",
    { input: z.object({ folder: z.string() }), resolve: { confirm: withOutcome(confirmDelete) } },
    ({ folder }, { confirm }) => {
      if (confirm.action === "accept" && confirm.content.ok) {
        deleted.push(folder);
        return `Deleted ${folder}.`;
      }
      if (confirm.action === "accept") return `Kept ${folder}.`;
      return `Deletion of ${folder} was ${confirm.action === "decline" ? "declined" : "cancelled"}.`;
    },
  );
  return { mcp, deleted };
}

describe("outcomes for a consumer that asked for them (withOutcome)", () => {
  it("an empty folder is deleted without a question (#27, #33)", async () => {
    const { mcp, deleted } = folderServer();
    expect(textOf(await new Flow(mcp, "delete_folder", { folder: "empty" }).round()).text).toBe(
      "Deleted empty.",
    );
    expect(deleted).toEqual(["empty"]);
  });

  it.each([
    ["accept ok", accept({ ok: true }), "Deleted full."],
    ["accept not ok", accept({ ok: false }), "Kept full."],
    ["decline", DECLINE, "Deletion of full was declined."],
    ["cancel", CANCEL, "Deletion of full was cancelled."],
  ])("a non-empty folder asks first, then honours %s (#28, #32, #91)", async (_name, answer, text) => {
    const { mcp, deleted } = folderServer();
    const flow = new Flow(mcp, "delete_folder", { folder: "full" });
    expect(asked(await flow.round())).toEqual({
      confirm_delete: form("Delete full and its 2 files?", { ok: { type: "boolean" } }),
    });
    expect(deleted).toEqual([]); // no side effect before the answer (#31)
    expect(textOf(await flow.round({ confirm_delete: answer }))).toEqual({ text, isError: false });
    expect(deleted).toEqual(text === "Deleted full." ? ["full"] : []);
  });

  it("a URL elicitation's outcome reaches a withOutcome consumer", async () => {
    const mcp = quietServer();
    const signIn = resolver("sign_in", () => elicitUrl("Sign in to continue", "https://auth.example/login"));
    mcp.tool("t", { resolve: { signIn: withOutcome(signIn) } }, (_a, { signIn }) => signIn.action);
    for (const [answer, text] of [
      [{ action: "accept" }, "accept"],
      [DECLINE, "decline"],
      [CANCEL, "cancel"],
    ] as const) {
      const flow = new Flow(mcp, "t", {}, { elicitation: { url: {} } });
      expect(asked(await flow.round())).toEqual({
        sign_in: {
          method: "elicitation/create",
          params: { mode: "url", message: "Sign in to continue", url: "https://auth.example/login" },
        },
      });
      expect(textOf(await flow.round({ sign_in: answer })).text).toBe(text);
    }
  });
});

describe("outcomes for a plain consumer (the default, unwrapped)", () => {
  function regionServer() {
    const mcp = quietServer();
    let bodies = 0;
    const askRegion = resolver("ask_region", () => elicit("Region?", z.object({ region: z.string() })));
    mcp.tool("provision", { resolve: { region: askRegion } }, (_a, { region }) => {
      bodies++;
      return `in ${region.region}`;
    });
    return { mcp, bodies: () => bodies };
  }

  it("an accepted answer is injected as the validated content (#89)", async () => {
    const { mcp } = regionServer();
    const flow = new Flow(mcp, "provision");
    await flow.round();
    expect(textOf(await flow.round({ ask_region: accept({ region: "eu" }) }))).toEqual({
      text: "in eu",
      isError: false,
    });
  });

  it.each([
    [DECLINE, "Resolver 'ask_region' could not resolve: elicitation was declined"],
    [CANCEL, "Resolver 'ask_region' could not resolve: elicitation was cancelled"],
  ])("%o fails the call with isError and the exact text (#90)", async (answer, text) => {
    const { mcp, bodies } = regionServer();
    const flow = new Flow(mcp, "provision");
    await flow.round();
    const result = await flow.round({ ask_region: answer });
    expect(result).toEqual({
      content: [{ type: "text", text }],
      isError: true,
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "srv", version: "" } },
    });
    expect(bodies()).toBe(0);
  });

  it("a declined dependency of a dependency fails the call, naming the declined resolver", async () => {
    const mcp = quietServer();
    const login = resolver("login", () => elicit("User?", z.object({ name: z.string() })));
    const greet = resolver("greet", { deps: { login } }, ({ deps }) => `hi ${deps.login.name}`);
    mcp.tool("t", { resolve: { greet } }, (_a, { greet }) => String(greet));
    const flow = new Flow(mcp, "t");
    expect(Object.keys(asked(await flow.round()))).toEqual(["login"]);
    expect(textOf(await flow.round({ login: DECLINE }))).toEqual({
      text: "Resolver 'login' could not resolve: elicitation was declined",
      isError: true,
    });
  });

  it("a dependency seen through withOutcome lets its dependant branch on a decline", async () => {
    const mcp = quietServer();
    const login = resolver("login", () => elicit("User?", z.object({ name: z.string() })));
    const greet = resolver("greet", { deps: { login: withOutcome(login) } }, ({ deps }) =>
      deps.login.action === "accept" ? `hi ${deps.login.content.name}` : `anonymous (${deps.login.action})`,
    );
    mcp.tool("t", { resolve: { greet } }, (_a, { greet }) => String(greet));
    const flow = new Flow(mcp, "t");
    await flow.round();
    expect(textOf(await flow.round({ login: CANCEL }))).toEqual({
      text: "anonymous (cancel)",
      isError: false,
    });
  });

  // The call cannot succeed any more: asking the user the next question would waste their answer.
  it.each([
    ["by the tool", (region: AnyResolver, confirm: AnyResolver) => ({ region, confirm })],
    [
      "by a dependant",
      (region: AnyResolver, confirm: AnyResolver) => ({
        plan: resolver("plan", { deps: { region, confirm } }, () => "plan"),
      }),
    ],
  ])(
    "a decline read plainly %s fails the call in that leg, though a later question is still open",
    async (_name, map) => {
      const mcp = quietServer();
      const region = resolver("region", () => elicit("Region?", z.object({ region: z.string() })));
      const login = resolver("login", () => elicit("User?", z.object({ name: z.string() })));
      const confirm = resolver("confirm", { deps: { login } }, ({ deps }) =>
        elicit(`Deploy as ${deps.login.name}?`, Confirm),
      );
      mcp.tool("t", { resolve: map(region, confirm) }, () => "deployed");
      const flow = new Flow(mcp, "t");
      expect(Object.keys(asked(await flow.round()))).toEqual(["region", "login"]);
      expect(await flow.round({ region: DECLINE, login: accept({ name: "octocat" }) })).toEqual({
        content: [{ type: "text", text: "Resolver 'region' could not resolve: elicitation was declined" }],
        isError: true,
        resultType: "complete",
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "srv", version: "" } },
      });
    },
  );
});

describe("the injected value is the schema's output", () => {
  const Profile = z.object({ name: z.string().trim(), tier: z.string().default("basic") });

  it("the rendered form shows the default and does not require the field", async () => {
    const mcp = quietServer();
    const profile = resolver("profile", () => elicit("Profile?", Profile));
    mcp.tool("t", { resolve: { profile } }, () => "");
    expect(asked(await new Flow(mcp, "t").round())).toEqual({
      profile: form("Profile?", { name: { type: "string" }, tier: { default: "basic", type: "string" } }, [
        "name",
      ]),
    });
  });

  // Regression: run.ts consumerValue() injects outcome.data, the client's raw content, instead of the value the
  // schema's validation produced: defaults are missing (typed `string`, undefined at run time),
  // transforms are skipped and undeclared fields reach the body. Storing the raw content is right; injecting it is not.
  it("a fresh answer reaches the body validated: default applied, trimmed, undeclared fields dropped", async () => {
    const mcp = quietServer();
    const profile = resolver("profile", () => elicit("Profile?", Profile));
    const seen: unknown[] = [];
    mcp.tool("t", { resolve: { profile } }, (_a, { profile }) => {
      seen.push(profile);
      return `${profile.name} (${profile.tier})`;
    });
    const flow = new Flow(mcp, "t");
    await flow.round();
    const done = await flow.round({ profile: accept({ name: "  Ada  ", extra: "injected" }) });
    expect(seen).toEqual([{ name: "Ada", tier: "basic" }]);
    expect(textOf(done).text).toBe("Ada (basic)");
  });

  // Regression: same cause, on the restore path (a recorded answer reused in a later round) and for dependants.
  it("a restored answer reaches dependants and the body validated too", async () => {
    const mcp = quietServer();
    const spy = spyState(mcp);
    const profile = resolver("profile", () => elicit("Profile?", Profile));
    const confirm = resolver("confirm", { deps: { profile } }, ({ deps }) =>
      elicit(`Create ${deps.profile.name} on ${deps.profile.tier}?`, Confirm),
    );
    mcp.tool("t", { resolve: { profile, confirm } }, (_a, { profile }) => JSON.stringify(profile));
    const flow = new Flow(mcp, "t");
    await flow.round();
    const second = await flow.round({ profile: accept({ name: " Ada " }) });
    expect(spy.last().outcomes.profile?.data).toEqual({ name: " Ada " }); // the raw content is what is stored
    expect(asked(second)).toEqual({ confirm: form("Create Ada on basic?", { ok: { type: "boolean" } }) });
    const done = await flow.round({ confirm: accept({ ok: true }) });
    expect(JSON.parse(textOf(done).text)).toEqual({ name: "Ada", tier: "basic" });
  });
});

describe("recorded outcomes", () => {
  it("a decline is recorded in the state and not asked again (#48, #63)", async () => {
    const mcp = quietServer();
    const spy = spyState(mcp);
    let asksOptional = 0;
    const optional = resolver("newsletter", () => {
      asksOptional++;
      return elicit("Subscribe?", z.object({ yes: z.boolean() }));
    });
    const email = resolver("email", { deps: { nl: withOutcome(optional) } }, () =>
      elicit("Email?", z.object({ email: z.string() })),
    );
    mcp.tool(
      "signup",
      { resolve: { newsletter: withOutcome(optional), email } },
      (_a, { newsletter, email }) => `${email.email} newsletter=${newsletter.action}`,
    );
    const flow = new Flow(mcp, "signup");
    expect(Object.keys(asked(await flow.round()))).toEqual(["newsletter"]);
    const second = await flow.round({ newsletter: DECLINE });
    expect(Object.keys(asked(second))).toEqual(["email"]); // not "newsletter" again
    const state = spy.last();
    expect(state.outcomes).toEqual({ newsletter: { action: "decline", q: state.outcomes.newsletter?.q } });
    expect(state.outcomes.newsletter?.q).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(state.asked).toEqual({ email: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/) });
    const done = await flow.round({ email: accept({ email: "a@b.c" }) });
    expect(textOf(done).text).toBe("a@b.c newsletter=decline");
    expect(asksOptional).toBe(3); // the body reran, the question did not
  });

  it("a cancel is recorded with its question digest too (#63)", async () => {
    const mcp = quietServer();
    const spy = spyState(mcp);
    const a = resolver("a", () => elicit("A?", z.object({ v: z.string() })));
    const b = resolver("b", { deps: { a: withOutcome(a) } }, () => elicit("B?", z.object({ v: z.string() })));
    mcp.tool("t", { resolve: { b } }, () => "ok");
    const flow = new Flow(mcp, "t");
    await flow.round();
    const firstAsked = spy.last().asked.a;
    await flow.round({ a: CANCEL });
    expect(spy.last().outcomes).toEqual({ a: { action: "cancel", q: firstAsked } });
  });
});

describe("resolver failures", () => {
  it("a resolver throwing ToolError fails the call with its message", async () => {
    const mcp = quietServer();
    const quota = resolver("quota", { args: ["gb"] }, ({ args }) => {
      if (Number(args.gb) > 100) throw new ToolError(`Quota exceeded: ${String(args.gb)} GB`);
      return elicit("Confirm?", Confirm);
    });
    mcp.tool("t", { input: z.object({ gb: z.number() }), resolve: { quota } }, () => "ok");
    expect(textOf(await new Flow(mcp, "t", { gb: 500 }).round())).toEqual({
      text: "Quota exceeded: 500 GB",
      isError: true,
    });
  });

  it("a resolver throwing anything else fails the call without leaking the message, and logs it", async () => {
    const logger = recordingLogger();
    const mcp = quietServer("srv", { logger });
    const broken = resolver("broken", () => {
      throw new Error("db password is hunter2");
    });
    mcp.tool("t", { resolve: { broken } }, () => "ok");
    const result = await new Flow(mcp, "t").round();
    expect(textOf(result)).toEqual({ text: "Error executing tool t", isError: true });
    expect(JSON.stringify(result)).not.toContain("hunter2");
    expect(logger.lines.some((l) => l.startsWith("error: tool t failed") && l.includes("hunter2"))).toBe(
      true,
    );
  });

  // The key names the question in inputRequests; an answer keyed "__proto__" would be lost on either
  // side (it sets a prototype on assignment), so the key is refused where the resolver is made.
  it("a resolver keyed '__proto__' is refused when it is made", () => {
    expect(() => resolver("__proto__", () => elicit("Odd?", Confirm))).toThrow(
      new InvalidSignature("Resolver key '__proto__' cannot be answered: no response can be keyed by it"),
    );
  });
});

describe("unusable answers fail the call", () => {
  function server() {
    const mcp = quietServer();
    const qty = resolver("qty", () => elicit("How many?", z.object({ n: z.number().int().min(1) })));
    mcp.tool("buy", { resolve: { qty } }, (_a, { qty }) => `bought ${qty.n}`);
    return mcp;
  }

  it("accept without content is an error, not a cancel (#43)", async () => {
    const flow = new Flow(server(), "buy");
    await flow.round();
    expect(textOf(await flow.round({ qty: { action: "accept" } }))).toEqual({
      text: "Resolver 'qty' received an accepted elicitation with no content",
      isError: true,
    });
  });

  it("a schema-mismatched fresh answer fails the call naming the resolver, with no zod text (#51)", async () => {
    const flow = new Flow(server(), "buy");
    await flow.round();
    const result = await flow.round({ qty: accept({ n: 0 }) });
    const { text, isError } = textOf(result);
    expect(isError).toBe(true);
    expect(text).toBe("Resolver 'qty' received content that does not match the requested schema");
    expect(JSON.stringify(result)).not.toMatch(/too_small|Too small|expected|zod|issues|>=/i);
  });

  it("a wrong-typed field fails the same way", async () => {
    const flow = new Flow(server(), "buy");
    await flow.round();
    expect(textOf(await flow.round({ qty: accept({ n: "three" }) }))).toEqual({
      text: "Resolver 'qty' received content that does not match the requested schema",
      isError: true,
    });
  });

  it("a non-elicitation answer (a sampling result) fails with 'non-elicitation response' (#40)", async () => {
    const flow = new Flow(server(), "buy");
    await flow.round();
    expect(textOf(await flow.round({ qty: SAMPLED("five") }))).toEqual({
      text: "Resolver 'qty' received a non-elicitation response",
      isError: true,
    });
  });

  it("the server stays usable after a failed call", async () => {
    const mcp = server();
    const bad = new Flow(mcp, "buy");
    await bad.round();
    await bad.round({ qty: accept({ n: -1 }) });
    const good = new Flow(mcp, "buy");
    await good.round();
    expect(textOf(await good.round({ qty: accept({ n: 2 }) })).text).toBe("bought 2");
  });
});

describe("resolvers and a hand-built InputRequiredResult do not mix", () => {
  it("a body returning an InputRequiredResult at run time fails the call (#58)", async () => {
    const mcp = quietServer();
    const who = resolver("who", () => elicit("Who?", z.object({ name: z.string() })));
    const sneaky: InputRequiredResult = {
      resultType: "input_required",
      inputRequests: { more: form("More?", { x: { type: "string" } }) as never },
      requestState: "hand-built",
    };
    // The types refuse this (see types.test.ts); an untyped body can still do it at run time.
    const body = (() => sneaky) as unknown as () => string;
    mcp.tool("t", { resolve: { who } }, body);
    const flow = new Flow(mcp, "t");
    await flow.round();
    const result = await flow.round({ who: accept({ name: "x" }) });
    expect(textOf(result)).toEqual({
      text:
        "Tool t declares resolvers, so its multi-round flow is driven by its resolvers; it cannot also " +
        "return an InputRequiredResult from its body (drive the flow either by resolvers or by the body)",
      isError: true,
    });
  });

  it("the same happens on the first leg when no resolver asks anything", async () => {
    const mcp = quietServer();
    const pure = resolver("pure", () => 1);
    const body = (() => ({ resultType: "input_required", requestState: "x" })) as unknown as () => string;
    mcp.tool("t", { resolve: { pure } }, body);
    const result = textOf(await new Flow(mcp, "t").round());
    expect(result.isError).toBe(true);
    expect(result.text).toContain("either by resolvers or by the body");
  });
});
