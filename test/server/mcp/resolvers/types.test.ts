import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import {
  type ElicitOutcome,
  elicit,
  elicitUrl,
  listRoots,
  type ResolvedValue,
  type Resolver,
  resolver,
  sample,
  withOutcome,
} from "../../../../src/server/mcp/index.js";
import type {
  CreateMessageResult,
  InputRequiredResult,
  ListRootsResult,
} from "../../../../src/types/index.js";
import { quietServer } from "../helpers.js";

const Region = z.object({ region: z.string() });
const Size = z.object({ gb: z.number() });
const TWO_KINDS = "Error: a resolver asks at most one kind of question; split it into two resolvers";

// Checked by `tsc` (the `@ts-expect-error` lines fail the typecheck if they stop being errors);
// at run time these tests only register the tools.
describe("resolver types", () => {
  it("a resolver body that can return two kinds of question is rejected (#5, #12, #16)", () => {
    const flip = Math.random() > 2;
    const twoKinds = resolver("two", () =>
      flip ? elicit("Region?", Region) : sample({ prompt: "Pick a region", maxTokens: 5 }),
    );
    expectTypeOf(twoKinds).toEqualTypeOf<typeof TWO_KINDS>();
    const formOrUrl = resolver("form_or_url", () =>
      flip ? elicit("Region?", Region) : elicitUrl("Sign in", "https://a.example/"),
    );
    expectTypeOf(formOrUrl).toEqualTypeOf<typeof TWO_KINDS>();

    const mcp = quietServer();
    // @ts-expect-error: the error type is not a resolver, so no tool accepts it.
    mcp.tool("bad", { resolve: { twoKinds } }, () => "");
  });

  it("one kind with two shapes, or a question or a plain value, is fine (#12, #17)", () => {
    const flip = Math.random() > 2;
    const twoForms = resolver("two_forms", () => (flip ? elicit("Region?", Region) : elicit("Size?", Size)));
    expectTypeOf(twoForms).toEqualTypeOf<
      Resolver<
        { region: string } | { gb: number },
        ElicitOutcome<{ region: string }> | ElicitOutcome<{ gb: number }>
      >
    >();
    const maybe = resolver("maybe", () => (flip ? elicit("Region?", Region) : { region: "default" }));
    expectTypeOf<ResolvedValue<typeof maybe>>().toEqualTypeOf<{ region: string }>();
  });

  it("consumers receive the unwrapped value, or the outcome through withOutcome", () => {
    const askRegion = resolver("ask_region", () => elicit("Region?", Region));
    const signIn = resolver("sign_in", () => elicitUrl("Sign in", "https://a.example/"));
    const summary = resolver("summary", () => sample({ prompt: "Hi", maxTokens: 5 }));
    const roots = resolver("roots", () => listRoots());
    const pure = resolver("pure", () => new Date(0));
    expectTypeOf<ResolvedValue<typeof askRegion>>().toEqualTypeOf<{ region: string }>();
    expectTypeOf<
      ResolvedValue<ReturnType<typeof withOutcome<{ region: string }, ElicitOutcome<{ region: string }>>>>
    >().toEqualTypeOf<ElicitOutcome<{ region: string }>>();
    expectTypeOf<ResolvedValue<typeof signIn>>().toEqualTypeOf<{ action: "accept" }>();
    expectTypeOf<ResolvedValue<typeof summary>>().toEqualTypeOf<CreateMessageResult>();
    expectTypeOf<ResolvedValue<typeof roots>>().toEqualTypeOf<ListRootsResult>();
    expectTypeOf<ResolvedValue<typeof pure>>().toEqualTypeOf<Date>();

    const mcp = quietServer();
    mcp.tool(
      "typed",
      {
        input: z.object({ name: z.string() }),
        resolve: { region: askRegion, outcome: withOutcome(askRegion), summary, roots, pure },
      },
      ({ name }, { region, outcome, summary, roots, pure }) => {
        expectTypeOf(name).toEqualTypeOf<string>();
        expectTypeOf(region).toEqualTypeOf<{ region: string }>();
        expectTypeOf(outcome).toEqualTypeOf<ElicitOutcome<{ region: string }>>();
        expectTypeOf(summary).toEqualTypeOf<CreateMessageResult>();
        expectTypeOf(roots).toEqualTypeOf<ListRootsResult>();
        expectTypeOf(pure).toEqualTypeOf<Date>();
        return "";
      },
    );
  });

  it("a resolver that never asks gives its consumers the type it returns (#85, #86)", () => {
    const count = resolver("count", () => 42);
    expectTypeOf<ResolvedValue<typeof count>>().toEqualTypeOf<number>();
    resolver("double", { deps: { count } }, ({ deps }) => {
      expectTypeOf(deps.count).toEqualTypeOf<number>();
      return 0;
    });
    const mcp = quietServer();
    mcp.tool("echo", { resolve: { count } }, (_a, { count }) => count);
  });

  it("a dependency's value is typed in the dependant's body", () => {
    const login = resolver("login", () => elicit("User?", z.object({ username: z.string() })));
    resolver("confirm", { deps: { user: login, full: withOutcome(login) } }, ({ deps }) => {
      expectTypeOf(deps.user).toEqualTypeOf<{ username: string }>();
      expectTypeOf(deps.full).toEqualTypeOf<ElicitOutcome<{ username: string }>>();
      return elicit(`As ${deps.user.username}?`, z.object({ ok: z.boolean() }));
    });
  });

  it("a tool with resolvers cannot return an InputRequiredResult from its body (#14)", () => {
    const askRegion = resolver("ask_region", () => elicit("Region?", Region));
    const irr: InputRequiredResult = { resultType: "input_required", requestState: "hand-built" };
    const mcp = quietServer();
    // @ts-expect-error: resolvers own the input_required channel of this tool.
    mcp.tool("mixed", { resolve: { region: askRegion } }, () => irr);
    // @ts-expect-error: not even as one arm of a union.
    mcp.tool("mixed_union", { resolve: { region: askRegion } }, () => (Math.random() > 2 ? irr : "done"));
    // Without resolvers, the hand-built form is allowed.
    mcp.tool("manual", {}, () => irr);
  });
});
