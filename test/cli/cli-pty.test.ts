// The CLI in a real terminal: forms typed in over HTTP and over stdio, the URL consent screen,
// and a sampling request answered by typing. Each CLI runs in a tmux pane of a private tmux
// server; every pane is killed after its test, the server after the file.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { mcp as chain } from "../../examples/resolver-chain.js";
import { completeSignIn, mcp as github } from "../../examples/url-elicitation.js";
import { inputRequired, inputResponse, MCPServer } from "../../src/server/index.js";
import { type HttpServerHandle, serveHttp } from "../../src/transports/http/node.js";
import { createCliServer } from "./fixtures/cli-server.js";
import { killTmuxServer, Pane, STDIO_FIXTURE } from "./harness.js";

let hasTmux = true;
try {
  execFileSync("tmux", ["-V"], { stdio: "ignore" });
} catch {
  hasTmux = false;
}

const servers: HttpServerHandle[] = [];
const panes: Pane[] = [];
let fixtureUrl = "";
let chainUrl = "";
let githubUrl = "";
let noChoiceUrl = "";

/** A server whose form has a required select with no choices: it cannot be answered, only refused. */
function noChoiceServer(): MCPServer {
  const mcp = new MCPServer("Picker", { version: "1.0.0" });
  mcp.server.logger.warn = () => {};
  mcp.tool("pick", {}, (_args, ctx) => {
    const answer = inputResponse(ctx, "pick");
    if (answer.kind !== "missing") return `Answer: ${answer.kind} ${JSON.stringify(answer)}`;
    const requestedSchema = {
      type: "object" as const,
      properties: { color: { type: "string" as const, enum: [] } },
      required: ["color"],
    };
    return inputRequired({
      inputRequests: {
        pick: { method: "elicitation/create", params: { message: "Pick one.", requestedSchema } },
      },
    });
  });
  return mcp;
}

beforeAll(async () => {
  for (const server of [chain, github]) server.server.logger.warn = () => {};
  const [fixture, chained, signIn, noChoice] = await Promise.all([
    serveHttp(createCliServer(), { port: 0 }),
    serveHttp(chain, { port: 0 }),
    serveHttp(github, { port: 0 }),
    serveHttp(noChoiceServer(), { port: 0 }),
  ]);
  servers.push(fixture, chained, signIn, noChoice);
  noChoiceUrl = String(noChoice.url);
  fixtureUrl = String(fixture.url);
  chainUrl = String(chained.url);
  githubUrl = String(signIn.url);
});

afterEach(() => {
  for (const pane of panes.splice(0)) pane.kill();
});

afterAll(async () => {
  killTmuxServer();
  await Promise.all(servers.map((server) => server.close()));
});

function start(args: string[], env: Record<string, string> = {}, stderrTo?: string): Pane {
  const pane = Pane.start(args, env, stderrTo);
  panes.push(pane);
  return pane;
}

/** Types the register form: string (with a validation retry) + enum + boolean, optional fields skipped. */
async function fillRegisterForm(pane: Pane): Promise<void> {
  await pane.waitFor("How do you want to respond?");
  pane.press("Enter");
  await pane.waitFor("Full name");
  pane.type("Ada Lovelace");
  pane.press("Enter");
  await pane.waitFor("Email (email)");
  pane.type("ada@example");
  pane.press("Enter");
  await pane.waitFor("Expected an email address");
  pane.type(".com");
  pane.press("Enter");
  await pane.waitFor("Free tier");
  pane.press("Down", "Enter");
  await pane.waitFor("Subscribe to the newsletter");
  pane.press("y");
  await pane.waitFor("Seats (integer, 1–50, optional)");
  pane.press("Enter");
  await pane.waitFor("Tags (choose 0 to 2, optional)");
  pane.press("Enter");
  await pane.waitFor("Send this to Signup desk?");
  const review = pane.screen();
  expect(review).toContain('Plan: "pro"');
  expect(review).toContain("Subscribe to the newsletter: true");
  pane.press("Enter");
}

