import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type AnyResolver,
  elicit,
  InvalidSignature,
  resolver,
  withOutcome,
} from "../../../../src/server/mcp/index.js";
import { quietServer } from "../helpers.js";
import { asked, Flow, FORM, form, textOf } from "./helpers.js";

const Name = z.object({ name: z.string() });

function registrationError(fn: () => unknown): InvalidSignature {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidSignature);
    return error as InvalidSignature;
  }
  throw new Error("expected registration to throw InvalidSignature");
}

describe("registration checks (python #1, #4, #10, #46)", () => {
  it("a cycle through a forward reference is refused at registration (#1)", () => {
    const mcp = quietServer();
    // `deps` as a function is the only way to point at a resolver declared later: and to build a cycle.
    const a: AnyResolver = resolver("a", { deps: () => ({ b }) }, () => 1);
    const b: AnyResolver = resolver("b", { deps: () => ({ a }) }, () => 2);
    const error = registrationError(() => mcp.tool("t", { resolve: { a } }, () => "never"));
    expect(error.message).toBe("Tool t: resolver 'a' has a cyclic dependency (a → b → a)");
    // Nothing half-registered: the tool is not listed and the name is still free.
    mcp.tool("t", {}, () => "fine");
  });

  it("a resolver depending on itself is a cycle", () => {
    const mcp = quietServer();
    const self: AnyResolver = resolver("self", { deps: () => ({ self }) }, () => 1);
    expect(registrationError(() => mcp.tool("t", { resolve: { self } }, () => "")).message).toBe(
      "Tool t: resolver 'self' has a cyclic dependency (self → self)",
    );
  });

  it("a diamond is not a cycle", async () => {
    const mcp = quietServer();
    const root = resolver("root", () => 1);
    const left = resolver("left", { deps: { root } }, ({ deps }) => deps.root + 1);
    const right = resolver("right", { deps: { root } }, ({ deps }) => deps.root + 2);
    const top = resolver("top", { deps: { left, right } }, ({ deps }) => deps.left * deps.right);
    mcp.tool("t", { resolve: { top, root } }, (_args, { top, root }) => `${top}/${root}`);
    expect(textOf(await new Flow(mcp, "t").round())).toEqual({ text: "6/1", isError: false });
  });

  it("two different resolvers sharing a key are refused: keys are wire keys (#46)", () => {
    const mcp = quietServer();
    const first = resolver("region", () => elicit("Region?", z.object({ region: z.string() })));
    const second = resolver("region", () => elicit("Zone?", z.object({ zone: z.string() })));
    expect(registrationError(() => mcp.tool("t", { resolve: { first, second } }, () => "")).message).toBe(
      "Tool t: two different resolvers share the key 'region'; keys are wire keys and must be unique",
    );
  });

  it("a key clash deep in the graph is found too", () => {
    const mcp = quietServer();
    const inner = resolver("x", () => 1);
    const outer = resolver("y", { deps: { inner } }, () => 2);
    const impostor = resolver("x", () => 3);
    expect(
      registrationError(() => mcp.tool("t", { resolve: { outer, impostor } }, () => "")).message,
    ).toContain("share the key 'x'");
  });

  it("one resolver reached twice (directly, as a dependency, through withOutcome) is not a clash", async () => {
    const mcp = quietServer();
    const ask = resolver("ask", () => elicit("Name?", Name));
    const greet = resolver("greet", { deps: { who: ask } }, ({ deps }) => `hi ${deps.who.name}`);
    mcp.tool("t", { resolve: { ask, outcome: withOutcome(ask), greet } }, (_a, { ask, outcome, greet }) =>
      JSON.stringify([ask.name, outcome.action, greet]),
    );
    const flow = new Flow(mcp, "t");
    expect(asked(await flow.round())).toEqual({ ask: form("Name?", { name: { type: "string" } }) });
    const done = await flow.round({ ask: { action: "accept", content: { name: "ada" } } });
    expect(textOf(done).text).toBe('["ada","accept","hi ada"]');
  });

  it("distinct keys from one factory do not collide (#30, #46)", async () => {
    const mcp = quietServer();
    const ask = (field: string) =>
      resolver(`ask_${field}`, () => elicit(`${field}?`, z.object({ [field]: z.string() })));
    mcp.tool("t", { resolve: { a: ask("a"), b: ask("b") } }, (_x, { a, b }) => JSON.stringify([a, b]));
    const flow = new Flow(mcp, "t");
    expect(Object.keys(asked(await flow.round())).sort()).toEqual(["ask_a", "ask_b"]);
    const done = await flow.round({
      ask_a: { action: "accept", content: { a: "1" } },
      ask_b: { action: "accept", content: { b: "2" } },
    });
    expect(textOf(done).text).toBe('[{"a":"1"},{"b":"2"}]');
  });

  it("`args` naming an argument the input lacks is refused (#4)", () => {
    const mcp = quietServer();
    const reads = resolver("reads", { args: ["nmae"] }, ({ args }) => String(args.nmae));
    expect(
      registrationError(() => mcp.tool("t", { input: Name, resolve: { reads } }, () => "")).message,
    ).toBe("Tool t: resolver 'reads' reads argument 'nmae', which the input does not declare");
  });

  it("`args` on a tool without input is refused", () => {
    const mcp = quietServer();
    const reads = resolver("reads", { args: ["name"] }, () => 1);
    expect(registrationError(() => mcp.tool("t", { resolve: { reads } }, () => "")).message).toContain(
      "reads argument 'name'",
    );
  });

  it("`args` is checked on dependencies too", () => {
    const mcp = quietServer();
    const deep = resolver("deep", { args: ["missing"] }, () => 1);
    const top = resolver("top", { deps: { deep } }, () => 2);
    expect(
      registrationError(() => mcp.tool("t", { input: Name, resolve: { top } }, () => "")).message,
    ).toContain("resolver 'deep' reads argument 'missing'");
  });

  it("a non-resolver in `resolve` is refused", () => {
    const mcp = quietServer();
    const notAResolver = () => elicit("Name?", Name);
    expect(
      registrationError(() =>
        mcp.tool("t", { resolve: { who: notAResolver as unknown as AnyResolver } }, () => ""),
      ).message,
    ).toBe("Tool t: resolve.who is not a resolver (use resolver(...))");
  });

  it("a non-resolver among a resolver's deps is refused", () => {
    const mcp = quietServer();
    const bad = resolver("bad", { deps: () => ({ x: 42 as unknown as AnyResolver }) }, () => 1);
    expect(registrationError(() => mcp.tool("t", { resolve: { bad } }, () => "")).message).toBe(
      "Tool t: resolver 'bad' dependency 'x' is not a resolver",
    );
  });

  it("a resolver needs a key and a body", () => {
    expect(() => resolver("", () => 1)).toThrow(InvalidSignature);
    expect(() => resolver("k", {}, undefined as unknown as () => 1)).toThrow(
      "Resolver 'k' needs a body function",
    );
  });

  it("the wire key is exactly the declared key, independent of the consumer's parameter name (#13)", async () => {
    const mcp = quietServer();
    const askRegion = resolver("provision:region", () => elicit("Region?", z.object({ region: z.string() })));
    mcp.tool("t", { resolve: { whatever: askRegion } }, (_a, { whatever }) => whatever.region);
    const first = await new Flow(mcp, "t", {}, FORM).round();
    expect(Object.keys(asked(first))).toEqual(["provision:region"]);
  });
});
