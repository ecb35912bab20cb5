// The CLI's pure parts: the command line, form fields and their checks, --answer reading, the URL
// consent screen's inspection, the sanitizer, the trace summaries, the progress bar, and the form
// and URL dialogs driven by a scripted prompter.
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { rootFrom } from "../../src/cli/arg-values.js";
import { parseCommandLine } from "../../src/cli/args.js";
import { createCallbacks } from "../../src/cli/callbacks.js";
import { answerFromJson, askForm, askUrl } from "../../src/cli/elicitation.js";
import { UsageError } from "../../src/cli/exit.js";
import {
  checkContent,
  checkNumberText,
  checkSelection,
  checkString,
  type Field,
  fieldsOf,
} from "../../src/cli/form.js";
import { formatReadResult } from "../../src/cli/format.js";
import { CANCELLED, type Cancelled, type Prompter, PromptLock } from "../../src/cli/prompter.js";
import { coerceArgument } from "../../src/cli/run.js";
import { createStyle, sanitize } from "../../src/cli/terminal.js";
import { stateSize, summarizeAnswer, Tracer } from "../../src/cli/trace.js";
import { Ui } from "../../src/cli/ui.js";
import { inspectUrl, openerFor, renderUrl } from "../../src/cli/url.js";
import type {
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ProgressNotificationParams,
  RequestedSchema,
} from "../../src/types/index.js";

const URL_TARGET = "http://127.0.0.1:8000/mcp";

function run(argv: string[]) {
  const parsed = parseCommandLine(argv, "/work");
  if (parsed.kind !== "run") throw new Error(`expected a run, got ${parsed.kind}`);
  return parsed.options;
}

