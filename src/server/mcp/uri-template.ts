/**
 * RFC 6570 URI templates, levels 1–3: enough to expand a template and to match a concrete URI
 * back to its variables (the direction resource templates need).
 */

interface Expression {
  readonly operator: "" | "+" | "#" | "." | "/" | ";" | "?" | "&";
  readonly names: readonly string[];
}

type Part = string | Expression;

const OPERATORS = new Set(["+", "#", ".", "/", ";", "?", "&"]);
const VARNAME = /^[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*$/;

function parse(template: string): Part[] {
  const parts: Part[] = [];
  let index = 0;
  while (index < template.length) {
    const open = template.indexOf("{", index);
    const literal = template.slice(index, open < 0 ? undefined : open);
    if (literal.includes("}")) throw new Error(`Invalid URI template ${JSON.stringify(template)}: stray "}"`);
    if (open < 0) {
      if (literal) parts.push(literal);
      break;
    }
    if (literal) parts.push(literal);
    const close = template.indexOf("}", open);
    if (close < 0) throw new Error(`Invalid URI template ${JSON.stringify(template)}: unclosed "{"`);
    let body = template.slice(open + 1, close);
    let operator: Expression["operator"] = "";
    if (body.length > 0 && OPERATORS.has(body[0] as string)) {
      operator = body[0] as Expression["operator"];
      body = body.slice(1);
    }
    const names = body.split(",");
    for (const name of names) {
      if (!VARNAME.test(name)) {
        throw new Error(
          `Invalid URI template ${JSON.stringify(template)}: unsupported variable ${JSON.stringify(name)}`,
        );
      }
    }
    parts.push({ operator, names });
    index = close + 1;
  }
  return parts;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** RFC 6570 §3.2.1: simple expansion keeps only unreserved characters; `+` and `#` keep reserved ones too. */
function encode(value: string, reserved: boolean): string {
  if (reserved) return encodeURI(value).replace(/%25([0-9A-Fa-f]{2})/g, "%$1");
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function safeDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

const PREFIX: Record<Expression["operator"], string> = {
  "": "",
  "+": "",
  "#": "#",
  ".": ".",
  "/": "/",
  ";": ";",
  "?": "?",
  "&": "&",
};
const SEPARATOR: Record<Expression["operator"], string> = {
  "": ",",
  "+": ",",
  "#": ",",
  ".": ".",
  "/": "/",
  ";": ";",
  "?": "&",
  "&": "&",
};

/** One compiled template. */
export class UriTemplate {
  readonly template: string;
  readonly variables: readonly string[];
  readonly #parts: Part[];
  readonly #pattern: RegExp;
  readonly #captures: Expression[] = [];

  constructor(template: string) {
    this.template = template;
    this.#parts = parse(template);
    this.variables = this.#parts.flatMap((part) => (typeof part === "string" ? [] : part.names));
    let source = "^";
    for (const part of this.#parts) {
      if (typeof part === "string") {
        source += escapeRegExp(part);
        continue;
      }
      const { operator } = part;
      // Reserved values may contain "/" (never a query or fragment); a "/" expression spans segments.
      const value =
        operator === "+" || operator === "#" || operator === "/"
          ? "[^?#]*?"
          : operator === "?" || operator === "&"
            ? "[^#]*?"
            : "[^/?#]*?";
      source += `(${escapeRegExp(PREFIX[operator])}${value})?`;
      this.#captures.push(part);
    }
    this.#pattern = new RegExp(`${source}$`);
  }

  /** True when the string contains at least one `{expression}`. */
  static isTemplate(text: string): boolean {
    return /\{[^}]+\}/.test(text);
  }

  /** Fills the template; missing variables are left out, as RFC 6570 says. */
  expand(values: Readonly<Record<string, string | undefined>>): string {
    return this.#parts
      .map((part) => {
        if (typeof part === "string") return part;
        const { operator } = part;
        const reserved = operator === "+" || operator === "#";
        const items = part.names
          .filter((name) => values[name] !== undefined)
          .map((name) => {
            const value = encode(values[name] as string, reserved);
            if (operator === ";") return value === "" ? name : `${name}=${value}`;
            if (operator === "?" || operator === "&") return `${name}=${value}`;
            return value;
          });
        return items.length === 0 ? "" : PREFIX[operator] + items.join(SEPARATOR[operator]);
      })
      .join("");
  }

  /** The variables of a URI this template produced, or undefined when it does not match. */
  match(uri: string): Record<string, string> | undefined {
    const found = this.#pattern.exec(uri);
    if (!found) return undefined;
    const values: Record<string, string> = {};
    for (let i = 0; i < this.#captures.length; i++) {
      const capture = this.#captures[i] as Expression;
      const raw = found[i + 1];
      if (raw === undefined || raw === "") continue;
      const body = raw.slice(PREFIX[capture.operator].length);
      const pieces = body.split(SEPARATOR[capture.operator]);
      if (capture.operator === ";" || capture.operator === "?" || capture.operator === "&") {
        for (const piece of pieces) {
          const eq = piece.indexOf("=");
          const name = eq < 0 ? piece : piece.slice(0, eq);
          if (!capture.names.includes(name)) return undefined;
          const decoded = safeDecode(eq < 0 ? "" : piece.slice(eq + 1));
          if (decoded === undefined) return undefined;
          values[name] = decoded;
        }
        continue;
      }
      if (pieces.length > capture.names.length) return undefined;
      for (let j = 0; j < pieces.length; j++) {
        const decoded = safeDecode(pieces[j] as string);
        if (decoded === undefined) return undefined;
        values[capture.names[j] as string] = decoded;
      }
    }
    return values;
  }
}
