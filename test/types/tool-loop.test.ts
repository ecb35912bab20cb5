import { describe, expect, it } from "vitest";
import {
  describeInputRequestsProblem,
  describeToolLoopProblem,
  type SamplingMessage,
} from "../../src/types/index.js";
import followUp from "./fixtures/spec-examples/CreateMessageRequestParams/follow-up-with-tool-results.json" with {
  type: "json",
};

const ask: SamplingMessage = { role: "user", content: { type: "text", text: "Weather in Paris and Rome?" } };
const use = (...ids: string[]): SamplingMessage => ({
  role: "assistant",
  content: ids.map((id) => ({ type: "tool_use", id, name: "weather", input: { city: id } })),
});
const answer = (...ids: string[]): SamplingMessage => ({
  role: "user",
  content: ids.map((toolUseId) => ({ type: "tool_result", toolUseId, content: [] })),
});
const text = (role: "user" | "assistant", t: string): SamplingMessage => ({
  role,
  content: { type: "text", text: t },
});

describe("describeToolLoopProblem", () => {
  it.each<[string, SamplingMessage[]]>([
    ["a plain conversation", [ask, text("assistant", "Sunny"), text("user", "Thanks")]],
    [
      "a tool loop answered in any order",
      [ask, use("a", "b"), answer("b", "a"), text("assistant", "Both sunny")],
    ],
    ["two rounds of tools", [ask, use("a"), answer("a"), use("b"), answer("b")]],
    [
      "a single tool_result block (not an array)",
      [ask, use("a"), { role: "user", content: { type: "tool_result", toolUseId: "a", content: [] } }],
    ],
    // Nothing came after it yet: the answer is the next round's (the Python and official TS checks agree).
    ["a last tool_use not answered yet", [ask, use("a")]],
    ["the spec's follow-up with tool results", followUp.messages as SamplingMessage[]],
  ])("accepts %s", (_label, messages) => {
    expect(describeToolLoopProblem(messages)).toBeUndefined();
  });

  it.each<[string, SamplingMessage[], string]>([
    [
      "a tool_result next to text",
      [
        ask,
        use("a"),
        { role: "user", content: [...(answer("a").content as []), { type: "text", text: "and?" }] },
      ],
      'messages[2]: tool_result "a" must not share a message with other content',
    ],
    [
      "a tool_result with no tool_use before it",
      [ask, answer("a")],
      'messages[1]: tool_result "a" answers no tool_use of the message before it',
    ],
    [
      "a tool_result first of all",
      [answer("a")],
      'messages[0]: tool_result "a" answers no tool_use of the message before it',
    ],
    [
      "a tool_result for an id the message before did not use",
      [ask, use("a"), answer("a", "z")],
      'messages[2]: tool_result "z" answers no tool_use of the message before it',
    ],
    [
      "a tool_use left unanswered",
      [ask, use("a", "b"), answer("a")],
      'messages[2]: tool_use "b" of the message before it must be answered first',
    ],
    [
      "text where the tool results belong",
      [ask, use("a"), text("user", "never mind")],
      'messages[2]: tool_use "a" of the message before it must be answered first',
    ],
    [
      "a tool_result answering a tool_use two messages back",
      [ask, use("a"), answer("a"), answer("a")],
      'messages[3]: tool_result "a" answers no tool_use of the message before it',
    ],
    [
      "an id that needs quoting",
      [ask, answer('x"\n')],
      'messages[1]: tool_result "x\\"\\n" answers no tool_use of the message before it',
    ],
  ])("refuses %s, naming the message and the toolUseId", (_label, messages, problem) => {
    expect(describeToolLoopProblem(messages)).toBe(problem);
  });

  it("is part of what describeInputRequestsProblem finds in a sampling request", () => {
    const request = {
      method: "sampling/createMessage",
      params: { messages: [ask, use("a"), ask], maxTokens: 9 },
    };
    expect(describeInputRequestsProblem({ roots: { method: "roots/list", params: {} }, llm: request })).toBe(
      'inputRequests["llm"]: messages[2]: tool_use "a" of the message before it must be answered first',
    );
  });
});
