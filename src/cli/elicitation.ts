/**
 * Answering `elicitation/create`: a real form in the terminal built from `requestedSchema` (with
 * an initial answer / decline / cancel choice and a review before sending), the URL-mode consent
 * screen, and the non-interactive `--answer` forms of both.
 */
import type {
  ElicitRequestFormParams,
  ElicitRequestParams,
  ElicitRequestURLParams,
  ElicitResult,
} from "../types/index.js";
import { UsageError } from "./exit.js";
import {
  checkContent,
  checkNumberText,
  checkSelection,
  checkString,
  describeField,
  type Field,
  type FieldValue,
  fieldsOf,
} from "./form.js";
import { CANCELLED, type Cancelled, type Prompter } from "./prompter.js";
import { indent, sanitize } from "./terminal.js";
import type { Ui } from "./ui.js";
import { inspectUrl, renderUrl } from "./url.js";

/** Who asks, and under which key (shown with every question). */
export interface Asker {
  readonly key: string;
  readonly server: string;
  readonly signal?: AbortSignal;
}

function isUrlMode(params: ElicitRequestParams): params is ElicitRequestURLParams {
  return params.mode === "url";
}

const ACTIONS = new Set(["accept", "decline", "cancel"]);

/**
 * The `ElicitResult` an `--answer` value stands for, checked against the request. A bad value is
 * a `UsageError` naming the key (exit 2).
 *
 * @example
 * answerFromJson("region", formParams, { region: "eu-west-1" }); // { action: "accept", content: { region: "eu-west-1" } }
 * answerFromJson("signin", urlParams, "accept");                 // { action: "accept" }
 */
export function answerFromJson(key: string, params: ElicitRequestParams, value: unknown): ElicitResult {
  const bad = (why: string) => new UsageError(`--answer ${key}: ${why}`);
  const shorthand = typeof value === "string" && ACTIONS.has(value);
  if (shorthand) value = { action: value };
  if (typeof value === "boolean" && isUrlMode(params)) value = { action: value ? "accept" : "decline" };
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw bad(
      isUrlMode(params)
        ? 'a URL elicitation takes "accept", "decline" or "cancel"'
        : 'a form takes an object of field values, or "decline" / "cancel"',
    );
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  const fields = isUrlMode(params) ? [] : fieldsOf(params.requestedSchema);
  // When the form has a field named "action", {"action": …} is that field's value; only the full
  // envelope (with "content") then stands for an action.
  const explicit =
    typeof record.action === "string" &&
    ACTIONS.has(record.action) &&
    keys.every((name) => name === "action" || name === "content") &&
    (shorthand || keys.includes("content") || !fields.some((field) => field.key === "action"));
  if (isUrlMode(params)) {
    if (!explicit) throw bad('a URL elicitation takes "accept", "decline" or "cancel"');
    return { action: record.action as ElicitResult["action"] };
  }
  if (explicit && record.action !== "accept") return { action: record.action as ElicitResult["action"] };
  const content = explicit ? record.content : record;
  if (content === undefined) {
    const missing = fields.filter((field) => field.required).map((field) => field.key);
    if (missing.length > 0) throw bad(`accepting needs the required field(s) ${missing.join(", ")}`);
    return { action: "accept" };
  }
  if (typeof content !== "object" || content === null || Array.isArray(content)) {
    throw bad("content must be an object of field values");
  }
  const problems = checkContent(fields, content as Record<string, unknown>);
  if (problems.length > 0) throw bad(problems.join("; "));
  return { action: "accept", content: content as Record<string, FieldValue> };
}

const SKIP = "\u0000skip";

/**
 * Asks a form in the terminal. Ctrl-C or Escape at any point answers `cancel`.
 *
 * @example
 * const result = await askForm(prompter, ui, { key: "region", server: "Provisioner" }, params);
 */