describe("the command line", () => {
  it("reads a URL target and the command's operands", () => {
    const options = run(["call", URL_TARGET, "provision", "--arg", "name=orders", "--arg", "note=a=b"]);
    expect(options).toMatchObject({
      command: "call",
      target: URL_TARGET,
      operands: { tool: "provision" },
      args: { name: "orders", note: "a=b" },
      json: false,
    });
  });

  it("takes everything after -- as the stdio server's command line, options included", () => {
    const options = run([
      "call",
      "provision",
      "--trace",
      "--env",
      "A=1",
      "--",
      "node",
      "server.js",
      "--json",
      "--",
    ]);
    expect(options.target).toEqual({ command: "node", args: ["server.js", "--json", "--"], env: { A: "1" } });
    expect(options.operands).toEqual({ tool: "provision" });
    expect(options.trace).toBe(true);
    expect(options.json).toBe(false);
  });

  it("--json alone asks for raw output; --json '{...}' (or --args) carries the arguments", () => {
    expect(run(["tools", URL_TARGET, "--json"]).json).toBe(true);
    const withArgs = run(["call", URL_TARGET, "t", "--json", '{"n":1}']);
    expect(withArgs).toMatchObject({ json: false, argsJson: { n: 1 } });
    expect(run(["call", URL_TARGET, "t", '--json={"n":2}', "--json"])).toMatchObject({
      json: true,
      argsJson: { n: 2 },
    });
    expect(run(["call", URL_TARGET, "t", "--args", '{"n":3}'])).toMatchObject({ argsJson: { n: 3 } });
  });

  it("reads --answer values as JSON, keyed by input request", () => {
    const options = run([
      "call",
      URL_TARGET,
      "t",
      "--answer",
      'region={"region":"eu"}',
      "--answer",
      'ok="decline"',
    ]);
    expect([...options.answers]).toEqual([
      ["region", { region: "eu" }],
      ["ok", "decline"],
    ]);
  });

  it("turns --root paths into file URIs", () => {
    expect(rootFrom("repo", "/work")).toEqual({ uri: "file:///work/repo", name: "repo" });
    expect(rootFrom("file:///srv/data", "/")).toEqual({ uri: "file:///srv/data", name: "data" });
    expect(() => rootFrom("https://example.com", "/")).toThrow(UsageError);
  });

  it("takes a --timeout up to the longest delay Node's timers hold", () => {
    expect(run(["tools", URL_TARGET, "--timeout", "2147483647"]).timeoutMs).toBe(2_147_483_647);
  });

  it("reads the authentication options: a token's environment variable, or an OAuth sign-in", () => {
    expect(run(["tools", URL_TARGET]).auth).toEqual({ kind: "none" });
    expect(run(["tools", URL_TARGET, "--bearer-env", "MCP_TOKEN"]).auth).toEqual({
      kind: "bearer",
      env: "MCP_TOKEN",
    });
    expect(run(["tools", URL_TARGET, "--oauth"]).auth).toStrictEqual({
      kind: "oauth",
      clientId: undefined,
      port: 0,
      store: undefined,
    });
    expect(run(["tools", URL_TARGET, "--oauth", "--oauth-store", "state/oauth.json"]).auth).toMatchObject({
      store: "/work/state/oauth.json",
    });
    expect(
      run(["tools", URL_TARGET, "--oauth", "--oauth-client-id", "cli-1", "--oauth-port", "8765"]).auth,
    ).toEqual({
      kind: "oauth",
      clientId: "cli-1",
      port: 8765,
    });
  });

  it.each([
    [["tools", URL_TARGET, "--bearer-env", "eyJhbGciOi.secret-token"], "not a token"],
    [["tools", "http://alice:s3cret@127.0.0.1:8000/mcp"], "must not contain a user name or password"],
    [["tools", "https://token@example.com/mcp"], "must not contain a user name or password"],
    [["tools", URL_TARGET, "--bearer-env", "T", "--oauth"], "choose one"],
    [
      ["tools", URL_TARGET, "--timeout", "2147483648"],
      "--timeout is at most 2147483647 ms (about 24 days), got 2147483648",
    ],
    [["tools", URL_TARGET, "--oauth-client-id", "c"], "go with --oauth"],
    [["tools", URL_TARGET, "--oauth-port", "80"], "go with --oauth"],
    [["tools", URL_TARGET, "--oauth-store", "f.json"], "go with --oauth"],
    [["tools", URL_TARGET, "--oauth", "--oauth-port", "70000"], "port number"],
    [["tools", "--oauth", "--", "node", "server.js"], "not a stdio one"],
    [["tools", "--bearer-env", "T", "--", "node", "server.js"], "not a stdio one"],
  ])("refuses %j: %s", (argv, message) => {
    expect(() => parseCommandLine(argv, "/")).toThrow(message);
  });

  // Regression: the message quoted the value, and an answer is often a password (then in CI logs).
  it("refuses an --answer value that is not JSON without repeating it", () => {
    const refuse = () => parseCommandLine(["call", URL_TARGET, "login", "--answer", "password=hunter2"], "/");
    expect(refuse).toThrow(UsageError);
    expect(refuse).toThrow(
      "--answer password=…: the value is not JSON; quote strings, e.g. --answer password='\"text\"'",
    );
  });

  it("reports every misuse as a UsageError", () => {
    for (const argv of [
      [],
      ["nope", URL_TARGET],
      ["tools"],
      ["tools", "ftp://x"],
      ["tools", URL_TARGET, "extra"],
      ["call", URL_TARGET],
      ["tools", URL_TARGET, "--unknown"],
      ["tools", URL_TARGET, "--trace=yes"],
      ["tools", URL_TARGET, "--max-rounds", "-1"],
      ["tools", URL_TARGET, "--timeout", "0"],
      ["tools", URL_TARGET, "--env", "A=1"],
      ["tools", URL_TARGET, "--arg", "a=1"],
      ["call", URL_TARGET, "t", "--arg", "novalue"],
      ["call", URL_TARGET, "t", "--args", "[1]"],
      ["call", URL_TARGET, "t", "--answer", "k=notjson"],
      ["tools", "--"],
    ]) {
      expect(() => parseCommandLine(argv, "/"), argv.join(" ")).toThrow(UsageError);
    }
    expect(parseCommandLine(["--help"], "/")).toEqual({ kind: "help" });
    expect(parseCommandLine(["-V"], "/")).toEqual({ kind: "version" });
  });
});

