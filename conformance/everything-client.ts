// The "everything client" the official MCP conformance suite spawns in client mode, built on our own
// Client and nothing else. The suite starts a mock server per scenario, appends its URL as the last
// argument and names the scenario in MCP_CONFORMANCE_SCENARIO (data, when a scenario needs some, is
// JSON in MCP_CONFORMANCE_CONTEXT). See shared/reference/conformance-suite.md §5.2.
//
// The lifecycle follows MCP_CONFORMANCE_PROTOCOL_VERSION: 2025-xx connects with `mode: "legacy"`
// (initialize, Mcp-Session-Id, server → client requests answered by the same callbacks), 2026-07-28
// with the SDK's default (server/discover, the `_meta` envelope on every request).
//
// Exit 0 when the scenario ran to its end, 1 otherwise. Everything is logged to stderr.
//
//   MCP_CONFORMANCE_SCENARIO=tools_call node --import tsx conformance/everything-client.ts http://localhost:3000/mcp
import { Client, type ClientOptions } from "roundtrip-mcp/client";
import { StreamableHttpClientTransport } from "roundtrip-mcp/http";
import {
  ClientCredentialsProvider,
  idJagFromIdentityProvider,
  OAuthClientProvider,
} from "roundtrip-mcp/oauth";

type Scenario = (url: string, context: Record<string, unknown>) => Promise<void>;

function log(message: string): void {
  process.stderr.write(`[everything-client] ${message}\n`);
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return `${error.name}${code === undefined ? "" : ` ${String(code)}`}: ${error.message}`;
  }
  return String(error);
}

const CLIENT_INFO = { name: "roundtrip-conformance-client", version: "0.1.0" };

/**
 * The lifecycle the suite asked for. MCP_CONFORMANCE_PROTOCOL_VERSION is the scenario's resolved
 * version: a dated 2025-era revision (or older) means the stateful `initialize` handshake
 * (`mode: "legacy"`); 2026-07-28 (or absent) keeps the SDK's default (`auto`: probe server/discover).
 */
function modeFor(version: string | undefined): ClientOptions["mode"] {
  if (version === undefined || version === "" || version >= "2026-07-28") return undefined;
  return "legacy";
}
const MODE = modeFor(process.env.MCP_CONFORMANCE_PROTOCOL_VERSION);

/** Connects (the era MODE picks, with the SDK's own version negotiation), runs `body`, then closes. */
async function withClient(
  target: string | StreamableHttpClientTransport,
  options: ClientOptions,
  body: (client: Client) => Promise<void>,
) {
  const client = await Client.connect(target, {
    clientInfo: CLIENT_INFO,
    ...(MODE === undefined ? {} : { mode: MODE }),
    ...options,
  });
  log(`connected: protocol ${client.protocolVersion}, era ${client.era}`);
  try {
    await body(client);
  } finally {
    await client.close();
  }
}

/** Answers every embedded elicitation with an accept (the mocks only check that one was answered). */
const acceptAll: NonNullable<ClientOptions["elicitation"]> = (_ctx, params) => {
  log(`elicitation: ${params.message}`);
  return { action: "accept", content: { confirmed: true } };
};

/** A user who submits every form untouched: with `applyDefaults`, the SDK fills in the defaults (SEP-1034). */
const acceptAsIs: NonNullable<ClientOptions["elicitation"]> = (_ctx, params) => {
  log(`elicitation: ${params.message}`);
  return { action: "accept", content: {} };
};

