import { describe, expect, it } from "vitest";
import { z } from "zod";
import { elicit, resolver, withOutcome } from "../../../../src/server/mcp/index.js";
import { quietServer } from "../helpers.js";
import { accept, asked, Flow, FORM, form, spyState, textOf } from "./helpers.js";

const STRING = { type: "string" };
const BOOLEAN = { type: "boolean" };

describe("resolvers without questions", () => {
  it("a resolver fills its parameter without any client interaction (#85)", async () => {
    const mcp = quietServer();
    const owner = resolver("owner", { args: ["repo"] }, ({ args }) => String(args.repo).split("/")[0]);
    mcp.tool(
      "whose",
      { input: z.object({ repo: z.string() }), resolve: { owner } },
      ({ repo }, { owner }) => `${repo} belongs to ${owner}`,
    );
    // No capabilities at all: nothing is asked, so nothing is needed.
    const result = await new Flow(mcp, "whose", { repo: "acme/rockets" }, {}).round();
    expect(result).toEqual({
      content: [{ type: "text", text: "acme/rockets belongs to acme" }],
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "srv", version: "" } },
    });
  });

  it("a resolver may depend on another resolver's value (#86) and sees the tool arguments (#19)", async () => {
    const mcp = quietServer();
    const base = resolver("base", { args: ["n"] }, ({ args }) => Number(args.n) * 10);
    const plusOne = resolver("plus_one", { deps: { base }, args: ["n"] }, ({ deps, args }) => ({
      sum: deps.base + 1,
      n: args.n,
    }));
    mcp.tool("calc", { input: z.object({ n: z.number() }), resolve: { v: plusOne } }, (_args, { v }) => {
      const { n, sum } = v;
      return `${n} → ${sum}`;
    });
    expect(textOf(await new Flow(mcp, "calc", { n: 4 }).round()).text).toBe("4 → 41");
  });

  it("`args` limits what a resolver sees; without it the resolver sees every validated argument", async () => {
    const mcp = quietServer();
    const seen: Record<string, unknown>[] = [];
    const limited = resolver("limited", { args: ["a"] }, ({ args }) => {
      seen.push({ ...args });
      return 1;
    });
    const open = resolver("open", ({ args }) => {
      seen.push({ ...args });
      return 2;
    });
    mcp.tool(
      "t",
      { input: z.object({ a: z.string(), b: z.string() }), resolve: { limited, open } },
      () => "ok",
    );
    await new Flow(mcp, "t", { a: "x", b: "y" }).round();
    expect(seen).toEqual([{ a: "x" }, { a: "x", b: "y" }]);
  });

  it("a sync resolver works (#21) and receives the request context (#24)", async () => {
    const mcp = quietServer();
    const who = resolver("who", ({ ctx }) => ctx.clientInfo?.name ?? "?");
    mcp.tool("t", { resolve: { who } }, (_a, { who }) => String(who));
    expect(textOf(await new Flow(mcp, "t").round()).text).toBe("test-client");
  });

  it("the resolver and the body see the same validated default; the default runs once (#26)", async () => {
    const mcp = quietServer();
    let made = 0;
    const Input = z.object({
      tag: z.string().default(() => `tag-${++made}`),
    });
    const seen = resolver("seen", { args: ["tag"] }, ({ args }) => String(args.tag));
    mcp.tool("t", { input: Input, resolve: { seen } }, ({ tag }, { seen }) => `${tag}|${seen}`);
    const before = made; // rendering the advertised JSON Schema may evaluate the default once
    const { text } = textOf(await new Flow(mcp, "t", {}).round());
    expect(made).toBe(before + 1);
    expect(text).toBe(`tag-${made}|tag-${made}`);
  });

  it("a resolver may return a non-JSON value (a Date, a class instance); it is not persisted (#41, #23)", async () => {
    class Money {
      constructor(
        readonly cents: number,
        readonly currency: string,
      ) {}
      format(): string {
        return `${(this.cents / 100).toFixed(2)} ${this.currency}`;
      }
    }
    const mcp = quietServer();
    const spy = spyState(mcp);
    let runs = 0;
    const when = resolver("when", () => {
      runs++;
      return new Date(Date.UTC(2026, 6, 28));
    });
    const price = resolver("price", () => new Money(12345, "EUR"));
    const ok = resolver("ok", () => elicit("Go?", z.object({ go: z.boolean() })));
    mcp.tool("t", { resolve: { when, price, ok } }, (_a, { when, price, ok }) =>
      ok.go ? `${when.toISOString().slice(0, 10)} ${price.format()}` : "no",
    );
    const flow = new Flow(mcp, "t");
    expect(asked(await flow.round())).toEqual({ ok: form("Go?", { go: BOOLEAN }) });
    expect(spy.last()).toEqual({ v: 1, outcomes: {}, asked: { ok: expect.any(String) } });
    const done = await flow.round({ ok: accept({ go: true }) });
    expect(textOf(done)).toEqual({ text: "2026-07-28 123.45 EUR", isError: false });
    expect(runs).toBe(2); // recomputed on every leg, never stored
  });
});