const SCHEMA: RequestedSchema = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name", minLength: 2, maxLength: 5 },
    email: { type: "string", format: "email" },
    site: { type: "string", format: "uri" },
    day: { type: "string", format: "date" },
    at: { type: "string", format: "date-time" },
    size: { type: "integer", minimum: 1, maximum: 10, default: 3 },
    ratio: { type: "number" },
    ok: { type: "boolean" },
    color: { type: "string", enum: ["r", "g"], enumNames: ["Red", "Green"] },
    plan: { type: "string", oneOf: [{ const: "pro", title: "Professional" }] },
    tags: { type: "array", items: { type: "string", enum: ["a", "b", "c"] }, minItems: 1, maxItems: 2 },
    teams: { type: "array", items: { anyOf: [{ const: "x", title: "Team X" }] }, default: ["x"] },
  },
  required: ["name", "ok"],
};

function field<K extends Field["kind"]>(key: string, kind: K): Extract<Field, { kind: K }> {
  const found = fieldsOf(SCHEMA).find((f) => f.key === key);
  if (found?.kind !== kind) throw new Error(`${key} is not a ${kind} field`);
  return found as Extract<Field, { kind: K }>;
}

describe("form fields", () => {
  it("reads every primitive kind, with titles, defaults and required flags", () => {
    const fields = fieldsOf(SCHEMA);
    expect(fields.map((f) => [f.key, f.kind, f.required])).toEqual([
      ["name", "string", true],
      ["email", "string", false],
      ["site", "string", false],
      ["day", "string", false],
      ["at", "string", false],
      ["size", "number", false],
      ["ratio", "number", false],
      ["ok", "boolean", true],
      ["color", "enum", false],
      ["plan", "enum", false],
      ["tags", "multi", false],
      ["teams", "multi", false],
    ]);
    expect(field("name", "string").label).toBe("Name");
    expect(field("size", "number")).toMatchObject({ integer: true, minimum: 1, maximum: 10, default: 3 });
    expect(field("color", "enum").choices).toEqual([
      { value: "r", label: "Red" },
      { value: "g", label: "Green" },
    ]);
    expect(field("plan", "enum").choices).toEqual([{ value: "pro", label: "Professional" }]);
    expect(field("teams", "multi")).toMatchObject({
      choices: [{ value: "x", label: "Team X" }],
      default: ["x"],
    });
  });

  it("drops a default that is not one of the choices, which could be neither seen nor unticked", () => {
    const [plan, tags] = fieldsOf({
      type: "object",
      properties: {
        plan: { type: "string", enum: ["free", "pro"], default: "gold" },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, default: ["zzz", "b", 3] },
      },
    } as RequestedSchema);
    expect(plan).toMatchObject({ kind: "enum", default: undefined });
    expect(tags).toMatchObject({ kind: "multi", default: ["b"] });
  });

  it("checks string lengths (in characters) and formats", () => {
    const name = field("name", "string");
    expect(checkString(name, "")).toBe("A value is required");
    expect(checkString(name, "a")).toBe("At least 2 characters");
    expect(checkString(name, "🙂🙂")).toBeUndefined();
    expect(checkString(name, "abcdef")).toBe("At most 5 characters");
    expect(checkString(field("email", "string"), "")).toBeUndefined();
    expect(checkString(field("email", "string"), "ada@example.com")).toBeUndefined();
    expect(checkString(field("email", "string"), "ada@")).toMatch(/email/);
    expect(checkString(field("site", "string"), "https://example.com/x")).toBeUndefined();
    expect(checkString(field("site", "string"), "example.com")).toMatch(/URI/);
    expect(checkString(field("day", "string"), "2026-02-28")).toBeUndefined();
    expect(checkString(field("day", "string"), "2026-02-30")).toMatch(/date/);
    expect(checkString(field("at", "string"), "2026-07-28T10:00:00Z")).toBeUndefined();
    expect(checkString(field("at", "string"), "2026-07-28T10:00:00.5+02:00")).toBeUndefined();
    expect(checkString(field("at", "string"), "2026-07-28 10:00")).toMatch(/date and time/);
  });

  it("checks numbers as typed: numeric, whole for integers, within bounds", () => {
    const size = field("size", "number");
    expect(checkNumberText(size, "")).toBeUndefined();
    expect(checkNumberText(size, "4")).toBeUndefined();
    expect(checkNumberText(size, "4.5")).toBe("Expected a whole number");
    expect(checkNumberText(size, "0")).toBe("At least 1");
    expect(checkNumberText(size, "11")).toBe("At most 10");
    expect(checkNumberText(size, "four")).toBe("Expected a whole number");
    expect(checkNumberText(field("ratio", "number"), "1e-3")).toBeUndefined();
    expect(checkNumberText(field("ratio", "number"), "0x10")).toBe("Expected a number");
  });

  it("checks multi-select membership and bounds", () => {
    const tags = field("tags", "multi");
    expect(checkSelection(tags, ["a"])).toBeUndefined();
    expect(checkSelection(tags, [])).toBe("Choose at least 1");
    expect(checkSelection(tags, ["a", "b", "c"])).toBe("Choose at most 2");
    expect(checkSelection(tags, ["z"])).toBe('"z" is not one of the choices');
  });

  it("checks a whole answer: required fields, unknown fields, and each value", () => {
    const fields = fieldsOf(SCHEMA);
    expect(checkContent(fields, { name: "Ada", ok: true, color: "g", tags: ["a"] })).toEqual([]);
    expect(checkContent(fields, { ok: "yes", extra: 1, color: "Red", size: 2.5 })).toEqual([
      "extra: not a field of this form",
      "name: a value is required",
      "size: Expected a whole number",
      "ok: Expected true or false",
      'color: Expected one of "r", "g"',
    ]);
  });
});

