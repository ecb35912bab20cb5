// Tool-enabled sampling (`tools` or `toolChoice`) needs the client's `sampling.tools` capability:
// the spec's CreateMessageRequestParams says the client MUST return an error when it is not
// declared. A server that asks anyway must not reach a sampling callback that never opted into tools.
import { describe, expect, it } from "vitest";
import type { SamplingCallback } from "../../src/client/callbacks.js";
import { McpError } from "../../src/types/index.js";
import { connectTapped, SAMPLE, stubServer, textOf } from "./stubs.js";

const TOOLS = { tools: [{ name: "weather", inputSchema: { type: "object" } }] };
const CHOICE = { toolChoice: { mode: "required" } };

/** A stub whose tool asks for a sampling with `extra` params regardless of what the client declared. */
function askingRegardless(extra: Record<string, unknown>) {
  const request = { method: SAMPLE.method, params: { ...SAMPLE.params, ...extra } };
  return stubServer((method, params) => {
    if (method !== "tools/call") return undefined;
    const answer = (params.inputResponses as Record<string, unknown> | undefined)?.q;
    if (answer === undefined) return { resultType: "input_required", inputRequests: { q: request } };
    return { content: [{ type: "text", text: JSON.stringify(answer) }] };
  });
}

function countingSampler(): { sampling: SamplingCallback; calls: () => number } {
  let called = 0;
  return {
    sampling: () => {
      called++;
      return { role: "assistant", content: { type: "text", text: "Sunny" }, model: "m" };
    },
    calls: () => called,
  };
}

describe("sampling with tools against the declared sampling capability", () => {
  it.each([
    ["tools", TOOLS],
    ["toolChoice", CHOICE],
  ])(
    "a client without sampling.tools is asked with %s: -32602, the callback never runs, no retry",
    async (_label, extra) => {
      const server = askingRegardless(extra);
      const sampler = countingSampler();
      const { client } = await connectTapped(server, { sampling: sampler.sampling });
      const error = await client.callTool("t").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect(error).toMatchObject({ code: -32602, message: "Tool-enabled sampling not supported" });
      expect(sampler.calls()).toBe(0);
      expect(server.seen.filter((s) => s.method === "tools/call")).toHaveLength(1);
    },
  );

  it("a client that declared sampling.tools gets the tools", async () => {
    const sampler = countingSampler();
    const { client } = await connectTapped(askingRegardless({ ...TOOLS, ...CHOICE }), {
      sampling: sampler.sampling,
      samplingCapabilities: { tools: {} },
    });
    expect(textOf(await client.callTool("t"))).toBe(
      '{"role":"assistant","content":{"type":"text","text":"Sunny"},"model":"m"}',
    );
    expect(sampler.calls()).toBe(1);
  });
});