describe("one leg", () => {
  it("a shared dependency runs once per leg, however many consumers it has (#20, #25)", async () => {
    const mcp = quietServer();
    let runs = 0;
    const config = resolver("config", () => {
      runs++;
      return { region: "eu-west-1" };
    });
    const a = resolver("a", { deps: { config } }, ({ deps }) => `a:${deps.config.region}`);
    const b = resolver("b", { deps: { config } }, ({ deps }) => `b:${deps.config.region}`);
    const c = resolver("c", { deps: { a, b, config } }, ({ deps }) => `${String(deps.a)}+${String(deps.b)}`);
    mcp.tool("t", { resolve: { a, b, c, config } }, (_x, { a, b, c }) => [a, b, c].map(String).join(" "));
    const flow = new Flow(mcp, "t");
    expect(textOf(await flow.round()).text).toBe("a:eu-west-1 b:eu-west-1 a:eu-west-1+b:eu-west-1");
    expect(runs).toBe(1);
    await flow.round();
    expect(runs).toBe(2);
  });

  it("a shared eliciting dependency is asked once, under its own key (#20)", async () => {
    const mcp = quietServer();
    let runs = 0;
    const who = resolver("who", () => {
      runs++;
      return elicit("Who?", z.object({ name: z.string() }));
    });
    const greet = resolver("greet", { deps: { who } }, ({ deps }) => `hello ${deps.who.name}`);
    const shout = resolver("shout", { deps: { who } }, ({ deps }) => deps.who.name.toUpperCase());
    mcp.tool("t", { resolve: { greet, shout, who } }, (_x, { greet, shout }) => `${greet} ${shout}`);
    const flow = new Flow(mcp, "t");
    expect(asked(await flow.round())).toEqual({ who: form("Who?", { name: STRING }) });
    expect(runs).toBe(1);
    expect(textOf(await flow.round({ who: accept({ name: "ada" }) })).text).toBe("hello ada ADA");
    expect(runs).toBe(2);
  });
});