export async function askForm(
  prompter: Prompter,
  ui: Ui,
  asker: Asker,
  params: ElicitRequestFormParams,
): Promise<ElicitResult> {
  const { style } = ui;
  const fields = fieldsOf(params.requestedSchema);
  ui.line();
  ui.line(`${style.bold(asker.server)} asks ${style.dim(`(input request "${sanitize(asker.key, true)}")`)}:`);
  ui.line(indent(sanitize(params.message), "  "));
  const choice = await prompter.select(
    "How do you want to respond?",
    [
      { value: "accept", label: "Answer", hint: `${fields.length} field${fields.length === 1 ? "" : "s"}` },
      { value: "decline", label: "Decline", hint: "refuse to answer" },
      { value: "cancel", label: "Cancel", hint: "dismiss without choosing" },
    ],
    "accept",
    asker.signal,
  );
  if (choice === CANCELLED || choice === "cancel") return { action: "cancel" };
  if (choice === "decline") return { action: "decline" };

  let previous: Record<string, FieldValue> = {};
  for (;;) {
    const content: Record<string, FieldValue> = {};
    for (const field of fields) {
      const value = await askField(prompter, ui, field, previous[field.key], asker.signal);
      if (value === CANCELLED) return { action: "cancel" };
      if (value !== undefined) content[field.key] = value;
    }
    if (fields.length === 0) return { action: "accept", content };
    ui.line(style.dim("  You are about to send:"));
    for (const field of fields) {
      const value = content[field.key];
      const shown = value === undefined ? style.dim("(no answer)") : sanitize(JSON.stringify(value), true);
      ui.line(`  ${sanitize(field.label, true)}: ${shown}`);
    }
    // The same checks as an --answer: a prompt can still let a field through empty (a required
    // select the server gave no choices), and such an answer must not be sent as accepted.
    const problems = checkContent(fields, content);
    for (const problem of problems) ui.line(style.yellow(`  ${sanitize(problem, true)}`));
    const sendable = problems.length === 0;
    const send = await prompter.select(
      sendable ? `Send this to ${asker.server}?` : "This answer cannot be sent: edit it, or cancel.",
      [
        ...(sendable ? [{ value: "send" as const, label: "Send" }] : []),
        { value: "edit" as const, label: "Edit the answers" },
        { value: "cancel" as const, label: "Cancel" },
      ],
      sendable ? "send" : "edit",
      asker.signal,
    );
    if (send === CANCELLED || send === "cancel") return { action: "cancel" };
    if (send === "send") return { action: "accept", content };
    previous = content;
  }
}

/** Asks one field; undefined leaves an optional field out. */
async function askField(
  prompter: Prompter,
  ui: Ui,
  field: Field,
  previous: FieldValue | undefined,
  signal: AbortSignal | undefined,
): Promise<FieldValue | undefined | Cancelled> {
  const hints = describeField(field);
  const label = sanitize(field.label, true);
  const description =
    field.description === undefined ? "" : ui.style.dim(` — ${sanitize(field.description, true)}`);
  const message = `${label}${hints ? ui.style.dim(` (${hints})`) : ""}${description}`;
  switch (field.kind) {
    case "string": {
      const initial = typeof previous === "string" ? previous : field.default;
      const answer = await prompter.text(
        message,
        {
          initialValue: initial === undefined ? undefined : sanitize(initial, true),
          placeholder: field.format === undefined ? undefined : placeholderFor(field.format),
          validate: (value) => checkString(field, value),
        },
        signal,
      );
      if (answer === CANCELLED) return answer;
      return answer === "" ? undefined : answer;
    }
    case "number": {
      const initial = typeof previous === "number" ? previous : field.default;
      const answer = await prompter.text(
        message,
        {
          initialValue: initial === undefined ? undefined : String(initial),
          validate: (v) => checkNumberText(field, v),
        },
        signal,
      );
      if (answer === CANCELLED) return answer;
      return answer.trim() === "" ? undefined : Number(answer.trim());
    }
    case "boolean": {
      const initial = typeof previous === "boolean" ? previous : field.default;
      if (field.required || initial !== undefined) return prompter.confirm(message, initial ?? false, signal);
      const answer = await prompter.select(
        message,
        [
          { value: "yes", label: "Yes" },
          { value: "no", label: "No" },
          { value: SKIP, label: "(no answer)" },
        ],
        SKIP,
        signal,
      );
      if (answer === CANCELLED) return answer;
      return answer === SKIP ? undefined : answer === "yes";
    }
    case "enum": {
      const options = field.choices.map((choice) => ({
        value: choice.value,
        label: sanitize(choice.label, true),
        hint: choice.label === choice.value ? undefined : sanitize(choice.value, true),
      }));
      if (!field.required) options.push({ value: SKIP, label: "(no answer)", hint: undefined });
      const initial =
        typeof previous === "string" ? previous : (field.default ?? (field.required ? undefined : SKIP));
      const answer = await prompter.select(message, options, initial, signal);
      if (answer === CANCELLED) return answer;
      return answer === SKIP ? undefined : answer;
    }
    case "multi": {
      const options = field.choices.map((choice) => ({
        value: choice.value,
        label: sanitize(choice.label, true),
        hint: choice.label === choice.value ? undefined : sanitize(choice.value, true),
      }));
      let initial = Array.isArray(previous) ? previous : [...(field.default ?? [])];
      for (;;) {
        const answer = await prompter.multiselect(
          message,
          options,
          initial,
          (field.minItems ?? 0) > 0,
          signal,
        );
        if (answer === CANCELLED) return answer;
        const problem = checkSelection(field, answer);
        if (problem === undefined) return answer.length === 0 && !field.required ? undefined : answer;
        ui.line(ui.style.yellow(`  ${problem}`));
        initial = answer;
      }
    }
  }
}

