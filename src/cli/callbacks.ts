/**
 * The client callbacks of the CLI: each question is answered from `--answer` when one was given
 * for its key, else asked in the terminal, else (no terminal) the command stops with exit 2
 * naming the key. Every answer is traced without its values.
 */
import type { ClientCallbacks, ClientRequestContext } from "../client/callbacks.js";
import type { Root } from "../types/index.js";
import { type Asker, answerFromJson, askForm, askUrl, openConsented, showUrl } from "./elicitation.js";
import { MissingAnswerError } from "./exit.js";
import { type Prompter, PromptLock } from "./prompter.js";
import { askSampling, runSamplingCommand, samplingFromJson, showSampling } from "./sampling.js";
import { sanitize } from "./terminal.js";
import { summarizeAnswer, type Tracer } from "./trace.js";
import type { Ui } from "./ui.js";

export interface AnswerSetup {
  /** `--answer key=json`, by key. */
  readonly answers: ReadonlyMap<string, unknown>;
  /** True when stdin and stderr are a terminal: questions without an `--answer` are asked there. */
  readonly interactive: boolean;
  /** The terminal prompts (created on first use). */
  readonly prompter: () => Prompter;
  readonly ui: Ui;
  readonly tracer: Tracer;
  /** `--open`, and how to open. */
  readonly open: boolean;
  readonly opener: (href: string) => Promise<void>;
  /** `--root`: when empty, roots are not offered (the capability is not declared). */
  readonly roots: readonly Root[];
  readonly samplingCommand: string | undefined;
}

/**
 * The callbacks for `Client.connect`, plus the set of `--answer` keys actually used.
 *
 * @example
 * const { callbacks } = createCallbacks(setup);
 * await Client.connect(target, { ...callbacks, onRound });
 */
export function createCallbacks(setup: AnswerSetup): { callbacks: ClientCallbacks; used: Set<string> } {
  const { answers, ui, tracer } = setup;
  const lock = new PromptLock();
  const used = new Set<string>();
  const asker = (ctx: ClientRequestContext): Asker => ({
    key: String(ctx.requestId),
    server: sanitize(ctx.serverInfo?.title ?? ctx.serverInfo?.name ?? "The server", true),
    signal: ctx.signal,
  });
  const given = (key: string): { value: unknown } | undefined => {
    if (!answers.has(key)) return undefined;
    used.add(key);
    return { value: answers.get(key) };
  };
  const interactive = <T>(key: string, what: string, task: () => Promise<T>): Promise<T> => {
    if (!setup.interactive) return Promise.reject(new MissingAnswerError(key, what));
    return lock.run(task);
  };

  const callbacks: ClientCallbacks = {
    elicitation: async (ctx, params) => {
      const who = asker(ctx);
      const answer = given(who.key);
      const mode = params.mode === "url" ? "url" : "form";
      let result: Awaited<ReturnType<typeof askForm>>;
      if (answer !== undefined) {
        result = answerFromJson(who.key, params, answer.value);
        if (params.mode === "url" && result.action === "accept") {
          // An --answer is the consent; the URL is still shown in full before it is used.
          const openable = await lock.run(async () => {
            const view = showUrl(ui, who, params);
            if (view.openable) await openConsented(ui, view.href, setup);
            return view.openable;
          });
          // Consent to a URL the user was never given to open must not be claimed.
          if (!openable) {
            ui.line(
              ui.style.yellow(
                `  --answer ${sanitize(who.key, true)}: declined, as the URL will not be opened.`,
              ),
            );
            result = { action: "decline" };
          }
        }
      } else if (params.mode === "url") {
        const url = params;
        result = await interactive(who.key, "a URL elicitation", () =>
          askUrl(setup.prompter(), ui, who, url, setup),
        );
      } else {
        const form = params;
        result = await interactive(who.key, "an elicitation form", () =>
          askForm(setup.prompter(), ui, who, form),
        );
      }
      tracer.answered(
        who.key,
        "elicitation/create",
        `${summarizeAnswer("elicitation/create", result)} [${mode}]`,
      );
      return result;
    },
    sampling: async (ctx, params) => {
      const who = asker(ctx);
      const answer = given(who.key);
      let result: Awaited<ReturnType<typeof askSampling>>;
      if (answer !== undefined) result = samplingFromJson(who.key, answer.value);
      else if (setup.samplingCommand !== undefined) {
        if (tracer.enabled) await lock.run(async () => showSampling(ui, who, params));
        result = await runSamplingCommand(setup.samplingCommand, params, ctx.signal);
      } else {
        result = await interactive(who.key, "a sampling request", () =>
          askSampling(setup.prompter(), ui, who, params),
        );
      }
      tracer.answered(who.key, "sampling/createMessage", summarizeAnswer("sampling/createMessage", result));
      return result;
    },
  };
  if (setup.roots.length > 0) {
    const roots = setup.roots.map((root) => ({ ...root }));
    callbacks.listRoots = (ctx) => {
      const result = { roots };
      tracer.answered(String(ctx.requestId), "roots/list", summarizeAnswer("roots/list", result));
      return result;
    };
  }
  return { callbacks, used };
}
