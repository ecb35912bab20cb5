/**
 * The official SDK (2.4.0) wired exactly as the reference note §5.3 does: `McpServer` with the
 * `provision` tool, a `Client` with `versionNegotiation: 'auto'` (required for 2026-07-28), and
 * the three serving paths (`serveStdio` over `InMemoryTransport`, `createMcpHandler`, loopback HTTP).
 * "Sealed" means their opt-in HMAC codec: `createRequestStateCodec` + `requestState.verify`,
 * minting on every round.
 */
import { randomBytes } from "node:crypto";
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  acceptedContent,
  createMcpHandler,
  createRequestStateCodec,
  inputRequired,
  type McpHttpHandler,
  McpServer,
  type RequestStateCodec,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import * as z from "zod";
import {
  ANSWER,
  DB_NAME,
  type LegCounter,
  QUESTION,
  REGION_SCHEMA,
  TOOL_MRTR,
  TOOL_PLAIN,
} from "./workload.js";

interface AskState {
  step: "ask-region";
  name: string;
}

const ASK = inputRequired.elicit({ message: QUESTION, requestedSchema: REGION_SCHEMA });
const PLAIN_STATE = "ask-region";

/** A fresh codec with a random 32-byte key (shared by every instance a factory builds). */
export function theirCodec(): RequestStateCodec<AskState> {
  return createRequestStateCodec<AskState>({ key: randomBytes(32) });
}

/**
 * Builds one `McpServer` with both tools. With a codec, state is minted each round and verified by
 * the hook; without, a constant plaintext state is echoed (the same shape as our hand-built tool).
 */
export function buildTheirServer(legs: LegCounter, codec?: RequestStateCodec<AskState>): McpServer {
  const server = new McpServer(
    { name: "bench-provisioner", version: "1.0.0" },
    { capabilities: { tools: {} }, ...(codec ? { requestState: { verify: codec.verify } } : {}) },
  );
  const input = z.object({ name: z.string() });
  server.registerTool(
    TOOL_MRTR,
    { description: "Provision a database. Asks which region to put it in.", inputSchema: input },
    async ({ name }, ctx) => {
      legs.count++;
      const answer = acceptedContent<{ region?: unknown }>(ctx.mcpReq.inputResponses, "region");
      const state = ctx.mcpReq.requestState<AskState | string>();
      const asked = codec ? typeof state === "object" && state?.step === "ask-region" : state === PLAIN_STATE;
      if (answer === undefined || !asked || typeof answer.region !== "string") {
        return inputRequired({
          inputRequests: { region: ASK },
          requestState: codec ? await codec.mint({ step: "ask-region", name }) : PLAIN_STATE,
        });
      }
      return { content: [{ type: "text", text: `Provisioned ${name} in ${answer.region}.` }] };
    },
  );
  server.registerTool(
    TOOL_PLAIN,
    { description: "Provision a database in the default region.", inputSchema: input },
    async ({ name }) => {
      legs.count++;
      return { content: [{ type: "text", text: `Provisioned ${name} in eu-west-1.` }] };
    },
  );
  return server;
}

/** Their client, opted into 2026-07-28 (`auto`), with the trivial elicitation handler. */
export function newTheirClient(
  mode: "auto" | "legacy" = "auto",
  answer: () => Promise<typeof ANSWER> = async () => ANSWER,
): Client {
  const client = new Client(
    { name: "bench-client", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode } },
  );
  client.setRequestHandler("elicitation/create", answer);
  return client;
}

/** A connected client and how to close it. */
export interface TheirPair {
  readonly client: Client;
  close(): Promise<void>;
}

/** Their fastest modern in-memory path: `serveStdio(factory, { transport })` over `InMemoryTransport`. */
export async function connectTheirInMemory(
  legs: LegCounter,
  sealed: boolean,
  answer?: () => Promise<typeof ANSWER>,
): Promise<TheirPair> {
  const codec = sealed ? theirCodec() : undefined;
  return connectTheirFactoryInMemory(() => buildTheirServer(legs, codec), answer);
}

/** Any server factory of theirs, served as `connectTheirInMemory` serves the workload's. */
export async function connectTheirFactoryInMemory(
  factory: () => McpServer,
  answer?: () => Promise<typeof ANSWER>,
): Promise<TheirPair> {
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  const handle = serveStdio(factory, { transport: serverEnd });
  const client = newTheirClient("auto", answer);
  await client.connect(clientEnd);
  return {
    client,
    close: async () => {
      await client.close();
      await handle.close();
    },
  };
}

/** A 2025-era session over `InMemoryTransport`: their default (legacy) client and their shim. */
export async function connectTheirLegacy(legs: LegCounter): Promise<TheirPair> {
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  const server = buildTheirServer(legs);
  await server.connect(serverEnd);
  const client = newTheirClient("legacy");
  await client.connect(clientEnd);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** `createMcpHandler(factory)`: the factory builds a fresh server for every HTTP request. */
export function theirHandler(legs: LegCounter, sealed: boolean): McpHttpHandler {
  const codec = sealed ? theirCodec() : undefined;
  return createMcpHandler(() => buildTheirServer(legs, codec));
}

/** Their client over Streamable HTTP, with an optional `fetch` (the in-process documented path). */
export async function connectTheirHttp(
  url: URL,
  fetchImpl?: (url: string | URL, init?: RequestInit) => Promise<Response>,
): Promise<TheirPair> {
  const client = newTheirClient();
  const transport = new StreamableHTTPClientTransport(url, fetchImpl ? { fetch: fetchImpl } : {});
  await client.connect(transport);
  return { client, close: () => client.close() };
}

/** One flow: the MRTR tool through their auto-fulfilling `callTool`. */
export function theirFlow(client: Client, tool: string = TOOL_MRTR): Promise<unknown> {
  return client.callTool({ name: tool, arguments: { name: DB_NAME } });
}

/** The negotiated version, as their client reports it. */
export function theirVersion(client: Client): string | undefined {
  return client.getNegotiatedProtocolVersion();
}