const FORM: ElicitRequestFormParams = { mode: "form", message: "Account?", requestedSchema: SCHEMA };
const URL_PARAMS: ElicitRequestURLParams = { mode: "url", message: "Sign in", url: "https://example.com/a" };

describe("--answer values", () => {
  it("a form takes field values, an action, or an explicit ElicitResult", () => {
    expect(answerFromJson("k", FORM, { name: "Ada", ok: false })).toEqual({
      action: "accept",
      content: { name: "Ada", ok: false },
    });
    expect(answerFromJson("k", FORM, "decline")).toEqual({ action: "decline" });
    expect(answerFromJson("k", FORM, { action: "cancel" })).toEqual({ action: "cancel" });
    expect(answerFromJson("k", FORM, { action: "accept", content: { name: "Ada", ok: true } })).toEqual({
      action: "accept",
      content: { name: "Ada", ok: true },
    });
    expect(() => answerFromJson("k", FORM, "accept")).toThrow(/required field\(s\) name, ok/);
    expect(() => answerFromJson("k", FORM, { name: "A" })).toThrow(/--answer k: name: At least 2/);
    expect(() => answerFromJson("k", FORM, 42)).toThrow(UsageError);
  });

  it("a form with a field named action reads {action} as that field; only the envelope with content is an action", () => {
    const withAction: ElicitRequestFormParams = {
      mode: "form",
      message: "What should happen to the old deployment?",
      requestedSchema: {
        type: "object",
        properties: { action: { type: "string", enum: ["accept", "decline", "cancel"] } },
        required: ["action"],
      },
    };
    expect(answerFromJson("deploy", withAction, { action: "decline" })).toEqual({
      action: "accept",
      content: { action: "decline" },
    });
    expect(answerFromJson("deploy", withAction, { action: "decline", content: {} })).toEqual({
      action: "decline",
    });
    expect(answerFromJson("deploy", withAction, { action: "accept", content: { action: "cancel" } })).toEqual(
      {
        action: "accept",
        content: { action: "cancel" },
      },
    );
    expect(answerFromJson("deploy", withAction, "cancel")).toEqual({ action: "cancel" });
    // Without such a field, {action} alone is still the action.
    expect(answerFromJson("k", FORM, { action: "decline" })).toEqual({ action: "decline" });
  });

  it("a URL elicitation takes an action (or a boolean consent), nothing else", () => {
    expect(answerFromJson("s", URL_PARAMS, "accept")).toEqual({ action: "accept" });
    expect(answerFromJson("s", URL_PARAMS, true)).toEqual({ action: "accept" });
    expect(answerFromJson("s", URL_PARAMS, false)).toEqual({ action: "decline" });
    expect(() => answerFromJson("s", URL_PARAMS, { done: true })).toThrow(UsageError);
  });
});

