import { describe, expect, it } from "vitest";
import { expandUriTemplate, UriTemplate } from "../../../src/server/mcp/index.js";
import { resultOf } from "../../helpers.js";
import { prng } from "../../prng.js";
import { quietServer, send, stamp } from "./helpers.js";

/** The variables of RFC 6570 §1.2 / §3.2 (levels 1–3). */
const RFC = {
  var: "value",
  hello: "Hello World!",
  path: "/foo/bar",
  x: "1024",
  y: "768",
  empty: "",
};

const expand = (template: string, values: Record<string, string | undefined> = RFC) =>
  expandUriTemplate(template, values);
const match = (template: string, uri: string) => new UriTemplate(template).match(uri);

describe("UriTemplate.expand (RFC 6570 §1.2 examples)", () => {
  it.each([
    // level 1
    ["{var}", "value"],
    // level 2
    ["{+var}", "value"],
    ["{+hello}", "Hello%20World!"],
    ["{+path}/here", "/foo/bar/here"],
    ["here?ref={+path}", "here?ref=/foo/bar"],
    ["X{#var}", "X#value"],
    ["X{#hello}", "X#Hello%20World!"],
    // level 3
    ["map?{x,y}", "map?1024,768"],
    ["{+x,hello,y}", "1024,Hello%20World!,768"],
    ["{+path,x}/here", "/foo/bar,1024/here"],
    ["{#x,hello,y}", "#1024,Hello%20World!,768"],
    ["{#path,x}/here", "#/foo/bar,1024/here"],
    ["X{.var}", "X.value"],
    ["X{.x,y}", "X.1024.768"],
    ["{/var}", "/value"],
    ["{/var,x}/here", "/value/1024/here"],
    ["{;x,y}", ";x=1024;y=768"],
    ["{;x,y,empty}", ";x=1024;y=768;empty"],
    ["{?x,y}", "?x=1024&y=768"],
    ["{?x,y,empty}", "?x=1024&y=768&empty="],
    ["?fixed=yes{&x}", "?fixed=yes&x=1024"],
    ["{&x,y,empty}", "&x=1024&y=768&empty="],
  ])("%s → %s", (template, expected) => {
    expect(expand(template)).toBe(expected);
  });

  it("leaves undefined variables out, and drops an expression with nothing defined", () => {
    expect(expand("x://{a}/{b}", { a: "1" })).toBe("x://1/");
    expect(expand("x://s{?q,limit}", { limit: "5" })).toBe("x://s?limit=5");
    expect(expand("x://s{?q,limit}", {})).toBe("x://s");
    expect(expand("x://s{/seg}{#frag}", {})).toBe("x://s");
  });

  it("percent-encodes simple values (slash included) but keeps reserved characters in {+…} and {#…}", () => {
    expect(expand("files://{name}", { name: "a b/c?d" })).toBe("files://a%20b%2Fc%3Fd");
    expect(expand("files://{+name}", { name: "a b/c?d" })).toBe("files://a%20b/c?d");
    expect(expand("files://{+name}", { name: "already%20encoded" })).toBe("files://already%20encoded");
    expect(expand("x://{v}", { v: "é" })).toBe("x://%C3%A9");
  });

  it("keeps [ and ] (gen-delims, as an IPv6 host needs) in {+…} and {#…}, and a %5B triplet as it is", () => {
    expect(expand("http://{+host}/x", { host: "[::1]:8080" })).toBe("http://[::1]:8080/x");
    expect(expand("x://s{#f}", { f: "a[0]" })).toBe("x://s#a[0]");
    expect(expand("x://{+p}", { p: "%5B[" })).toBe("x://%5B[");
    expect(expand("x://{p}", { p: "[" })).toBe("x://%5B");
    expect(match("http://{+host}/x", "http://[::1]:8080/x")).toEqual({ host: "[::1]:8080" });
  });

  // Regression: simple string expansion must percent-encode everything outside "unreserved"
  // (RFC 6570 §3.2.1 / §3.2.2), and the RFC's own level-1 example is `{hello}` →
  // `Hello%20World%21`. The implementation uses encodeURIComponent, which leaves `!'()*`
  // unencoded, so `{hello}` expands to `Hello%20World!`.
  it.each([
    ["{hello}", "Hello%20World%21"],
    ["{x,hello,y}", "1024,Hello%20World%21,768"],
    ["{?q}", "?q=it%27s%20%28a%29%20%2Ab%2A"],
  ])("encodes !'()* in simple expansion: %s → %s", (template, expected) => {
    expect(expand(template, { ...RFC, q: "it's (a) *b*" })).toBe(expected);
  });
});