function placeholderFor(format: "email" | "uri" | "date" | "date-time"): string {
  switch (format) {
    case "email":
      return "name@example.com";
    case "uri":
      return "https://…";
    case "date":
      return "YYYY-MM-DD";
    case "date-time":
      return "YYYY-MM-DDTHH:MM:SSZ";
  }
}

/** What happens to a consented URL: printed, or handed to the platform opener (`--open`). */
export interface UrlOpening {
  readonly open: boolean;
  readonly opener: (href: string) => Promise<void>;
}

/**
 * Shows a URL elicitation (full URL, highlighted domain, warnings), never fetching it, and asks
 * for consent. On consent the URL is printed (and opened with `--open`), then the user says when
 * the out-of-band step is done, so the retry that follows has something to find.
 *
 * @example
 * const result = await askUrl(prompter, ui, { key: "signin", server: "GitHub" }, params, { open: false, opener });
 */
export async function askUrl(
  prompter: Prompter,
  ui: Ui,
  asker: Asker,
  params: ElicitRequestURLParams,
  opening: UrlOpening,
): Promise<ElicitResult> {
  const { style } = ui;
  const view = showUrl(ui, asker, params);
  const consent = await prompter.select(
    view.openable ? `Open this URL on ${view.host}?` : "This URL cannot be opened.",
    [
      ...(view.openable
        ? [
            {
              value: "accept" as const,
              label: opening.open ? "Open it in the browser" : "Accept (the URL is printed for you to open)",
            },
          ]
        : []),
      { value: "decline" as const, label: "Decline" },
      { value: "cancel" as const, label: "Cancel" },
    ],
    view.openable ? undefined : "decline",
    asker.signal,
  );
  if (consent === CANCELLED || consent === "cancel") return { action: "cancel" };
  if (consent === "decline") return { action: "decline" };
  await openConsented(ui, view.href, opening);
  const done = await prompter.select(
    "Finish in the browser, then continue.",
    [
      { value: "continue" as const, label: "Continue", hint: "I have finished" },
      { value: "cancel" as const, label: "Cancel" },
    ],
    "continue",
    asker.signal,
  );
  if (done === CANCELLED || done === "cancel") return { action: "cancel" };
  ui.line(style.dim("  Continuing: the server checks whether the step is complete."));
  return { action: "accept" };
}

/** The consent screen's text: who asks, the message, the full URL, the domain, the warnings. */
export function showUrl(ui: Ui, asker: Asker, params: ElicitRequestURLParams): ReturnType<typeof inspectUrl> {
  const { style } = ui;
  const view = inspectUrl(params.url);
  ui.line();
  ui.line(
    `${style.bold(asker.server)} asks you to open a URL ${style.dim(`(input request "${sanitize(asker.key, true)}")`)}:`,
  );
  ui.line(indent(sanitize(params.message), "  "));
  ui.line(`  URL:    ${renderUrl(view, style)}`);
  if (view.raw !== view.href) ui.line(`  As sent: ${view.raw}`);
  if (view.host !== "") {
    ui.line(
      `  Domain: ${style.bold(style.cyan(view.host))}${view.unicodeHost ? ` (displays as "${sanitize(view.unicodeHost, true)}")` : ""}`,
    );
  }
  for (const warning of view.warnings) ui.line(style.yellow(`  ⚠ ${warning}`));
  ui.line(style.dim("  Nothing has been opened or fetched."));
  return view;
}

/** Prints (and with `--open`, opens) a URL the user consented to. */
export async function openConsented(ui: Ui, href: string, opening: UrlOpening): Promise<void> {
  if (opening.open) {
    try {
      await opening.opener(href);
      ui.line(`  Opened in your browser: ${href}`);
      return;
    } catch (error) {
      ui.line(ui.style.yellow(`  Could not start the browser (${(error as Error).message}).`));
    }
  }
  ui.line(`  Open this URL in your browser: ${href}`);
}