describe("URL consent", () => {
  it("sets the domain apart, and warns on Punycode, a user name before the host, plain HTTP and other schemes", () => {
    const plain = inspectUrl("https://github.com/login?x=1");
    expect(plain).toMatchObject({ host: "github.com", openable: true, warnings: [] });
    expect(renderUrl(plain, createStyle(false))).toBe("https://github.com/login?x=1");
    expect(renderUrl(plain, createStyle(true))).toBe(
      "https://\u001b[1m\u001b[4m\u001b[36mgithub.com\u001b[39m\u001b[24m\u001b[22m/login?x=1",
    );

    const puny = inspectUrl("https://аррӏе.com/");
    expect(puny.host).toBe("xn--80ak6aa92e.com");
    expect(puny.unicodeHost).toBe("аррӏе.com");
    expect(puny.warnings[0]).toContain("Punycode (xn--)");

    const spoof = inspectUrl("https://github.com@evil.example/login");
    expect(spoof.host).toBe("evil.example");
    expect(spoof.warnings[0]).toContain("the site actually contacted is evil.example");
    expect(renderUrl(spoof, createStyle(true))).toContain(
      "github.com@\u001b[1m\u001b[4m\u001b[36mevil.example",
    );

    expect(inspectUrl("http://login.example.com/").warnings).toEqual([
      "The URL is not HTTPS: what you enter there can be read on the network.",
    ]);
    expect(inspectUrl("http://127.0.0.1:8080/").warnings).toEqual([]);
    expect(inspectUrl("javascript:alert(1)")).toMatchObject({ openable: false });
    expect(inspectUrl("not a url")).toMatchObject({ openable: false, host: "" });
  });

  it("opens through the platform opener with the URL as one argument", () => {
    const href = "https://example.com/?a=1&b=2";
    expect(openerFor("linux", href)).toEqual(["xdg-open", [href]]);
    expect(openerFor("darwin", href)).toEqual(["open", [href]]);
    expect(openerFor("win32", href)).toEqual(["rundll32", ["url.dll,FileProtocolHandler", href]]);
  });
});

describe("terminal safety and trace summaries", () => {
  it("sanitize defuses escapes, control characters and bidi overrides", () => {
    expect(sanitize("a\u001b[2Jb\u0007c\u009bd")).toBe("a\ufffd[2Jb\ufffdc\ufffdd");
    expect(sanitize("evil\u202Egnp.exe")).toBe("evil\ufffdgnp.exe");
    // Unicode's Bidi_Control property: ALM, LRM, RLM, LRE…RLO, LRI…PDI.
    const bidiControls = [
      0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
    ];
    for (const code of bidiControls) {
      expect(sanitize(`a${String.fromCodePoint(code)}b`), `U+${code.toString(16)}`).toBe("a\ufffdb");
    }
    expect(sanitize("two\nlines\r\n")).toBe("two\nlines\n");
    expect(sanitize("two\nlines", true)).toBe("two lines");
  });

  it("summarizes answers without their values, and states only the size of requestState", () => {
    expect(
      summarizeAnswer("elicitation/create", { action: "accept", content: { password: "hunter2" } }),
    ).toBe("accept (fields: password)");
    expect(summarizeAnswer("elicitation/create", { action: "decline" })).toBe("decline");
    expect(
      summarizeAnswer("sampling/createMessage", {
        role: "assistant",
        content: { type: "text", text: "secret" },
        model: "m",
      }),
    ).toBe("assistant message (text)");
    expect(summarizeAnswer("roots/list", { roots: [{ uri: "file:///a" }] })).toBe("1 root");
    expect(stateSize("é")).toBe("requestState 2 bytes");
    expect(stateSize(undefined)).toBe("no requestState");
  });

  it("sizes a server's binary contents at once, however hostile its padding", () => {
    const read = (blob: string) => formatReadResult({ contents: [{ uri: "x://b", blob }] });
    expect(read("YWJj")).toBe("x://b\n[binary, 3 bytes; use --json for the data]");
    expect(read("YQ==")).toBe("x://b\n[binary, 1 bytes; use --json for the data]");
    // A run of "=" then one more character made the old /=+$/ backtrack for hours on a megabyte.
    expect(read(`${"=".repeat(1_000_000)}x`)).toBe("x://b\n[binary, 750000 bytes; use --json for the data]");
  });
});

