// The seed's distributed client: the process that starts a call is not the one that answers it.
//
//   tsx examples/distributed-resume.ts ask pending.json            # process A: start, persist the round
//   tsx examples/distributed-resume.ts answer pending.json [region] # process B: answer, finish the call
//
// requestState is the durable token carried across the boundary; inputResponses is what the other
// side sends back with it. So that the example runs on its own, each process hosts the same
// low-level Provisioner in memory (in production both would connect to one server URL); its
// requestState is plaintext, so it survives from one process to the next.

import { readFile, writeFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { Client } from "roundtrip-mcp/client";
import {
  type CallToolResult,
  type ElicitResult,
  type InputRequest,
  type InputRequests,
  InputRequestsSchema,
  type InputResponses,
  isInputRequiredResult,
} from "roundtrip-mcp/types";
import { server } from "./provisioner-lowlevel.js";

/** What process A writes down: enough to re-issue the very same call, plus the open round. */
export interface PendingCall {
  method: "tools/call";
  name: string;
  arguments: Record<string, unknown>;
  inputRequests: InputRequests;
  requestState?: string;
}

/**
 * Process A: calls the tool with the manual loop and, instead of answering, persists the pending
 * call. It declares form elicitation because its questions will be answered (by process B).
 */
export async function ask(file: string, name = "orders"): Promise<PendingCall | CallToolResult> {
  await using client = await Client.connect(server, { clientCapabilities: { elicitation: { form: {} } } });
  const args = { name };
  const result = await client.session.callTool("provision", args, { allowInputRequired: true });
  if (!isInputRequiredResult(result)) return result;
  const pending: PendingCall = {
    method: "tools/call",
    name: "provision",
    arguments: args,
    inputRequests: result.inputRequests ?? {},
    requestState: result.requestState,
  };
  await writeFile(file, `${JSON.stringify(pending, null, 2)}\n`);
  return pending;
}

/** Where process B's UI goes; this one answers every region question with `region`. */
export function answerQuestion(request: InputRequest, region: string): ElicitResult {
  if (request.method !== "elicitation/create") {
    throw new Error(`this client cannot answer a ${JSON.stringify(request.method)} request`);
  }
  return { action: "accept", content: { region } };
}

/** Reads a pending call back, refusing anything that is not one. */
export async function readPending(file: string): Promise<PendingCall> {
  const raw = JSON.parse(await readFile(file, "utf8")) as Partial<PendingCall>;
  const requests = InputRequestsSchema.safeParse(raw.inputRequests);
  if (
    raw.method !== "tools/call" ||
    typeof raw.name !== "string" ||
    typeof raw.arguments !== "object" ||
    raw.arguments === null ||
    (raw.requestState !== undefined && typeof raw.requestState !== "string") ||
    !requests.success
  ) {
    throw new Error(`${file} does not hold a pending tools/call`);
  }
  return { ...(raw as PendingCall), inputRequests: requests.data };
}

/**
 * Process B: answers the persisted questions and finishes the call by seeding the retry with
 * `inputResponses` and the byte-exact `requestState`. Should the server ask again, the same
 * answer serves the automatic loop.
 */
export async function answer(file: string, region = "eu-west-1"): Promise<CallToolResult> {
  const pending = await readPending(file);
  const inputResponses: InputResponses = {};
  for (const [key, request] of Object.entries(pending.inputRequests)) {
    inputResponses[key] = answerQuestion(request, region);
  }
  await using client = await Client.connect(server, {
    elicitation: (_ctx, params) => answerQuestion({ method: "elicitation/create", params }, region),
  });
  // `return await`: the client must stay open until the call settles (await using closes it on return).
  return await client.callTool(pending.name, pending.arguments, {
    inputResponses,
    requestState: pending.requestState,
  });
}

const textOf = (result: CallToolResult) =>
  result.content.map((block) => (block.type === "text" ? block.text : "")).join("");

/** The CLI: `ask <file>` or `answer <file> [region]`. Returns the process exit code. */
export async function main(
  argv: readonly string[],
  print: (line: string) => void = console.log,
): Promise<number> {
  const [command, file, region] = argv;
  if (command === "ask" && file) {
    const outcome = await ask(file);
    if ("content" in outcome) {
      print(textOf(outcome));
      return 0;
    }
    const questions = Object.entries(outcome.inputRequests).map(([key, request]) =>
      request.method === "elicitation/create" ? `${key} (${request.params.message})` : key,
    );
    print(`pending ${outcome.method} ${outcome.name} written to ${file}; it asks: ${questions.join(", ")}`);
    return 0;
  }
  if (command === "answer" && file) {
    print(textOf(await answer(file, region)));
    return 0;
  }
  print("usage: distributed-resume.ts ask <file> | answer <file> [region]");
  return 2;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
