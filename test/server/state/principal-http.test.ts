// Principal binding end to end: the identity comes from a real bearer token that serveHttp's
// verifyToken validated, and a sealed requestState minted for one user is refused for another user
// of the same OAuth client on the wire (HTTP 400, the frozen -32602), while its owner's retry runs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcp } from "../../../examples/provisioner-mcpserver.js";
import { type HttpServerHandle, serveHttp } from "../../../src/transports/http/node.js";
import { meta } from "../../helpers.js";
import { post, read } from "../../transports/http/helpers.js";

/** Two users of one OAuth client, and a token of another client for the same user. */
const TOKENS: Record<string, { clientId: string; subject: string }> = {
  "token-alice": { clientId: "desk-app", subject: "alice" },
  "token-bob": { clientId: "desk-app", subject: "bob" },
  "token-alice-cli": { clientId: "cli-app", subject: "alice" },
};
const ISSUER = "https://auth.example.test";

let http: HttpServerHandle;
beforeAll(async () => {
  http = await serveHttp(mcp, {
    requireAuth: true,
    verifyToken: (request) => {
      const token = request.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
      const known = TOKENS[token];
      return known && { token, clientId: known.clientId, scopes: [], issuer: ISSUER, subject: known.subject };
    },
  });
});
afterAll(() => http.close());

const ELICITATION = { elicitation: { form: {} } };

function call(id: number, extra: Record<string, unknown> = {}) {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "provision", arguments: { name: "orders" }, ...extra, _meta: meta(ELICITATION) },
  };
}

async function as(token: string, body: ReturnType<typeof call>) {
  return read(await post(http.url, body, { authorization: `Bearer ${token}` }));
}

async function firstRound(token: string): Promise<string> {
  const first = await as(token, call(1));
  expect(first.status).toBe(200);
  const result = (first.body as { result: { resultType: string; requestState: string } }).result;
  expect(result.resultType).toBe("input_required");
  return result.requestState;
}

const answer = { region: { action: "accept", content: { region: "eu-west-1" } } };
const FROZEN = {
  jsonrpc: "2.0",
  id: 2,
  error: {
    code: -32602,
    message: "Invalid or expired requestState",
    data: { reason: "invalid_request_state" },
  },
};

describe("requestState bound to the token's principal, over HTTP", () => {
  it("is refused for another user of the same client, and still served to its owner", async () => {
    const requestState = await firstRound("token-alice");
    const stolen = await as("token-bob", call(2, { inputResponses: answer, requestState }));
    expect(stolen).toEqual({ status: 400, contentType: "application/json", body: FROZEN });

    const own = await as("token-alice", call(3, { inputResponses: answer, requestState }));
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({
      id: 3,
      result: { content: [{ type: "text", text: "Provisioned 'orders' in eu-west-1." }] },
    });
  });

  it("is refused for the same user through another OAuth client", async () => {
    const requestState = await firstRound("token-alice");
    const elsewhere = await as("token-alice-cli", call(2, { inputResponses: answer, requestState }));
    expect(elsewhere).toEqual({ status: 400, contentType: "application/json", body: FROZEN });
  });
});