function capture(isTTY: boolean): {
  stream: Writable & { isTTY: boolean; columns: number };
  text: () => string;
} {
  let out = "";
  const stream = Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        out += chunk.toString("utf8");
        callback();
      },
    }),
    { isTTY, columns: 80 },
  );
  return { stream, text: () => out };
}

describe("the progress bar", () => {
  it("redraws one line in a terminal and clears it before any other line", () => {
    const { stream, text } = capture(true);
    const ui = new Ui(stream, createStyle(false));
    ui.progress({ progressToken: "t", progress: 1, total: 2, message: "half" });
    ui.line("next");
    expect(text()).toBe(`\r\u001b[2K${"█".repeat(12)}${"░".repeat(12)} 50% 1/2 half\r\u001b[2Knext\n`);
  });

  it("prints one line per distinct update elsewhere", () => {
    const { stream, text } = capture(false);
    const ui = new Ui(stream, createStyle(false));
    ui.progress({ progressToken: "t", progress: 1, message: "x\u001b[31m" });
    ui.progress({ progressToken: "t", progress: 1, message: "x\u001b[31m" });
    ui.progress({ progressToken: "t", progress: 2, total: 2 });
    expect(text()).toBe("progress 1 x\ufffd[31m\nprogress 2/2\n");
  });

  it("prints only finite counts (else ?) and only a string message, whatever the server sends", () => {
    const hostile = (fields: Record<string, unknown>) =>
      ({ progressToken: "t", ...fields }) as unknown as ProgressNotificationParams;
    const plain = capture(false);
    const ui = new Ui(plain.stream, createStyle(false));
    ui.progress(hostile({ progress: "1\u001b]0;pwned\u0007", total: 3, message: "step" }));
    ui.progress(hostile({ progress: 2, total: "3\u001b[2J", message: 42 }));
    ui.progress(hostile({ progress: Number.POSITIVE_INFINITY, total: Number.NaN, message: { text: "x" } }));
    expect(plain.text()).toBe("progress ?/3 step\nprogress 2\nprogress ?\n");

    const terminal = capture(true);
    new Ui(terminal.stream, createStyle(false)).progress(hostile({ progress: "1\u001b[2J", total: 4 }));
    expect(terminal.text()).toBe("\r\u001b[2K… ?/4");
  });
});

describe("--arg typing", () => {
  it("follows the tool's schema, strings by default", () => {
    expect(coerceArgument("n", "3", { type: "integer" })).toBe(3);
    expect(coerceArgument("n", "3", { type: ["string", "number"] })).toBe("3");
    expect(coerceArgument("n", "3", undefined)).toBe("3");
    expect(coerceArgument("b", "true", { type: "boolean" })).toBe(true);
    expect(coerceArgument("o", '{"a":1}', { type: "object" })).toEqual({ a: 1 });
    expect(() => coerceArgument("n", "three", { type: "number" })).toThrow(UsageError);
    expect(() => coerceArgument("b", "yes", { type: "boolean" })).toThrow(UsageError);
  });

  it("takes numbers in decimal syntax only, and whole ones for an integer", () => {
    expect(coerceArgument("n", " -1.5e2 ", { type: "number" })).toBe(-150);
    expect(coerceArgument("n", "2.0", { type: "integer" })).toBe(2);
    expect(coerceArgument("n", "1.5", { type: ["integer", "number"] })).toBe(1.5);
    for (const text of ["0x10", "0o17", "0b11", "Infinity", "1e400", ""]) {
      expect(() => coerceArgument("n", text, { type: "number" }), text).toThrow(
        new UsageError(`--arg n: ${JSON.stringify(text)} is not a valid number`),
      );
    }
    expect(() => coerceArgument("n", "1.5", { type: "integer" })).toThrow(
      new UsageError('--arg n: "1.5" is not an integer'),
    );
    expect(() => coerceArgument("n", "1.5", { type: ["integer", "null"] })).toThrow(
      new UsageError('--arg n: "1.5" is not an integer'),
    );
  });
});