describe("across rounds", () => {
  it("a chain asks each question exactly once while the bodies rerun (#34: login 3×, confirm 2×)", async () => {
    const mcp = quietServer();
    const runs = { login: 0, confirm: 0 };
    const login = resolver("login", () => {
      runs.login++;
      return elicit("Username?", z.object({ username: z.string() }));
    });
    const confirm = resolver("confirm", { deps: { user: login } }, ({ deps }) => {
      runs.confirm++;
      return elicit(`As ${deps.user.username}?`, z.object({ ok: z.boolean() }));
    });
    let bodies = 0;
    mcp.tool("deploy", { resolve: { user: login, confirm } }, (_a, { user, confirm }) => {
      bodies++;
      return confirm.ok ? `deployed as ${user.username}` : "stopped";
    });
    const flow = new Flow(mcp, "deploy");
    const questions: string[] = [];
    const note = (result: Record<string, unknown>) => {
      for (const request of Object.values(asked(result)))
        questions.push((request as { params: { message: string } }).params.message);
      return result;
    };

    const r1 = note(await flow.round());
    expect(asked(r1)).toEqual({ login: form("Username?", { username: STRING }) });
    const r2 = note(await flow.round({ login: accept({ username: "octocat" }) }));
    expect(asked(r2)).toEqual({ confirm: form("As octocat?", { ok: BOOLEAN }) });
    const r3 = await flow.round({ confirm: accept({ ok: true }) });
    expect(textOf(r3)).toEqual({ text: "deployed as octocat", isError: false });

    expect(questions).toEqual(["Username?", "As octocat?"]);
    expect(runs).toEqual({ login: 3, confirm: 2 });
    expect(bodies).toBe(1);
  });

  it("two independent questions arrive in the same round and one retry completes (#35, #36)", async () => {
    const mcp = quietServer();
    const region = resolver("region", () => elicit("Region?", z.object({ region: z.string() })));
    const size = resolver("size", () => elicit("Size?", z.object({ gb: z.number() })));
    let bodies = 0;
    mcp.tool("provision", { resolve: { region, size } }, (_a, { region, size }) => {
      bodies++;
      return `${size.gb} GB in ${region.region}`;
    });
    const flow = new Flow(mcp, "provision");
    const first = await flow.round();
    expect(asked(first)).toEqual({
      region: form("Region?", { region: STRING }),
      size: form("Size?", { gb: { type: "number" } }),
    });
    expect(bodies).toBe(0); // no side effect before the answers
    const done = await flow.round({ region: accept({ region: "eu" }), size: accept({ gb: 20 }) });
    expect(textOf(done)).toEqual({ text: "20 GB in eu", isError: false });
    expect(flow.results).toHaveLength(2); // exactly two legs
  });

  it("nested independent dependencies batch into one round (#44)", async () => {
    const mcp = quietServer();
    const first = resolver("first", () => elicit("First name?", z.object({ v: z.string() })));
    const last = resolver("last", () => elicit("Last name?", z.object({ v: z.string() })));
    const city = resolver("city", () => elicit("City?", z.object({ v: z.string() })));
    const fullName = resolver(
      "full",
      { deps: { first, last } },
      ({ deps }) => `${deps.first.v} ${deps.last.v}`,
    );
    const address = resolver(
      "address",
      { deps: { full: fullName, city } },
      ({ deps }) => `${String(deps.full)}, ${deps.city.v}`,
    );
    mcp.tool("label", { resolve: { address } }, (_a, { address }) => String(address));
    const flow = new Flow(mcp, "label");
    expect(Object.keys(asked(await flow.round())).sort()).toEqual(["city", "first", "last"]);
    const done = await flow.round({
      first: accept({ v: "Ada" }),
      last: accept({ v: "Lovelace" }),
      city: accept({ v: "London" }),
    });
    expect(textOf(done).text).toBe("Ada Lovelace, London");
  });

  it("a question whose dependency is pending waits; its independent sibling is asked now", async () => {
    const mcp = quietServer();
    const user = resolver("user", () => elicit("User?", z.object({ name: z.string() })));
    const confirm = resolver("confirm", { deps: { user } }, ({ deps }) =>
      elicit(`Really ${deps.user.name}?`, z.object({ ok: z.boolean() })),
    );
    const note = resolver("note", () => elicit("Note?", z.object({ text: z.string() })));
    mcp.tool("t", { resolve: { confirm, note } }, (_a, { confirm, note }) => `${confirm.ok} ${note.text}`);
    const flow = new Flow(mcp, "t");
    expect(Object.keys(asked(await flow.round())).sort()).toEqual(["note", "user"]);
    const r2 = await flow.round({ user: accept({ name: "bo" }), note: accept({ text: "hi" }) });
    expect(asked(r2)).toEqual({ confirm: form("Really bo?", { ok: BOOLEAN }) });
    expect(textOf(await flow.round({ confirm: accept({ ok: true }) })).text).toBe("true hi");
  });

  it("a 4-deep chain keeps early answers: the first question is asked once (#45)", async () => {
    const mcp = quietServer();
    const spy = spyState(mcp);
    const asks: Record<string, number> = {};
    const V = z.object({ v: z.string() });
    const count = (key: string) => {
      asks[key] = (asks[key] ?? 0) + 1;
    };
    const s1 = resolver("s1", () => {
      count("s1");
      return elicit("s1?", V);
    });
    const s2 = resolver("s2", { deps: { prev: s1 } }, ({ deps }) => {
      count("s2");
      return elicit(`s2 after ${deps.prev.v}?`, V);
    });
    const s3 = resolver("s3", { deps: { prev: s2 } }, ({ deps }) => {
      count("s3");
      return elicit(`s3 after ${deps.prev.v}?`, V);
    });
    const s4 = resolver("s4", { deps: { prev: s3 } }, ({ deps }) => {
      count("s4");
      return elicit(`s4 after ${deps.prev.v}?`, V);
    });
    mcp.tool("t", { resolve: { s4 } }, (_a, { s4 }) => `done ${s4.v}`);
    const flow = new Flow(mcp, "t");
    const messages: string[] = [];
    let result = await flow.round();
    for (const [key, value] of [
      ["s1", "A"],
      ["s2", "B"],
      ["s3", "C"],
      ["s4", "D"],
    ] as const) {
      const requests = asked(result);
      expect(Object.keys(requests)).toEqual([key]);
      messages.push((requests[key] as { params: { message: string } }).params.message);
      result = await flow.round({ [key]: accept({ v: value }) });
    }
    expect(textOf(result).text).toBe("done D");
    expect(messages).toEqual(["s1?", "s2 after A?", "s3 after B?", "s4 after C?"]);
    // Each body ran once per leg from the leg it was first reached, but asked its question once.
    expect(asks).toEqual({ s1: 5, s2: 4, s3: 3, s4: 2 });
    // The early answer travels, unchanged, through every later state.
    const s1Entries = spy.outbound
      .filter((text): text is string => text !== undefined)
      .slice(1)
      .map((text) => (JSON.parse(text) as { outcomes: Record<string, unknown> }).outcomes.s1);
    expect(s1Entries).toHaveLength(3);
    expect(new Set(s1Entries.map((e) => JSON.stringify(e))).size).toBe(1);
    expect(s1Entries[0]).toEqual({ action: "accept", data: { v: "A" }, q: expect.any(String) });
  });

  it("a schema built at run time from the arguments restores across rounds (#57)", async () => {
    const mcp = quietServer();
    const pick = resolver("pick", { args: ["options"] }, ({ args }) => {
      const options = args.options as [string, ...string[]];
      return elicit(`Pick one of ${options.join(", ")}`, z.object({ choice: z.enum(options) }));
    });
    const confirm = resolver("confirm", { deps: { pick } }, ({ deps }) =>
      elicit(`Use ${deps.pick.choice}?`, z.object({ ok: z.boolean() })),
    );
    mcp.tool(
      "choose",
      { input: z.object({ options: z.array(z.string()).min(1) }), resolve: { pick, confirm } },
      (_a, { pick, confirm }) => (confirm.ok ? pick.choice : "none"),
    );
    const flow = new Flow(mcp, "choose", { options: ["red", "green"] });
    expect(asked(await flow.round())).toEqual({
      pick: form("Pick one of red, green", { choice: { type: "string", enum: ["red", "green"] } }),
    });
    expect(Object.keys(asked(await flow.round({ pick: accept({ choice: "green" }) })))).toEqual(["confirm"]);
    expect(textOf(await flow.round({ confirm: accept({ ok: true }) })).text).toBe("green");
    // An answer outside the run-time enum is a schema mismatch.
    const bad = new Flow(mcp, "choose", { options: ["red"] });
    await bad.round();
    expect(textOf(await bad.round({ pick: accept({ choice: "blue" }) })).isError).toBe(true);
  });

  it("a recorded answer takes precedence over a re-sent one", async () => {
    const mcp = quietServer();
    const login = resolver("login", () => elicit("User?", z.object({ name: z.string() })));
    const confirm = resolver("confirm", { deps: { login } }, () =>
      elicit("Sure?", z.object({ ok: z.boolean() })),
    );
    mcp.tool("t", { resolve: { login, confirm } }, (_a, { login }) => login.name);
    const flow = new Flow(mcp, "t");
    await flow.round();
    await flow.round({ login: accept({ name: "first" }) });
    const done = await flow.round({ login: accept({ name: "second" }), confirm: accept({ ok: true }) });
    expect(textOf(done).text).toBe("first");
  });

  it("withOutcome and the plain view of one resolver agree in one leg", async () => {
    const mcp = quietServer();
    const ask = resolver("ask", () => elicit("Name?", z.object({ name: z.string() })));
    mcp.tool("t", { resolve: { plain: ask, full: withOutcome(ask) } }, (_a, { plain, full }) =>
      JSON.stringify({ plain, full }),
    );
    const flow = new Flow(mcp, "t", {}, FORM);
    expect(Object.keys(asked(await flow.round()))).toEqual(["ask"]);
    expect(textOf(await flow.round({ ask: accept({ name: "x" }) })).text).toBe(
      '{"plain":{"name":"x"},"full":{"action":"accept","content":{"name":"x"}}}',
    );
  });
});
