import { describe, expect, it } from "vitest";
import { createInstance, loadKeys, rotation } from "../../examples/fleet-keys.js";
import { server as sealedServer } from "../../examples/lowlevel-sealed.js";
import { silentLogger } from "../../src/server/logger.js";
import type { MCPServer } from "../../src/server/mcp/mcp-server.js";
import { RequestStateSecurity } from "../../src/server/state/policy.js";
import { errorOf, request, resultOf } from "../helpers.js";

const OLD = "old-key-old-key-old-key-old-key-old!";
const NEW = "new-key-new-key-new-key-new-key-new!";
const FROZEN = {
  code: -32602,
  message: "Invalid or expired requestState",
  data: { reason: "invalid_request_state" },
};

function quiet(mcp: MCPServer): MCPServer {
  mcp.server.logger.warn = silentLogger.warn;
  return mcp;
}

async function firstLeg(mcp: MCPServer): Promise<string> {
  const result = resultOf(await mcp.dispatch(request("tools/call", { name: "count", arguments: { to: 2 } })));
  expect(result.resultType).toBe("input_required");
  return result.requestState as string;
}

const retry = (mcp: MCPServer, state: string) =>
  mcp.dispatch(request("tools/call", { name: "count", arguments: { to: 2 }, requestState: state }));

describe("examples/fleet-keys", () => {
  it("lets any instance of the fleet continue a flow another instance started", async () => {
    const a = quiet(createInstance(new RequestStateSecurity({ keys: [NEW] })));
    const b = quiet(createInstance(new RequestStateSecurity({ keys: [NEW] })));
    const state = await firstLeg(a);
    expect(state.startsWith("v1.")).toBe(true);
    const second = resultOf(await retry(b, state));
    expect(second.resultType).toBe("input_required");
    const done = resultOf(await retry(a, second.requestState as string));
    expect(done.content).toEqual([{ type: "text", text: "Counted to 2." }]);
  });

  it("rejects cross-instance retries under the default process-local keys", async () => {
    const { MCPServer } = await import("../../src/server/mcp/mcp-server.js");
    const make = () => {
      const mcp = quiet(new MCPServer("fleet"));
      mcp.tool("count", {}, (_args, ctx) =>
        ctx.requestState ? "done" : { resultType: "input_required", requestState: "1" },
      );
      return mcp;
    };
    const a = make();
    const b = make();
    const state = resultOf(await a.dispatch(request("tools/call", { name: "count" }))).requestState as string;
    expect(errorOf(await b.dispatch(request("tools/call", { name: "count", requestState: state })))).toEqual(
      FROZEN,
    );
    expect(
      resultOf(await a.dispatch(request("tools/call", { name: "count", requestState: state }))).content,
    ).toEqual([{ type: "text", text: "done" }]);
  });

  it("rotates keys in three phases without dropping a round in flight", async () => {
    const phase0 = quiet(createInstance(new RequestStateSecurity({ keys: [OLD] })));
    const phase1 = quiet(createInstance(rotation.phase1(OLD, NEW)));
    const phase2 = quiet(createInstance(rotation.phase2(OLD, NEW)));
    const phase3 = quiet(createInstance(rotation.phase3(NEW)));
    const mintedByOld = await firstLeg(phase0);
    expect(resultOf(await retry(phase1, mintedByOld)).resultType).toBe("input_required");
    expect(resultOf(await retry(phase2, mintedByOld)).resultType).toBe("input_required");
    expect(errorOf(await retry(phase3, mintedByOld))).toEqual(FROZEN);
    const mintedByNew = await firstLeg(phase2);
    expect(resultOf(await retry(phase1, mintedByNew)).resultType).toBe("input_required");
    expect(resultOf(await retry(phase3, mintedByNew)).resultType).toBe("input_required");
    expect(errorOf(await retry(phase0, mintedByNew))).toEqual(FROZEN);
  });

  it("reads a ring written with spaces after its commas as the same keys, so rotation keeps working", async () => {
    // Phase 2 as an operator may write it: the old key (after ", ") must still open phase 0's state.
    const phase2Keys = loadKeys({ ROUNDTRIP_STATE_KEYS: ` ${NEW}, ${OLD}\n` });
    expect(phase2Keys).toEqual([NEW, OLD]);
    const phase0 = quiet(createInstance(new RequestStateSecurity({ keys: [OLD] })));
    const phase2 = quiet(createInstance(new RequestStateSecurity({ keys: phase2Keys })));
    expect(resultOf(await retry(phase2, await firstLeg(phase0))).resultType).toBe("input_required");
    expect(() => loadKeys({ ROUNDTRIP_STATE_KEYS: " , " })).toThrow(/ROUNDTRIP_STATE_KEYS/);
  });

  it("explains how to configure keys when none are set", () => {
    expect(() => loadKeys({})).toThrow(/ROUNDTRIP_STATE_KEYS/);
    expect(loadKeys({ ROUNDTRIP_STATE_KEYS: `${OLD},${NEW}` })).toEqual([OLD, NEW]);
  });
});

describe("examples/lowlevel-sealed", () => {
  it("seals the low-level Provisioner's plaintext state with the one-line opt-in", async () => {
    sealedServer.logger.warn = silentLogger.warn;
    const caps = { elicitation: {} };
    const first = resultOf(
      await sealedServer.dispatch(
        request("tools/call", { name: "provision", arguments: { name: "orders" } }, caps),
      ),
    );
    expect(first.requestState).toMatch(/^v1\./);
    expect(JSON.stringify(first)).not.toContain("provision-v1");
    const done = resultOf(
      await sealedServer.dispatch(
        request(
          "tools/call",
          {
            name: "provision",
            arguments: { name: "orders" },
            inputResponses: { region: { action: "accept", content: { region: "eu-west-1" } } },
            requestState: first.requestState,
          },
          caps,
        ),
      ),
    );
    expect(done.content).toEqual([{ type: "text", text: "Provisioned 'orders' in eu-west-1." }]);
    const forged = await sealedServer.dispatch(
      request(
        "tools/call",
        { name: "provision", arguments: { name: "orders" }, requestState: "provision-v1" },
        caps,
      ),
    );
    expect(errorOf(forged)).toEqual(FROZEN);
  });
});