describe.skipIf(!hasTmux)("roundtrip in a terminal", { timeout: 45_000 }, () => {
  it("asks a form over HTTP: typed string, enum chosen by title, boolean confirmed", async () => {
    const pane = start(["call", fixtureUrl, "register"]);
    await fillRegisterForm(pane);
    expect(await pane.exitCode()).toBe(0);
    expect(pane.screen()).toContain("Registered Ada Lovelace <ada@example.com> on plan pro, newsletter yes.");
  });

  it("asks the same form over stdio (-- node --import tsx <fixture>)", async () => {
    const pane = start(["call", "register", "--", "node", "--import", "tsx", STDIO_FIXTURE]);
    await fillRegisterForm(pane);
    expect(await pane.exitCode()).toBe(0);
    expect(pane.screen()).toContain("Registered Ada Lovelace <ada@example.com> on plan pro, newsletter yes.");
  });

  it("walks the example resolver chain: a string, then a confirmation that depends on it", async () => {
    const pane = start(["call", chainUrl, "deploy", "--arg", "service=api"]);
    await pane.waitFor("Username?");
    pane.press("Enter");
    await pane.waitFor("username (at least 1 chars)");
    pane.type("ann");
    pane.press("Enter");
    await pane.waitFor("Send this to Deployer?");
    pane.press("Enter");
    await pane.waitFor("Deploy api as ann?");
    pane.press("Enter");
    await pane.waitFor(/◆\s+ok/);
    pane.press("y");
    await pane.waitFor(/Send this to Deployer\?[\s\S]*Send this to Deployer\?/);
    pane.press("Enter");
    expect(await pane.exitCode()).toBe(0);
    expect(pane.screen()).toContain("Deployed api as ann.");
  });

  it("lets the user decline a form from the first choice", async () => {
    const pane = start(["call", fixtureUrl, "register"]);
    await pane.waitFor("How do you want to respond?");
    pane.press("Down", "Enter");
    expect(await pane.exitCode()).toBe(0);
    expect(pane.screen()).toContain("Registration declined.");
  });

  it("Ctrl-C in a form answers cancel (and does not kill the command)", async () => {
    const pane = start(["call", fixtureUrl, "register"]);
    await pane.waitFor("How do you want to respond?");
    pane.press("Enter");
    await pane.waitFor("Full name");
    pane.type("Ad");
    pane.press("C-c");
    expect(await pane.exitCode()).toBe(0);
    expect(pane.screen()).toContain("Registration cancelled.");
  });

  it("shows a URL elicitation in full with its domain highlighted, and opens nothing before consent", async () => {
    const pane = start(["call", githubUrl, "connect_github"]);
    const screen = await pane.waitFor("Open this URL on github.example?");
    const flow = /https:\/\/github\.example\/login\?flow=([0-9a-f-]{36})/.exec(screen)?.[1];
    expect(flow).toBeDefined();
    expect(screen).toContain(`URL:    https://github.example/login?flow=${flow}`);
    expect(screen).toContain("Domain: github.example");
    expect(screen).toContain("Nothing has been opened or fetched.");
    expect(screen).not.toContain("Open this URL in your browser");
    // The domain is set apart: a style escape right before it on the URL line.
    const styled = pane.screen(true);
    const esc = String.fromCharCode(27);
    const sgr = `(?:${esc}\\[[0-9;]*m)+`;
    expect(styled).toMatch(new RegExp(`URL: {4}https://${sgr}github\\.example${sgr}/login`));
    pane.press("Enter");
    await pane.waitFor("Finish in the browser, then continue.");
    expect(pane.screen()).toContain(
      `Open this URL in your browser: https://github.example/login?flow=${flow}`,
    );
    completeSignIn(flow as string, "octocat");
    pane.press("Enter");
    expect(await pane.exitCode()).toBe(0);
    expect(pane.screen()).toContain("Connected as octocat.");
  });

  it("shows a sampling request and sends the text the user types", async () => {
    const pane = start(["call", fixtureUrl, "capital"]);
    const screen = await pane.waitFor("Answer as the assistant?");
    expect(screen).toContain("asks for a completion from your model");
    expect(screen).toContain("You are a geography teacher.");
    expect(screen).toContain("[user]");
    expect(screen).toContain("What is the capital of France?");
    expect(screen).toContain("max tokens 50");
    pane.press("Enter");
    await pane.waitFor("Assistant's answer");
    pane.type("Paris");
    pane.press("Enter");
    expect(await pane.exitCode()).toBe(0);
    expect(pane.screen()).toContain("The model (human (roundtrip CLI)) said: Paris");
  });

  it("never sends an answer the form itself refuses: a required select with no choices can only be cancelled", async () => {
    const pane = start(["call", noChoiceUrl, "pick"]);
    await pane.waitFor("How do you want to respond?");
    pane.press("Enter");
    await pane.waitFor(/◆\s+color/);
    pane.press("Enter");
    const review = await pane.waitFor("This answer cannot be sent");
    expect(review).toContain("color: a value is required");
    expect(review).not.toContain("Send");
    pane.press("Down", "Enter");
    expect(await pane.exitCode()).toBe(0);
    expect(pane.screen()).toContain('Answer: cancel {"kind":"cancel"}');
  });

  it("exits 130 when the user refuses a sampling request", async () => {
    const pane = start(["call", fixtureUrl, "capital"]);
    await pane.waitFor("Answer as the assistant?");
    pane.press("Down", "Enter");
    expect(await pane.exitCode()).toBe(130);
    expect(pane.screen()).toContain("was refused; the request was abandoned");
  });

  it("exits 2 naming the key, rather than wait on a form drawn where nobody sees it, when stderr is not the terminal", async () => {
    const folder = mkdtempSync(join(tmpdir(), "roundtrip-cli-stderr-"));
    try {
      const log = join(folder, "stderr.log");
      const pane = start(["call", fixtureUrl, "register"], { NO_COLOR: "1", FORCE_COLOR: "0" }, log);
      expect(await pane.exitCode()).toBe(2);
      // The last line: Node may warn first about the pane's colour variables.
      expect(readFileSync(log, "utf8").trimEnd().split("\n").at(-1)).toBe(
        "roundtrip: The server asked 'account' (an elicitation form) but no answer was given and there is " +
          "no terminal to ask in (stdin and stderr must both be one). Pass --answer account=<json>, or run " +
          "the command in a terminal to answer interactively.",
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