const scenarios: Record<string, Scenario> = {
  // 2025-11-25: the initialize handshake (protocolVersion, capabilities, clientInfo), then a list.
  initialize: (url) =>
    withClient(url, {}, async (client) => {
      const { tools } = await client.listTools();
      log(`tools: ${tools.map((tool) => tool.name).join(", ") || "(none)"}`);
    }),

  // 2025-11-25 (SEP-1034): the server's elicitation/create carries defaults; the SDK fills them in.
  "elicitation-sep1034-client-defaults": (url) =>
    withClient(
      url,
      { elicitation: acceptAsIs, elicitationCapabilities: { form: { applyDefaults: true } } },
      async (client) => {
        await client.listTools();
        const result = await client.callTool("test_client_elicitation_defaults", {});
        log(`test_client_elicitation_defaults: ${JSON.stringify(result.content)}`);
      },
    ),

  // 2025-11-25 (SEP-1699): the tools/call stream closes after a priming event (id + retry); the
  // answer comes on the GET stream the client must reopen after `retry` ms with Last-Event-ID.
  "sse-retry": (url) =>
    withClient(url, {}, async (client) => {
      await client.listTools();
      const result = await client.callTool("test_reconnection", {});
      log(`test_reconnection: ${JSON.stringify(result.content)}`);
    }),

  // A strict mock: on 2026-07-28 every request carries the header and the _meta envelope; on
  // 2025-11-25 it is a stateful session opened by initialize.
  tools_call: (url) =>
    withClient(url, {}, async (client) => {
      const { tools } = await client.listTools();
      log(`tools: ${tools.map((tool) => tool.name).join(", ")}`);
      const result = await client.callTool("add_numbers", { a: 5, b: 3 });
      log(`add_numbers: ${JSON.stringify(result.content)}`);
    }),

  // The first POST is refused with -32022; the SDK must retry with a supported version. All three
  // optional capabilities are declared, so the mock can check their shapes.
  "request-metadata": (url) =>
    withClient(
      url,
      {
        elicitation: acceptAll,
        sampling: () => ({
          role: "assistant",
          content: { type: "text", text: "ok" },
          model: "conformance-model",
        }),
        listRoots: () => ({ roots: [{ uri: "file:///conformance", name: "conformance" }] }),
      },
      async () => {},
    ),

  // Multi-round-trip request state: echo byte-exact, new JSON-RPC ids, no leaks, and a result
  // without resultType is complete. The last tool may make the SDK throw: that is fine.
  "sep-2322-client-request-state": (url) =>
    withClient(url, { elicitation: acceptAll }, async (client) => {
      for (const name of ["test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated"]) {
        const result = await client.callTool(name, {});
        log(`${name}: ${JSON.stringify(result.content)}`);
      }
      try {
        const result = await client.callTool("test_mrtr_no_result_type", {});
        log(`test_mrtr_no_result_type: ${JSON.stringify(result.content)}`);
      } catch (error) {
        log(`test_mrtr_no_result_type failed (allowed): ${describe(error)}`);
      }
    }),

  // Mcp-Method on every POST, Mcp-Name on tools/call, resources/read and prompts/get.
  "http-standard-headers": (url) =>
    withClient(url, {}, async (client) => {
      const { tools } = await client.listTools();
      const tool = tools[0];
      if (tool) log(`${tool.name}: ${JSON.stringify((await client.callTool(tool.name, {})).content)}`);
      const { resources } = await client.listResources();
      const resource = resources[0];
      if (resource)
        log(`${resource.uri}: ${(await client.readResource(resource.uri)).contents.length} content(s)`);
      const { prompts } = await client.listPrompts();
      const prompt = prompts[0];
      if (prompt)
        log(`${prompt.name}: ${(await client.getPrompt(prompt.name, {})).messages.length} message(s)`);
    }),

  // x-mcp-header mirroring: exactly the calls the scenario lists, after tools/list.
  "http-custom-headers": (url, context) =>
    withClient(url, {}, async (client) => {
      await client.listTools();
      const calls = Array.isArray(context.toolCalls) ? context.toolCalls : [];
      for (const call of calls as { name: string; arguments?: Record<string, unknown> }[]) {
        const result = await client.callTool(call.name, call.arguments ?? {});
        log(`${call.name}: ${JSON.stringify(result.content)}`);
      }
    }),

  // Tools with invalid x-mcp-header declarations must be dropped by the SDK at tools/list.
  "http-invalid-tool-headers": (url) =>
    withClient(url, {}, async (client) => {
      const { tools } = await client.listTools();
      log(`tools kept: ${tools.map((tool) => tool.name).join(", ")}`);
      for (const tool of tools) {
        try {
          await client.callTool(tool.name, { region: "us-west1" });
          log(`${tool.name}: called`);
        } catch (error) {
          log(`${tool.name} failed (ignored): ${describe(error)}`);
        }
      }
    }),

  // Listing tools must never fetch the network $ref canary in a tool's outputSchema.
  "json-schema-ref-no-deref": (url) =>
    withClient(url, {}, async (client) => {
      const { tools } = await client.listTools();
      log(`tools: ${tools.map((tool) => tool.name).join(", ")}`);
    }),

  // Not scored (added after release): echo json_schema_2020_12_tool's inputSchema as received.
  "json-schema-2020-12-preservation": (url) =>
    withClient(url, {}, async (client) => {
      const { tools } = await client.listTools();
      const focal = tools.find((tool) => tool.name === "json_schema_2020_12_tool");
      if (!focal) throw new Error("json_schema_2020_12_tool is not listed");
      await client.callTool("json_schema_echo", { schema: focal.inputSchema });
    }),
};

/** The redirect URI the suite's reference client registers; nothing listens there. */
const REDIRECT_URI = "http://localhost:3000/callback";
/** The Client ID Metadata Document URL the suite expects where the AS supports CIMD. */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";