describe("UriTemplate.match", () => {
  it("matches a simple variable and percent-decodes it", () => {
    expect(match("users://{id}", "users://42")).toEqual({ id: "42" });
    expect(match("users://{id}", "users://acme%20inc")).toEqual({ id: "acme inc" });
    expect(match("users://{id}", "users://%C3%A9t%C3%A9")).toEqual({ id: "été" });
  });

  it("matches several variables across literals", () => {
    expect(match("repos://{owner}/{repo}/issues/{n}", "repos://me/rt/issues/7")).toEqual({
      owner: "me",
      repo: "rt",
      n: "7",
    });
    expect(match("map://{x,y}", "map://1024,768")).toEqual({ x: "1024", y: "768" });
  });

  it("matches {+path} across slashes", () => {
    expect(match("files://{+path}", "files://a/b/c.txt")).toEqual({ path: "a/b/c.txt" });
    expect(match("files://{+path}/raw", "files://a/b/raw")).toEqual({ path: "a/b" });
  });

  it("matches {#frag}, {.ext} and {/seg}", () => {
    expect(match("doc://x{#frag}", "doc://x#sec/2")).toEqual({ frag: "sec/2" });
    expect(match("doc://x{#frag}", "doc://x")).toEqual({});
    expect(match("file://{name}{.ext}", "file://report.pdf")).toEqual({ name: "report", ext: "pdf" });
    expect(match("x://root{/seg}", "x://root/a")).toEqual({ seg: "a" });
    expect(match("x://root{/seg}", "x://root")).toEqual({});
  });

  it("matches {;params}", () => {
    expect(match("x://m{;p,q}", "x://m;p=1;q=2")).toEqual({ p: "1", q: "2" });
    expect(match("x://m{;p,q}", "x://m;p=1;q")).toEqual({ p: "1", q: "" });
  });

  it("matches {?q,limit} in any order, partially, and {&x} continuations", () => {
    expect(match("search://s{?q,limit}", "search://s?q=cats&limit=5")).toEqual({ q: "cats", limit: "5" });
    expect(match("search://s{?q,limit}", "search://s?limit=5&q=big%20cats")).toEqual({
      limit: "5",
      q: "big cats",
    });
    expect(match("search://s{?q,limit}", "search://s?q=x")).toEqual({ q: "x" });
    expect(match("search://s{?q,limit}", "search://s")).toEqual({});
    expect(match("search://s?fixed=yes{&x}", "search://s?fixed=yes&x=1024")).toEqual({ x: "1024" });
  });

  it("round-trips what expand produced", () => {
    for (const [template, values] of [
      ["users://{id}", { id: "a b" }],
      ["files://{+path}", { path: "dir/sub/file.txt" }],
      ["search://s{?q,limit}", { q: "x y", limit: "10" }],
      ["x://m{;p}", { p: "1" }],
      ["doc://d{#frag}", { frag: "top" }],
    ] as const) {
      const t = new UriTemplate(template);
      expect(t.match(expandUriTemplate(template, values))).toEqual(values);
    }
  });

  // Regression: a multi-variable path-segment expression cannot match its own expansion: `{/var,x}`
  // expands to "/value/1024" (RFC 6570 §1.2, level 3), but the matcher's pattern for "/" is a
  // single segment (`[^/?#]*`), so `match("{/var,x}/here", "/value/1024/here")` is undefined.
  it('reads back a lone {+…}, {#…} or {.…} value holding its separator ("," or "."), as expanded', () => {
    const cases: [string, Record<string, string>][] = [
      ["files://{+path}", { path: "docs/a,b.md" }],
      ["x://s{#frag}", { frag: "a,b" }],
      ["files://x{.ext}", { ext: "tar.gz" }],
      ["files://{name}{.ext}", { name: "report", ext: "tar.gz" }],
    ];
    for (const [template, values] of cases) {
      expect(match(template, expand(template, values))).toEqual(values);
    }
    // A simple or {/…} value has its separator encoded: a raw one still splits (and here matches nothing).
    expect(match("x://h{/s}", "x://h/p/q")).toBeUndefined();
    expect(match("x://{a}", "x://1,2")).toBeUndefined();
    expect(match("x://{+a,b}", "x://1,2")).toEqual({ a: "1", b: "2" });
  });

  it("serves resources/read of a {+path} template for a path with a comma", async () => {
    const mcp = quietServer("files");
    mcp.resource("files://{+path}", {}, ({ path }) => `read ${path}`);
    expect(resultOf(await send(mcp, "resources/read", { uri: "files://docs/a,b.md" }))).toEqual({
      contents: [{ uri: "files://docs/a,b.md", text: "read docs/a,b.md" }],
      resultType: "complete",
      _meta: stamp("files"),
      ttlMs: 0,
      cacheScope: "private",
    });
  });

  // Regression: RFC 6570 §3.2.3/§3.2.4 let a {+…} or {#…} value keep "?" and "#" unencoded, but the
  // matcher stopped such a value at either, so `files://{+path}` read as `files://a?b` matched nothing.
  it("round-trips {+…} and {#…} values holding ? and # (200 random values per template)", () => {
    const rng = prng(3986);
    const alphabet = [
      "a",
      "Z",
      "0",
      "/",
      "?",
      "#",
      ",",
      "=",
      "&",
      ";",
      ":",
      "@",
      "!",
      "[",
      "]",
      " ",
      "é",
      ".",
    ];
    const templates: [string, string][] = [
      ["files://{+path}", "path"],
      ["files://{+path}/raw", "path"],
      ["doc://x{#frag}", "frag"],
      ["doc://{id}{#frag}", "frag"],
      ["files://v1{+path}", "path"],
    ];
    for (const [template, name] of templates) {
      for (let run = 0; run < 200; run++) {
        const value = Array.from({ length: 1 + rng.int(10) }, () => rng.pick(alphabet)).join("");
        const values: Record<string, string> =
          name === "frag" && template.includes("{id}") ? { id: "7" } : {};
        values[name] = value;
        const uri = expand(template, values);
        expect(match(template, uri), `${template} ← ${uri}`).toEqual(values);
      }
    }
    expect(match("files://{+path}", "files://a?b#c")).toEqual({ path: "a?b#c" });
    expect(match("doc://x{#frag}", "doc://x#q?x=1#2")).toEqual({ frag: "q?x=1#2" });
    // A query after a {+…} value still goes to {?…}: the value is the shortest that lets the rest fit.
    expect(match("files://{+path}{?rev}", "files://a/b?rev=3")).toEqual({ path: "a/b", rev: "3" });
  });

  it("serves resources/read of a {+path} template for a path with ? and #", async () => {
    const mcp = quietServer("files");
    mcp.resource("files://{+path}", {}, ({ path }) => `read ${path}`);
    expect(resultOf(await send(mcp, "resources/read", { uri: "files://a?b#c" }))).toEqual({
      contents: [{ uri: "files://a?b#c", text: "read a?b#c" }],
      resultType: "complete",
      _meta: stamp("files"),
      ttlMs: 0,
      cacheScope: "private",
    });
  });

  it("matches a multi-variable {/a,b} expression (round trip of the RFC example)", () => {
    expect(match("{/var,x}/here", "/value/1024/here")).toEqual({ var: "value", x: "1024" });
  });

  it("does not match URIs of another shape", () => {
    expect(match("users://{id}", "groups://42")).toBeUndefined();
    expect(match("users://{id}", "users://42/extra")).toBeUndefined();
    expect(match("users://{id}/profile", "users://42")).toBeUndefined();
    expect(match("search://s{?q}", "search://s?other=1")).toBeUndefined();
    expect(match("users://{id}", "xusers://42")).toBeUndefined();
    expect(match("users://{id}", "users://42?x=1")).toBeUndefined();
  });

  it("does not match a value with a broken percent-escape", () => {
    expect(match("users://{id}", "users://%ZZ")).toBeUndefined();
    expect(match("search://s{?q}", "search://s?q=%E0%A4%A")).toBeUndefined();
  });

  it("escapes regex metacharacters in literals", () => {
    expect(match("x://a.b/{id}", "x://a.b/1")).toEqual({ id: "1" });
    expect(match("x://a.b/{id}", "x://aXb/1")).toBeUndefined();
    expect(match("x://(a)+/{id}", "x://(a)+/1")).toEqual({ id: "1" });
  });
});

