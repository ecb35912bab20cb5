/**
 * Terminal helpers of the `roundtrip` CLI: colour (off unless the stream is a terminal, honouring
 * NO_COLOR / FORCE_COLOR), and the sanitizer every server-provided string goes through before it
 * reaches the screen, so a server cannot move the cursor, recolour, hide or reorder what the user
 * is shown (ANSI escapes, other control characters, bidirectional overrides).
 */

/** The few styles the CLI uses; identity functions when colour is off. */
export interface Style {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  underline(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  green(text: string): string;
  cyan(text: string): string;
}

/**
 * Whether to colour `stream`: NO_COLOR (any value) turns colour off, FORCE_COLOR (not "0") on;
 * otherwise only a terminal is coloured.
 *
 * @example
 * const style = createStyle(colorEnabled(process.stderr, process.env));
 */
export function colorEnabled(
  stream: { isTTY?: boolean },
  env: Record<string, string | undefined> = process.env,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
  return stream.isTTY === true && env.TERM !== "dumb";
}

/**
 * ANSI styles, or plain text when `enabled` is false.
 *
 * @example
 * createStyle(true).bold("github.com"); // "\u001b[1mgithub.com\u001b[22m"
 */
export function createStyle(enabled: boolean): Style {
  const wrap =
    (open: number, close: number) =>
    (text: string): string =>
      enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    enabled,
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    underline: wrap(4, 24),
    red: wrap(31, 39),
    yellow: wrap(33, 39),
    green: wrap(32, 39),
    cyan: wrap(36, 39),
  };
}

/**
 * Unicode's Bidi_Control characters (all 12): they can make a URL or a message read differently
 * than it is.
 */
function isBidiControl(code: number): boolean {
  return (
    code === 0x061c ||
    code === 0x200e ||
    code === 0x200f ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

/**
 * Makes untrusted text safe to print: C0/C1 control characters (ESC included, so no escape
 * sequence survives), DEL and bidi overrides become a visible `�`; newlines and tabs stay unless
 * `singleLine`, which turns them into spaces.
 *
 * @example
 * sanitize("ok\u001b[2Jwiped"); // "ok�[2Jwiped"
 */
export function sanitize(text: string, singleLine = false): string {
  let out = "";
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === "\n" || char === "\t") out += singleLine ? " " : char;
    else if (char === "\r") out += singleLine ? " " : "";
    else if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || isBidiControl(code)) out += "\ufffd";
    else out += char;
  }
  return out;
}

/**
 * JSON text safe to print: what `sanitize` would replace becomes a `\uXXXX` escape, as
 * JSON.stringify leaves C1 controls (which an xterm acts on) and bidi overrides raw. Same value.
 *
 * @example
 * jsonSafe(JSON.stringify("a\u009b2J")); // '"a\\u009b2J"'
 */
export function jsonSafe(json: string): string {
  let out = "";
  for (const char of json) {
    out += sanitize(char) === char ? char : `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`;
  }
  return out;
}

/**
 * Indents every line of `text` by `prefix`.
 *
 * @example
 * indent("a\nb", "  "); // "  a\n  b"
 */
export function indent(text: string, prefix: string): string {
  return text
    .split("\n")
    .map((line) => prefix + line)
    .join("\n");
}
