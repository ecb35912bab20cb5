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

function invalid(template: string, why: string): Error {
  return new Error(`Invalid URI template ${JSON.stringify(template)}: ${why}`);
}

function parse(template: string): Part[] {
  const parts: Part[] = [];
  let index = 0;
  while (index < template.length) {
    const open = template.indexOf("{", index);
    const literal = template.slice(index, open < 0 ? undefined : open);
    if (literal.includes("}")) throw invalid(template, 'stray "}"');
    if (open < 0) {
      if (literal) parts.push(literal);
      break;
    }
    if (literal) parts.push(literal);
    const close = template.indexOf("}", open);
    if (close < 0) throw invalid(template, 'unclosed "{"');
    let body = template.slice(open + 1, close);
    let operator: Expression["operator"] = "";
    if (body.length > 0 && OPERATORS.has(body[0] as string)) {
      operator = body[0] as Expression["operator"];
      body = body.slice(1);
    }
    const names = body.split(",");
    for (const name of names) {
      if (!VARNAME.test(name)) throw invalid(template, `unsupported variable ${JSON.stringify(name)}`);
    }
    parts.push({ operator, names });
    index = close + 1;
  }
  return parts;
}

/** RFC 6570 §3.2.1: simple expansion keeps only unreserved characters; `+` and `#` keep reserved ones too. */
function encode(value: string, reserved: boolean): string {
  // encodeURI escapes "[" and "]", reserved gen-delims; a value's own "%5B" is "%255B" here, untouched.
  if (reserved)
    return encodeURI(value)
      .replace(/%5B/g, "[")
      .replace(/%5D/g, "]")
      .replace(/%25([0-9A-Fa-f]{2})/g, "%$1");
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

/** What an expression's expansion starts with: its operator, except for `+`. */
function prefixOf(operator: Expression["operator"]): string {
  return operator === "+" ? "" : operator;
}

/** What joins an expression's values: `,` unless the operator says otherwise. */
function separatorOf(operator: Expression["operator"]): string {
  return operator === "?" || operator === "&"
    ? "&"
    : operator === "." || operator === "/" || operator === ";"
      ? operator
      : ",";
}

/** What an expression's value may not contain: a reserved one (§3.2.3, §3.2.4) anything, "?" and "#" included. */
function stopsOf(operator: Expression["operator"]): string {
  return operator === "+" || operator === "#"
    ? ""
    : operator === "?" || operator === "&"
      ? "#"
      : operator === "/"
        ? "?#"
        : "/?#";
}

/** The operators whose separator an expanded value may hold unencoded. */
const WHOLE_OPERATORS = new Set(["+", "#", "."]);

/** Longer URIs match no template (a resource URI is far shorter; this bounds the matching work). */
const MAX_MATCHED_URI = 65_536;

/** A part as what must come first (a literal, or an expression's prefix) and what its value may not hold. */
function token(part: Part): [prefix: string, stops: string | undefined] {
  return typeof part === "string" ? [part, undefined] : [prefixOf(part.operator), stopsOf(part.operator)];
}

/** Whether the character at x may be in a value that may not hold `stops` (a literal's: none may). */
function allowedAt(uri: string, stops: string | undefined, x: number): boolean {
  return stops !== undefined && x < uri.length && !stops.includes(uri[x] as string);
}

/**
 * One compiled RFC 6570 template (levels 1–3), for matching concrete URIs back to its variables.
 *
 * @example
 * new UriTemplate("users://{id}/posts{?limit}").match("users://42/posts?limit=5"); // { id: "42", limit: "5" }
 */
export class UriTemplate {
  readonly template: string;
  readonly variables: readonly string[];
  /**
   * The variables of simple and reserved expressions (`{id}`, `{+path}`): they have no prefix to
   * mark them absent, so a URI that leaves one empty names nothing there.
   */
  readonly required: readonly string[];
  readonly #parts: Part[];
  /** Each part's prefix and stops, read on every match. */
  readonly #tokens: [prefix: string, stops: string | undefined][];

  constructor(template: string) {
    this.template = template;
    this.#parts = parse(template);
    this.#tokens = this.#parts.map(token);
    this.variables = this.#parts.flatMap((part) => (typeof part === "string" ? [] : part.names));
    this.required = this.#parts.flatMap((part) =>
      typeof part === "string" || (part.operator !== "" && part.operator !== "+") ? [] : part.names,
    );
  }

  /** True when the string contains at least one `{expression}`. */
  static isTemplate(text: string): boolean {
    return /\{[^}]+\}/.test(text);
  }

  /**
   * The variables of a URI this template produced, or undefined when it does not match. The URI
   * splits as the regular expression this replaced split it (each expression present when it can
   * be, with its shortest value), but in time linear in the URI: two adjacent expressions made that
   * one backtrack for hours on a few kilobytes.
   */
  match(uri: string): Record<string, string> | undefined {
    const fits = uri.length > MAX_MATCHED_URI ? undefined : this.#fits(uri);
    if (!fits) return undefined;
    const values: Record<string, string> = {};
    let p = 0;
    for (let i = 0; i < this.#parts.length; i++) {
      const part = this.#parts[i] as Part;
      const [prefix, stops] = this.#tokens[i] as [string, string | undefined];
      let e = p + prefix.length;
      let present = uri.startsWith(prefix, p) && (prefix !== "" || allowedAt(uri, stops, e++));
      // The shortest value after which the rest fits, within the run of characters it may hold.
      while (present && !fits[i + 1]?.[e]) present = allowedAt(uri, stops, e++);
      if (!present) continue;
      const raw = uri.slice(p + prefix.length, e);
      p = e;
      if (typeof part === "string" || (raw === "" && prefix === "")) continue;
      const named = part.operator === ";" || part.operator === "?" || part.operator === "&";
      // Expansion leaves "," raw in a {+…}/{#…} value and "." in a {.…} one: a lone name takes it whole.
      const whole = part.names.length === 1 && WHOLE_OPERATORS.has(part.operator);
      const pieces = whole ? [raw] : raw.split(separatorOf(part.operator));
      for (let j = 0; j < pieces.length; j++) {
        const piece = pieces[j] as string;
        const eq = named ? piece.indexOf("=") : -1;
        const name = !named ? part.names[j] : eq < 0 ? piece : piece.slice(0, eq);
        const value = safeDecode(named ? (eq < 0 ? "" : piece.slice(eq + 1)) : piece);
        if (name === undefined || !part.names.includes(name) || value === undefined) return undefined;
        // Defined, not assigned: a variable may be named `__proto__`.
        Object.defineProperty(values, name, { value, enumerable: true, writable: true, configurable: true });
      }
    }
    return values;
  }

  /**
   * fits[i][p]: parts i.. match the URI from p to its end, computed from the last part back. A
   * literal is read as an expression that must be present and holds no value.
   */
  #fits(uri: string): Uint8Array[] | undefined {
    const tokens = this.#tokens;
    const n = uri.length;
    const fits: Uint8Array[] = [];
    let next = new Uint8Array(n + 1);
    next[n] = 1;
    for (let i = tokens.length; i-- > 0; ) {
      fits[i + 1] = next;
      const [prefix, stops] = tokens[i] as [string, string | undefined];
      const here = new Uint8Array(n + 1);
      // run[x]: a value going on at x can end, before any character it may not hold, where the rest fits.
      const run = new Uint8Array(n + 2);
      for (let p = n; p >= 0; p--) {
        run[p] = next[p] || (allowedAt(uri, stops, p) && run[p + 1]) ? 1 : 0;
        const v = p + prefix.length;
        // Like the expression's `(…)?`, a present one consumes something: a bare value needs a character.
        const present =
          uri.startsWith(prefix, p) && (prefix ? run[v] : allowedAt(uri, stops, v) && run[v + 1]);
        here[p] = (stops !== undefined && next[p]) || present ? 1 : 0;
      }
      next = here;
    }
    fits[0] = next;
    return next[0] ? fits : undefined;
  }
}

/**
 * Fills an RFC 6570 template (levels 1–3); missing variables are left out, as the RFC says. A
 * function of its own rather than a method, so that a server that only matches URIs ships none of it.
 *
 * @example
 * expandUriTemplate("files://{+path}{?rev}", { path: "docs/a.md", rev: "3" }); // "files://docs/a.md?rev=3"
 */
export function expandUriTemplate(
  template: string,
  values: Readonly<Record<string, string | undefined>>,
): string {
  return parse(template)
    .map((part) => {
      if (typeof part === "string") return part;
      const { operator } = part;
      const reserved = operator === "+" || operator === "#";
      const items = part.names
        // Own values only: `constructor` or `toString` unset is not Object.prototype's.
        .filter((name) => Object.hasOwn(values, name) && values[name] !== undefined)
        .map((name) => {
          const value = encode(values[name] as string, reserved);
          if (operator === ";") return value === "" ? name : `${name}=${value}`;
          if (operator === "?" || operator === "&") return `${name}=${value}`;
          return value;
        });
      return items.length === 0 ? "" : prefixOf(operator) + items.join(separatorOf(operator));
    })
    .join("");
}