type Step = {
  kind: "select" | "multiselect" | "text" | "confirm";
  message: string;
  initial: unknown;
  options?: string[];
};

/** A prompter that answers from a script and records what it was asked. */
function scripted(answers: unknown[]): { prompter: Prompter; asked: Step[] } {
  const asked: Step[] = [];
  const next = <T>(step: Step): Promise<T | Cancelled> => {
    asked.push(step);
    if (answers.length === 0) throw new Error(`no scripted answer for ${step.message}`);
    return Promise.resolve(answers.shift() as T | Cancelled);
  };
  return {
    asked,
    prompter: {
      select: (message, options, initial) =>
        next({ kind: "select", message, initial, options: options.map((o) => o.value) }),
      multiselect: (message, options, initial) =>
        next({ kind: "multiselect", message, initial, options: options.map((o) => o.value) }),
      text: (message, options) => next({ kind: "text", message, initial: options.initialValue }),
      confirm: (message, initial) => next({ kind: "confirm", message, initial }),
    },
  };
}

const quietUi = () => new Ui(capture(false).stream, createStyle(false));
const ASKER = { key: "account", server: "Desk" };

describe("the form dialog", () => {
  const SMALL: ElicitRequestFormParams = {
    message: "Account?",
    requestedSchema: {
      type: "object",
      properties: {
        name: { type: "string", default: "Ada" },
        size: { type: "integer", minimum: 1 },
        ok: { type: "boolean" },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, maxItems: 1 },
      },
      required: ["name"],
    },
  };

  it("asks each field with its default, skips empty optional ones, re-asks a bad selection, reviews, sends", async () => {
    const { prompter, asked } = scripted(["accept", "Grace", "", "\u0000skip", ["a", "b"], ["b"], "send"]);
    const result = await askForm(prompter, quietUi(), ASKER, SMALL);
    expect(result).toEqual({ action: "accept", content: { name: "Grace", tags: ["b"] } });
    expect(asked.map((step) => [step.kind, step.initial])).toEqual([
      ["select", "accept"],
      ["text", "Ada"],
      ["text", undefined],
      ["select", "\u0000skip"],
      ["multiselect", []],
      ["multiselect", ["a", "b"]],
      ["select", "send"],
    ]);
  });

  it("editing asks again with the previous answers pre-filled", async () => {
    const { prompter, asked } = scripted([
      "accept",
      "Grace",
      "2",
      "\u0000skip",
      [],
      "edit",
      "Grace H",
      "2",
      "yes",
      [],
      "send",
    ]);
    const result = await askForm(prompter, quietUi(), ASKER, SMALL);
    expect(result).toEqual({ action: "accept", content: { name: "Grace H", size: 2, ok: true } });
    expect(asked[6]).toMatchObject({ kind: "text", initial: "Grace" });
    expect(asked[7]).toMatchObject({ kind: "text", initial: "2" });
  });

  it("pre-selects only defaults the user can see, so a submit goes through at once", async () => {
    const params = {
      message: "Tags?",
      requestedSchema: {
        type: "object",
        properties: {
          plan: { type: "string", enum: ["free", "pro"], default: "gold" },
          tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, default: ["zzz"] },
        },
      },
    } as ElicitRequestFormParams;
    const { prompter, asked } = scripted(["accept", "\u0000skip", [], "send"]);
    expect(await askForm(prompter, quietUi(), ASKER, params)).toEqual({ action: "accept", content: {} });
    expect(asked.map((step) => [step.kind, step.initial])).toEqual([
      ["select", "accept"],
      ["select", "\u0000skip"],
      ["multiselect", []],
      ["select", "send"],
    ]);
  });

  it("decline and cancel come from the first choice; Escape anywhere cancels", async () => {
    expect(await askForm(scripted(["decline"]).prompter, quietUi(), ASKER, SMALL)).toEqual({
      action: "decline",
    });
    expect(await askForm(scripted(["cancel"]).prompter, quietUi(), ASKER, SMALL)).toEqual({
      action: "cancel",
    });
    expect(await askForm(scripted([CANCELLED]).prompter, quietUi(), ASKER, SMALL)).toEqual({
      action: "cancel",
    });
    expect(await askForm(scripted(["accept", "Grace", CANCELLED]).prompter, quietUi(), ASKER, SMALL)).toEqual(
      {
        action: "cancel",
      },
    );
  });
});

