/**
 * Everything the CLI shows besides the result goes to stderr through `Ui`, so stdout carries only
 * the result (pipe it, or `--json` it). `Ui` owns the progress bar and clears it before any other
 * line, so the bar never tears a prompt or a trace line.
 */
import type { Writable } from "node:stream";
import type { ProgressNotificationParams } from "../types/index.js";
import { type Style, sanitize } from "./terminal.js";

export type TerminalStream = Writable & { isTTY?: boolean; columns?: number };

const BAR_WIDTH = 24;

function finiteNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/**
 * The stderr side of the CLI: lines, and a one-line progress bar (redrawn in place on a terminal,
 * one line per update otherwise).
 *
 * @example
 * const ui = new Ui(process.stderr, createStyle(true));
 * ui.progress({ progressToken: "t", progress: 1, total: 3, message: "copying" });
 * ui.line("done");
 */
export class Ui {
  readonly stream: TerminalStream;
  readonly style: Style;
  #barShown = false;
  #lastPlain: string | undefined;

  constructor(stream: TerminalStream, style: Style) {
    this.stream = stream;
    this.style = style;
  }

  get isTTY(): boolean {
    return this.stream.isTTY === true;
  }

  /** Writes one line (or several), after clearing the progress bar. */
  line(text = ""): void {
    this.clearProgress();
    this.stream.write(`${text}\n`);
  }

  /**
   * Shows a progress notification. Every field is server data, whatever its declared type: counts
   * are printed only when they are finite numbers (else "?"), a string message is sanitized, any
   * other message is left out.
   */
  progress(params: ProgressNotificationParams): void {
    const message = typeof params.message === "string" ? ` ${sanitize(params.message, true)}` : "";
    const done = finiteNumber(params.progress);
    const reportedTotal = finiteNumber(params.total);
    const total = reportedTotal !== undefined && reportedTotal > 0 ? reportedTotal : undefined;
    const counts = `${done ?? "?"}${total === undefined ? "" : `/${total}`}`;
    if (!this.isTTY) {
      const text = `progress ${counts}${message}`;
      if (text !== this.#lastPlain) this.stream.write(`${text}\n`);
      this.#lastPlain = text;
      return;
    }
    let bar: string;
    if (total === undefined || done === undefined) bar = this.style.cyan("…");
    else {
      const ratio = Math.min(1, Math.max(0, done / total));
      const filled = Math.round(ratio * BAR_WIDTH);
      bar = `${this.style.cyan("█".repeat(filled))}${this.style.dim("░".repeat(BAR_WIDTH - filled))} ${Math.round(ratio * 100)}%`;
    }
    // Keep it on one line: a wrapped bar could not be redrawn in place.
    const room = Math.max(0, (this.stream.columns ?? 80) - (BAR_WIDTH + 8 + counts.length));
    const shown =
      [...message].length > room ? `${[...message].slice(0, Math.max(0, room - 1)).join("")}…` : message;
    this.stream.write(`\r\u001b[2K${bar} ${counts}${shown}`);
    this.#barShown = true;
  }

  /** Removes the progress bar from the screen (a no-op when none is shown). */
  clearProgress(): void {
    if (!this.#barShown) return;
    this.stream.write("\r\u001b[2K");
    this.#barShown = false;
  }
}