describe("UriTemplate parsing", () => {
  it("lists its variables in order", () => {
    expect(new UriTemplate("repos://{owner}/{repo}{?q,limit}{#frag}").variables).toEqual([
      "owner",
      "repo",
      "q",
      "limit",
      "frag",
    ]);
  });

  it.each([
    ["an unclosed brace", "users://{id", /unclosed "\{"/],
    ["a hyphenated name", "users://{a-b}", /unsupported variable "a-b"/],
    ["an empty expression", "users://{}", /unsupported variable ""/],
    ["an empty name in a list", "users://{a,}", /unsupported variable ""/],
    ["a level-4 prefix modifier", "users://{id:3}", /unsupported variable "id:3"/],
    ["a level-4 explode modifier", "users://{list*}", /unsupported variable "list\*"/],
    ["a reserved operator", "users://{=id}", /unsupported variable "=id"/],
    ["a space in a name", "users://{a b}", /unsupported variable "a b"/],
  ])("rejects %s", (_label, template, message) => {
    expect(() => new UriTemplate(template)).toThrow(message);
    expect(() => new UriTemplate(template)).toThrow(/^Invalid URI template/);
  });

  it("accepts dotted names", () => {
    expect(match("x://{a.b}", "x://1")).toEqual({ "a.b": "1" });
  });

  // Regression: RFC 6570 §2.1 excludes "}" from literals, so a stray closing brace is an
  // invalid template; it is accepted as a literal.
  it("rejects a stray closing brace", () => {
    expect(() => new UriTemplate("users://a}b")).toThrow(/Invalid URI template/);
  });

  it("isTemplate tells templates from plain URIs", () => {
    expect(UriTemplate.isTemplate("users://{id}")).toBe(true);
    expect(UriTemplate.isTemplate("search://s{?q}")).toBe(true);
    expect(UriTemplate.isTemplate("file:///notes.txt")).toBe(false);
    expect(UriTemplate.isTemplate("x://literal{")).toBe(false);
  });
});

