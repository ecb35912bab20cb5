import { describe, expect, it } from "vitest";
import { authenticatedPrincipal } from "../../../src/server/state/index.js";
import { auth, makeCtx } from "./helpers.js";

describe("authenticatedPrincipal", () => {
  it("is undefined without an auth context", () => {
    expect(authenticatedPrincipal(makeCtx())).toBeUndefined();
  });

  it.each([
    ["client-only", auth("client-123"), '["client-123",null,null]'],
    ["with-subject", auth("client-123", { subject: "alice" }), '["client-123",null,"alice"]'],
    [
      "with-issuer-and-subject",
      auth("client-123", { issuer: "https://issuer.example", subject: "alice" }),
      '["client-123","https://issuer.example","alice"]',
    ],
  ])("is the token's client, issuer, subject identity as compact JSON (%s)", (_, authInfo, expected) => {
    expect(authenticatedPrincipal(makeCtx({ authInfo }))).toBe(expected);
  });

  it("distinguishes two subjects of one client", () => {
    const alice = authenticatedPrincipal(makeCtx({ authInfo: auth("shared-client", { subject: "alice" }) }));
    const bob = authenticatedPrincipal(makeCtx({ authInfo: auth("shared-client", { subject: "bob" }) }));
    expect(alice).not.toBe(bob);
  });

  it("ignores the token itself, scopes, expiry and extras, so a refreshed token keeps the principal", () => {
    const before = auth("client-123", { subject: "alice" });
    const refreshed = {
      ...before,
      token: "new-bearer",
      scopes: ["mcp", "admin"],
      expiresAt: 9e9,
      extra: { x: 1 },
    };
    expect(authenticatedPrincipal(makeCtx({ authInfo: refreshed }))).toBe(
      authenticatedPrincipal(makeCtx({ authInfo: before })),
    );
  });

  it("keeps JSON-significant characters in components unambiguous", () => {
    const tricky = authenticatedPrincipal(makeCtx({ authInfo: auth('a","b', { subject: "c" }) }));
    const plain = authenticatedPrincipal(makeCtx({ authInfo: auth("a", { issuer: "b", subject: "c" }) }));
    expect(tricky).not.toBe(plain);
  });
});
