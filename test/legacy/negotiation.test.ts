/**
 * The transport-specific legacy evidence of `mode: "auto"` (spec §5.2): over HTTP a 4xx whose body
 * is no JSON-RPC error; on stdio a probe nobody answers. Auth failures and outages are never a
 * verdict.
 */
import { describe, expect, it, vi } from "vitest";
import type { LegacyConnect } from "../../src/client/legacy.js";
import { type NegotiatedEra, negotiate } from "../../src/client/negotiation.js";
import { ClientSession } from "../../src/client/session.js";
import type { Dispatcher } from "../../src/shared/dispatch.js";
import { RequestTimeoutError } from "../../src/shared/errors.js";
import { HttpStatusError } from "../../src/transports/http/errors.js";
import { MemoryTransport } from "../../src/transports/memory.js";

const LEGACY: NegotiatedEra = {
  era: "legacy",
  protocolVersion: "2025-03-26",
  serverInfo: undefined,
  capabilities: {},
  instructions: undefined,
};

async function probeFailingWith(
  failure: Error,
  options: { silenceIsLegacy?: boolean; probeTimeoutMs?: number } = {},
) {
  const transport = new MemoryTransport({ dispatch: async () => undefined });
  transport.send = async () => {
    throw failure;
  };
  const session = await ClientSession.connect(transport);
  const legacyConnect = vi.fn<LegacyConnect>(async () => LEGACY);
  const outcome = await negotiate(session, { mode: "auto", callbacks: {}, legacyConnect, ...options }).catch(
    (e: unknown) => e,
  );
  return { outcome, legacyConnect };
}

describe("HTTP: the status of a probe without a JSON-RPC error", () => {
  it.each([400, 404, 405, 406, 415])("%i is legacy evidence", async (status) => {
    const { outcome, legacyConnect } = await probeFailingWith(new HttpStatusError(status, `HTTP ${status}`));
    expect(outcome).toBe(LEGACY);
    expect(legacyConnect).toHaveBeenCalledWith(
      expect.objectContaining({
        evidence: `server/discover answered HTTP ${status} without a JSON-RPC error`,
      }),
    );
  });

  it.each([401, 403, 500, 503])(
    "%i propagates: auth and outages are never an era verdict",
    async (status) => {
      const failure = new HttpStatusError(status, `HTTP ${status}`);
      const { outcome, legacyConnect } = await probeFailingWith(failure);
      expect(outcome).toBe(failure);
      expect(legacyConnect).not.toHaveBeenCalled();
    },
  );
});

describe("stdio: a probe nobody answers", () => {
  it("is legacy evidence with silenceIsLegacy, within probeTimeoutMs", async () => {
    const silent: Dispatcher = { dispatch: () => new Promise(() => {}) };
    const session = await ClientSession.connect(new MemoryTransport(silent), { timeoutMs: 60_000 });
    const legacyConnect = vi.fn<LegacyConnect>(async () => LEGACY);
    const started = Date.now();
    const outcome = await negotiate(session, {
      mode: "auto",
      callbacks: {},
      legacyConnect,
      silenceIsLegacy: true,
      probeTimeoutMs: 30,
    });
    expect(outcome).toBe(LEGACY);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(legacyConnect).toHaveBeenCalledWith(
      expect.objectContaining({ evidence: "server/discover got no answer within 30 ms" }),
    );
  });

  it("without silenceIsLegacy a timeout stays an outage", async () => {
    const failure = new RequestTimeoutError("timed out");
    const { outcome, legacyConnect } = await probeFailingWith(failure);
    expect(outcome).toBe(failure);
    expect(legacyConnect).not.toHaveBeenCalled();
  });
});