describe("the URL dialog", () => {
  it("opens only after consent, and only with --open", async () => {
    const opened: string[] = [];
    const opener = async (href: string) => {
      opened.push(href);
    };
    const declined = scripted(["decline"]);
    expect(await askUrl(declined.prompter, quietUi(), ASKER, URL_PARAMS, { open: true, opener })).toEqual({
      action: "decline",
    });
    expect(opened).toEqual([]);
    expect(declined.asked[0]?.options).toEqual(["accept", "decline", "cancel"]);

    expect(
      await askUrl(scripted(["accept", "continue"]).prompter, quietUi(), ASKER, URL_PARAMS, {
        open: false,
        opener,
      }),
    ).toEqual({ action: "accept" });
    expect(opened).toEqual([]);
    expect(
      await askUrl(scripted(["accept", "continue"]).prompter, quietUi(), ASKER, URL_PARAMS, {
        open: true,
        opener,
      }),
    ).toEqual({ action: "accept" });
    expect(opened).toEqual(["https://example.com/a"]);
    expect(
      await askUrl(scripted(["accept", "cancel"]).prompter, quietUi(), ASKER, URL_PARAMS, {
        open: false,
        opener,
      }),
    ).toEqual({ action: "cancel" });
  });

  // The client refuses such a URL before any callback (see test/client/url-elicitation-scheme): this
  // is the CLI's own guard, for whoever drives its callbacks otherwise.
  it("declines, never opens, a URL that is not http(s) even when --answer accepts it", async () => {
    const out = capture(false);
    const opened: string[] = [];
    const { callbacks } = createCallbacks({
      answers: new Map([["signin", "accept"]]),
      interactive: false,
      prompter: () => scripted([]).prompter,
      ui: new Ui(out.stream, createStyle(false)),
      tracer: new Tracer(() => {}, false),
      open: true,
      opener: async (href) => void opened.push(href),
      roots: [],
      samplingCommand: undefined,
    });
    const ctx = { requestId: "signin", signal: new AbortController().signal, serverInfo: undefined };
    const params = { mode: "url" as const, message: "Sign in", url: "file:///etc/passwd" };
    expect(await callbacks.elicitation?.(ctx, params)).toEqual({ action: "decline" });
    expect(opened).toEqual([]);
    expect(out.text()).toContain("--answer signin: declined, as the URL will not be opened.");
  });

  it("offers no way to open a URL that is not http(s)", async () => {
    const { prompter, asked } = scripted(["decline"]);
    const params = { ...URL_PARAMS, url: "file:///etc/passwd" };
    await askUrl(prompter, quietUi(), ASKER, params, { open: true, opener: async () => {} });
    expect(asked[0]?.options).toEqual(["decline", "cancel"]);
  });
});

describe("PromptLock", () => {
  it("runs one dialog at a time, in order, even after a failure", async () => {
    const lock = new PromptLock();
    const order: string[] = [];
    const slow =
      (name: string, ms: number, fail = false) =>
      () =>
        new Promise<string>((resolve, reject) =>
          setTimeout(() => {
            order.push(name);
            if (fail) reject(new Error(name));
            else resolve(name);
          }, ms),
        );
    const results = await Promise.allSettled([
      lock.run(slow("a", 30, true)),
      lock.run(slow("b", 1)),
      lock.run(slow("c", 1)),
    ]);
    expect(order).toEqual(["a", "b", "c"]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "fulfilled", "fulfilled"]);
  });
});
