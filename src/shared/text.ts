/**
 * `text` without the run of `char` at its end. A loop rather than `/x+$/`: on a long run followed
 * by one other character, that expression backtracks quadratically, and these texts come from peers.
 *
 * @example
 * withoutTrailing("/mcp///", "/"); // "/mcp"
 */
export function withoutTrailing(text: string, char: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === char) end--;
  return text.slice(0, end);
}