/**
 * The matcher as it was, a regular expression with lazy optional groups, and the decoding of its
 * captures: the oracle for how a URI splits. Only ever run on short URIs, where its backtracking
 * stays cheap.
 */
function regexMatch(template: string, uri: string): Record<string, string> | undefined {
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const prefixes: Record<string, string> = {
    "": "",
    "+": "",
    "#": "#",
    ".": ".",
    "/": "/",
    ";": ";",
    "?": "?",
    "&": "&",
  };
  const separators: Record<string, string> = {
    "": ",",
    "+": ",",
    "#": ",",
    ".": ".",
    "/": "/",
    ";": ";",
    "?": "&",
    "&": "&",
  };
  const captures: { operator: string; names: string[] }[] = [];
  let source = "^";
  for (const piece of template.split(/(\{[^}]*\})/)) {
    if (!piece.startsWith("{")) {
      source += literal(piece);
      continue;
    }
    const body = piece.slice(1, -1);
    const operator = /^[+#./;?&]/.test(body) ? (body[0] as string) : "";
    captures.push({ operator, names: body.slice(operator.length).split(",") });
    // The second change since: a {+…} or {#…} value may hold "?" and "#" (RFC 6570 §3.2.3, §3.2.4).
    const value = ["+", "#"].includes(operator)
      ? "[\\s\\S]*?"
      : operator === "/"
        ? "[^?#]*?"
        : ["?", "&"].includes(operator)
          ? "[^#]*?"
          : "[^/?#]*?";
    source += `(${literal(prefixes[operator] as string)}${value})?`;
  }
  const found = new RegExp(`${source}$`).exec(uri);
  if (!found) return undefined;
  const values: Record<string, string> = {};
  for (const [i, { operator, names }] of captures.entries()) {
    const raw = found[i + 1];
    if (raw === undefined || raw === "") continue;
    const value = raw.slice((prefixes[operator] as string).length);
    // The one change since: a lone name of {+…}, {#…} or {.…} takes its value whole, separators and all.
    const whole = names.length === 1 && ["+", "#", "."].includes(operator);
    const pieces = whole ? [value] : value.split(separators[operator] as string);
    const named = [";", "?", "&"].includes(operator);
    if (!named && pieces.length > names.length) return undefined;
    for (const [j, piece] of pieces.entries()) {
      const eq = named ? piece.indexOf("=") : -1;
      const name = named ? (eq < 0 ? piece : piece.slice(0, eq)) : (names[j] as string);
      if (!names.includes(name)) return undefined;
      try {
        values[name] = decodeURIComponent(named ? (eq < 0 ? "" : piece.slice(eq + 1)) : piece);
      } catch {
        return undefined;
      }
    }
  }
  return values;
}