/**
 * The stand-in browser's GET, tried up to three times when the connection itself fails: under CI
 * load a loopback connect can miss Node's happy-eyeballs attempt window ("fetch failed" before any
 * byte reached the mock authorization server), where a user would simply click again.
 */
async function fetchAsAUser(url: URL): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url, { redirect: "manual" });
    } catch (error) {
      if (attempt === 3 || !(error instanceof TypeError)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * The user's part of an authorization: the mock authorization server redirects at once, so the
 * authorization URL is fetched without following the redirect and its Location is the callback.
 */
async function followAuthorization(url: URL): Promise<string> {
  const response = await fetchAsAUser(url);
  await response.body?.cancel();
  const location = response.headers.get("location");
  if (location === null)
    throw new Error(`the authorization endpoint answered ${response.status} without a redirect`);
  return location;
}

/**
 * Every auth scenario: our OAuth client (pre-registered credentials when the context has them)
 * behind the transport, then tools/list and tools/call test-tool once authorized.
 */
const authScenario: Scenario = (url, context) => {
  const { client_id: clientId, client_secret: clientSecret } = context;
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
  const authProvider = /^auth\/(client-credentials|wif-|enterprise-managed)/.test(scenario)
    ? machineProvider(context)
    : new OAuthClientProvider({
        redirectUri: REDIRECT_URI,
        clientName: CLIENT_INFO.name,
        clientMetadataUrl: CLIENT_METADATA_URL,
        authorize: followAuthorization,
        ...(typeof clientId === "string"
          ? { client: { clientId, ...(typeof clientSecret === "string" ? { clientSecret } : {}) } }
          : {}),
      });
  return withClient(new StreamableHttpClientTransport(url, { authProvider }), {}, async (client) => {
    await client.listTools();
    await client.callTool("test-tool", {});
  });
};

/**
 * The service scenarios (extensions, not scored): client credentials with a secret or a PEM key and
 * its algorithm, or workload identity with the platform's JWT.
 */
function machineProvider(context: Record<string, unknown>): ClientCredentialsProvider {
  const {
    client_id: clientId,
    client_secret: clientSecret,
    private_key_pem: pem,
    signing_algorithm: alg,
    valid_jwt: workloadJwt,
    idp_token_endpoint: idpTokenEndpoint,
    idp_id_token: idToken,
    idp_client_id: idpClientId,
  } = context;
  if (typeof clientId !== "string") throw new Error("the context names no client_id");
  if (
    typeof idpTokenEndpoint === "string" &&
    typeof idToken === "string" &&
    typeof idpClientId === "string"
  ) {
    // Enterprise-managed: an ID-JAG from the IdP, presented by the client authenticated with its secret.
    const workloadToken = idJagFromIdentityProvider({
      tokenEndpoint: idpTokenEndpoint,
      idToken,
      clientId: idpClientId,
    });
    return new ClientCredentialsProvider({
      clientId,
      ...(typeof clientSecret === "string" ? { clientSecret } : {}),
      workloadToken,
    });
  }
  if (typeof workloadJwt === "string") {
    return new ClientCredentialsProvider({ clientId, workloadToken: () => workloadJwt });
  }
  if (typeof clientSecret === "string") return new ClientCredentialsProvider({ clientId, clientSecret });
  if (typeof pem !== "string") throw new Error("the context has neither client_secret nor private_key_pem");
  return new ClientCredentialsProvider({
    clientId,
    privateKey: pem,
    ...(alg === "ES256" || alg === "RS256" ? { signingAlgorithm: alg } : {}),
  });
}

async function main(): Promise<number> {
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
  const url = process.argv.at(-1);
  if (process.argv.length < 3 || url === undefined || !URL.canParse(url)) {
    log("usage: MCP_CONFORMANCE_SCENARIO=<scenario> everything-client.ts <server url>");
    return 2;
  }
  let context: Record<string, unknown> = {};
  if (process.env.MCP_CONFORMANCE_CONTEXT) {
    try {
      context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) as Record<string, unknown>;
    } catch {
      log("MCP_CONFORMANCE_CONTEXT is not JSON; ignoring it");
    }
  }
  const run = scenario.startsWith("auth/") ? authScenario : scenarios[scenario];
  if (!run) {
    log(`unknown scenario ${JSON.stringify(scenario)}`);
    return 1;
  }
  const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? "(unset)";
  log(`scenario ${scenario} against ${url}; protocol ${version}, mode ${MODE ?? "auto"}`);
  try {
    await run(url, context);
    log(`scenario ${scenario} done`);
    return 0;
  } catch (error) {
    log(`scenario ${scenario} failed: ${describe(error)}`);
    if (error instanceof Error && error.stack) log(error.stack);
    return 1;
  }
}

process.exitCode = await main();
