// Interop, modern era: the official client's StdioClientTransport (versionNegotiation 'auto')
// spawning our example servers behind our `serveStdio`. The fixture records every line it reads
// and writes, per process, so the probe sibling and the real session are both visible.
import { Client, type ElicitResult } from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterEach, describe, expect, it } from "vitest";
import {
  cleanupTranscripts,
  envelopeOf,
  newTranscript,
  nodeArgs,
  OUR_STDIO_SERVER,
  PROTOCOL_VERSION,
  type ProcessTranscript,
  REPO_ROOT,
  readTranscript,
  until,
  type WireMessage,
} from "./helpers.js";

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
  cleanupTranscripts();
});

async function theirStdioClient(
  example: string,
  answer: (message: string) => ElicitResult,
): Promise<{ client: Client; transcript: string; transport: StdioClientTransport; asked: string[] }> {
  const transcript = newTranscript();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: nodeArgs(OUR_STDIO_SERVER, transcript, example),
    cwd: REPO_ROOT,
    env: getDefaultEnvironment(),
    stderr: "ignore",
  });
  const client = new Client(
    { name: "official-client", version: "2.4.0" },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "auto" } },
  );
  const asked: string[] = [];
  client.setRequestHandler("elicitation/create", async (request) => {
    asked.push(request.params.message);
    return answer(request.params.message);
  });
  clients.push(client);
  await client.connect(transport);
  return { client, transcript, transport, asked };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The probe sibling saw only server/discover; the session process saw no probe and no initialize. */
function splitProcesses(transcript: ProcessTranscript[], sessionPid: number | null) {
  expect(transcript).toHaveLength(2);
  const session = transcript.find((entry) => entry.pid === sessionPid);
  const probe = transcript.find((entry) => entry.pid !== sessionPid);
  expect(session).toBeDefined();
  expect(probe?.in.map((message) => message.method)).toEqual(["server/discover"]);
  expect(envelopeOf(probe?.in[0] ?? {}).version).toBe(PROTOCOL_VERSION);
  expect(probe?.out[0]?.result).toMatchObject({
    supportedVersions: [PROTOCOL_VERSION],
    resultType: "complete",
  });
  return session as ProcessTranscript;
}

/** Each leg a new id, each retry echoing the previous leg's requestState byte-exact. */
function expectStdioChain(session: ProcessTranscript, method: string): WireMessage[] {
  const legs = session.in.filter((message) => message.method === method);
  const rawLegs = session.rawIn.filter((line) => (JSON.parse(line) as WireMessage).method === method);
  const answers = legs.map((leg) => session.out.find((message) => message.id === leg.id));
  expect(new Set(legs.map((leg) => leg.id)).size).toBe(legs.length);
  legs.forEach((leg, index) => {
    expect(envelopeOf(leg).version).toBe(PROTOCOL_VERSION);
    const previous = answers[index - 1]?.result;
    if (!previous) {
      expect(leg.params).not.toHaveProperty("requestState");
      return;
    }
    expect(previous.resultType).toBe("input_required");
    expect(rawLegs[index]).toContain(JSON.stringify(previous.requestState));
    expect(Object.keys(leg.params?.inputResponses ?? {}).sort()).toEqual(
      Object.keys(previous.inputRequests ?? {}).sort(),
    );
  });
  expect(answers.at(-1)?.result?.resultType).toBe("complete");
  // Never a server → client request on stdio in 2026-07-28.
  expect(session.out.every((message) => message.method === undefined || !("id" in message))).toBe(true);
  return legs;
}

describe("their client → our server over stdio (2026-07-28)", () => {
  it("completes the hand-built MRTR tool, probing on a throwaway sibling process", async () => {
    const { client, transcript, transport, asked } = await theirStdioClient("provisioner", () => ({
      action: "accept",
      content: { region: "us-east-1" },
    }));
    expect(client.getNegotiatedProtocolVersion()).toBe(PROTOCOL_VERSION);
    expect(client.getProtocolEra()).toBe("modern");
    const result = await client.callTool({ name: "provision", arguments: { name: "orders" } });

    expect(result.content).toEqual([{ type: "text", text: "Provisioned 'orders' in us-east-1." }]);
    expect(asked).toEqual(["Which region should the database live in?"]);
    const pid = transport.pid;
    await until(() => readTranscript(transcript).length === 2, "both fixture processes");
    const session = splitProcesses(readTranscript(transcript), pid);
    expect(session.in.some((message) => message.method === "initialize")).toBe(false);
    const legs = expectStdioChain(session, "tools/call");
    expect(legs).toHaveLength(2);
    expect(legs[1]?.params?.inputResponses).toEqual({
      region: { action: "accept", content: { region: "us-east-1" } },
    });
    // Their close() ends stdin; our serveStdio drains and exits (the sibling exited after its probe).
    await client.close();
    await until(() => readTranscript(transcript).every((entry) => !alive(entry.pid)), "fixtures to exit");
  });

  it("completes the resolver-driven tool (resolver-region)", async () => {
    const { client, transcript, transport } = await theirStdioClient("resolver-region", () => ({
      action: "accept",
      content: { region: "eu-west-1" },
    }));
    const result = await client.callTool({ name: "provision", arguments: { name: "orders" } });

    expect(result.content).toEqual([{ type: "text", text: "Provisioned 'orders' in eu-west-1." }]);
    expect(client.getNegotiatedProtocolVersion()).toBe(PROTOCOL_VERSION);
    const session = splitProcesses(readTranscript(transcript), transport.pid);
    expect(expectStdioChain(session, "tools/call")).toHaveLength(2);
  });

  it("completes the two-question resolver chain (resolver-chain)", async () => {
    const { client, transcript, transport, asked } = await theirStdioClient(
      "resolver-chain",
      (message): ElicitResult =>
        message === "Username?"
          ? { action: "accept", content: { username: "grace" } }
          : { action: "accept", content: { ok: true } },
    );
    const result = await client.callTool({ name: "deploy", arguments: { service: "web" } });

    expect(result.content).toEqual([{ type: "text", text: "Deployed web as grace." }]);
    expect(asked).toEqual(["Username?", "Deploy web as grace?"]);
    const session = splitProcesses(readTranscript(transcript), transport.pid);
    expect(expectStdioChain(session, "tools/call")).toHaveLength(3);
  });
});
