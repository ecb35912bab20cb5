/**
 * What a token endpoint's refusal may show of what was sent: nothing, not even the first characters
 * of a secret its `error_description` echoes where the description is cut short.
 */
import { describe, expect, it } from "vitest";
import { exchangeCode, type OAuthClientInformation } from "../../../src/transports/http/oauth/token.js";
import { authServerAt, failure, fakeFetch } from "./fake-fetch.js";

const TOKEN_URL = "https://auth.example/token";
const server = authServerAt("https://auth.example", { registrationEndpoint: undefined });
const SECRET = "post-SECRET-value";
const client: OAuthClientInformation = {
  issuer: server.issuer,
  clientId: "post-id",
  clientSecret: SECRET,
  authMethod: "client_secret_post",
};
const grant = {
  code: "CODE-abc123",
  verifier: "VERIFIER-xyz789",
  redirectUri: "http://127.0.0.1:8080/callback",
  resource: "https://mcp.example/mcp",
  scope: undefined,
};

describe("a token endpoint refusal that echoes a secret across the description's cut", () => {
  it.each([
    ["the client secret", SECRET],
    ["the code", grant.code],
    ["the verifier", grant.verifier],
  ])("shows no part of %s", async (_name, secret) => {
    // The secret starts 10 characters before the 200th: a cut made first would keep those 10.
    const description = `${"x".repeat(190)}${secret} was refused`;
    const fake = fakeFetch({
      [TOKEN_URL]: { status: 400, body: { error: "invalid_client", error_description: description } },
    });
    const error = await failure(exchangeCode(fake.fetch, server, client, grant));
    expect(error.code).toBe("invalid_client");
    // Redacted, then cut to 200 characters.
    expect(error.message).toBe(`the token endpoint refused (HTTP 400): ${"x".repeat(190)}[redacted]`);
    expect(error.message).not.toContain(secret.slice(0, 10));
  });

  it("still keeps a long description to 200 characters", async () => {
    const fake = fakeFetch({
      [TOKEN_URL]: { status: 400, body: { error: "invalid_grant", error_description: "y".repeat(500) } },
    });
    const error = await failure(exchangeCode(fake.fetch, server, client, grant));
    expect(error.message).toBe(`the token endpoint refused (HTTP 400): ${"y".repeat(200)}`);
  });
});