describe("UriTemplate.match: linear time, and the same splits as the regular expression it replaced", () => {
  it("agrees with the old regular expression on 20,000 random templates and URIs", () => {
    const rng = prng(6570);
    const alphabet = ["a", "b", "/", ".", ",", ";", "=", "&", "?", "#", "%41", "%", "q=", "s", "x"];
    const pieces = [
      "x://",
      "a",
      "/",
      ".",
      "-",
      "{a}",
      "{b,c}",
      "{+p}",
      "{#f}",
      "{.e}",
      "{/s}",
      "{/s,t}",
      "{;m}",
      "{?q}",
      "{?q,r}",
      "{&k}",
    ];
    let matched = 0;
    for (let run = 0; run < 20_000; run++) {
      const template = Array.from({ length: 1 + rng.int(4) }, () => rng.pick(pieces)).join("");
      const uri = Array.from({ length: rng.int(12) }, () => rng.pick(alphabet)).join("");
      const expected = regexMatch(template, uri);
      expect(new UriTemplate(template).match(uri), `${template} ← ${uri}`).toEqual(expected);
      if (expected !== undefined) matched++;
    }
    expect(matched).toBeGreaterThan(1_000);
  });

  it.each([
    ["x://{a}{b}{c}", `x://${"a".repeat(50_000)}/`],
    ["x://h{/a}{/b}{/c}", `x://h${"/a".repeat(25_000)}#`],
    ["x://{a}.{b}", `x://${"a.".repeat(25_000)}/`],
    ["x://{+a}/{+b}/end{?q}", `x://${"a/".repeat(25_000)}#`],
  ])(
    "refuses %s for a hostile 50 KB URI at once (the old expression backtracked for hours)",
    (template, uri) => {
      // No timing here: the old matcher would simply never finish within the test's timeout.
      expect(new UriTemplate(template).match(uri)).toBeUndefined();
    },
  );

  it("matches no URI longer than 64 KiB, and one just shorter normally", () => {
    const template = new UriTemplate("x://{a}");
    expect(template.match(`x://${"a".repeat(65_536 - 4)}`)).toEqual({ a: "a".repeat(65_532) });
    expect(template.match(`x://${"a".repeat(65_536 - 3)}`)).toBeUndefined();
  });
});

// Variable names are the template author's, and `__proto__` or `constructor` is a legal RFC 6570
// varname. Stored by plain assignment, a `{__proto__}` value was silently dropped; read by plain
// lookup, a missing `{constructor}` was Object's own `constructor` function: expansion wrote its
// source into the URI, and a template whose `{constructor}` was absent still counted it as present.
describe("variables named like Object.prototype's members", () => {
  it("match reads `__proto__` and `constructor` as own values", () => {
    const variables = match("x://{__proto__}/{constructor}", "x://a/b");
    // A literal's `__proto__:` would set the prototype: the expected object comes from JSON.
    expect(variables).toEqual(JSON.parse('{"__proto__":"a","constructor":"b"}'));
    expect(Object.keys(variables ?? {})).toEqual(["__proto__", "constructor"]);
    expect(Object.getPrototypeOf(variables)).toBe(Object.prototype);
  });

  it("expand leaves out a `constructor` or `toString` that was not given", () => {
    expect(expand("x://{constructor}{?toString,q}", { q: "1" })).toBe("x://?q=1");
    expect(expand("x://{constructor}", JSON.parse('{"constructor":"c"}'))).toBe("x://c");
  });

  it("resources/read serves a `{__proto__}` value, and finds no resource where `{constructor}` is empty", async () => {
    const mcp = quietServer("objects");
    mcp.resource("obj://{__proto__}/{+rest}", {}, (variables) => `read ${JSON.stringify(variables)}`);
    mcp.resource("ctor://{constructor}", {}, () => "never");
    expect(resultOf(await send(mcp, "resources/read", { uri: "obj://a/b" })).contents).toEqual([
      { uri: "obj://a/b", text: 'read {"__proto__":"a","rest":"b"}' },
    ]);
    expect(await send(mcp, "resources/read", { uri: "ctor://" })).toMatchObject({
      error: { code: -32602, message: "Resource not found: ctor://", data: { uri: "ctor://" } },
    });
  });
});
