/**
 * URL-mode elicitation, the client's obligations (spec §2.10): show the full URL, highlight its
 * domain, warn on Punycode and other look-alike tricks, open only after explicit consent, and
 * never fetch it. Opening means printing it, or, with `--open`, handing it to the platform's
 * opener (no shell: the URL is a single argument).
 */
import { spawn } from "node:child_process";
import { domainToUnicode } from "node:url";
import { type Style, sanitize } from "./terminal.js";

/** A URL as the user must see it before consenting. */
export interface UrlView {
  /** The URL exactly as the server sent it (sanitized for the terminal). */
  readonly raw: string;
  /** The parsed, normalized URL: what would be opened. */
  readonly href: string;
  /** The host that will actually be contacted (Punycode as on the wire). */
  readonly host: string;
  /** The host as Unicode, when it differs (Punycode). */
  readonly unicodeHost: string | undefined;
  /** Only http and https URLs are ever opened. */
  readonly openable: boolean;
  readonly warnings: readonly string[];
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Reads a URL for display: its real host, and what the user should be warned about.
 *
 * @example
 * inspectUrl("https://xn--pple-43d.com/login").warnings; // ["The domain contains Punycode ..."]
 */
export function inspectUrl(raw: string): UrlView {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return {
      raw: sanitize(raw, true),
      href: sanitize(raw, true),
      host: "",
      unicodeHost: undefined,
      openable: false,
      warnings: ["This is not a valid URL; it will not be opened."],
    };
  }
  const warnings: string[] = [];
  const host = url.hostname;
  const openable = url.protocol === "https:" || url.protocol === "http:";
  let unicodeHost: string | undefined;
  if (host.split(".").some((label) => label.toLowerCase().startsWith("xn--"))) {
    const decoded = domainToUnicode(host);
    unicodeHost = decoded && decoded !== host ? decoded : undefined;
    warnings.push(
      `The domain contains Punycode (xn--)${unicodeHost ? `: it displays as "${sanitize(unicodeHost, true)}"` : ""}. ` +
        "It may imitate another domain; check it carefully.",
    );
  }
  if (url.username !== "" || url.password !== "") {
    warnings.push(
      `The URL puts "${sanitize(safeDecode(url.username), true)}${url.password ? ":…" : ""}@" before the ` +
        `domain: the site actually contacted is ${host}.`,
    );
  }
  if (!openable) warnings.push(`The scheme ${url.protocol} is not http(s); it will not be opened.`);
  else if (url.protocol === "http:" && !LOOPBACK.has(host)) {
    warnings.push("The URL is not HTTPS: what you enter there can be read on the network.");
  }
  return { raw: sanitize(raw, true), href: url.href, host, unicodeHost, openable, warnings };
}

/**
 * The full URL with its domain highlighted (bold, underlined, coloured when colour is on).
 *
 * @example
 * renderUrl(inspectUrl("https://github.com/login"), style); // "https://" + bold("github.com") + "/login"
 */
export function renderUrl(view: UrlView, style: Style): string {
  if (view.host === "") return view.href;
  const url = new URL(view.href);
  const userinfo =
    url.username !== "" || url.password !== ""
      ? `${url.username}${url.password === "" ? "" : `:${url.password}`}@`
      : "";
  const prefix = `${url.protocol}//${userinfo}`;
  const at = view.href.indexOf(view.host, prefix.length);
  if (!view.href.startsWith(prefix) || at !== prefix.length) return view.href;
  const highlight = (text: string) => style.bold(style.underline(style.cyan(text)));
  return prefix + highlight(view.host) + view.href.slice(at + view.host.length);
}

/**
 * The platform command that opens a URL in the default browser, with the URL as one argument.
 *
 * @example
 * openerFor("linux", "https://example.com"); // ["xdg-open", ["https://example.com"]]
 */
export function openerFor(platform: NodeJS.Platform, href: string): [string, string[]] {
  if (platform === "darwin") return ["open", [href]];
  // rundll32 takes the URL as a plain argument: no cmd.exe parsing of `&` and friends.
  if (platform === "win32") return ["rundll32", ["url.dll,FileProtocolHandler", href]];
  return ["xdg-open", [href]];
}

/**
 * Hands the URL to the platform opener (detached, no shell). Resolves once it was started;
 * rejects when it could not be.
 *
 * @example
 * await openUrl("https://github.com/login/device");
 */
export function openUrl(href: string, platform: NodeJS.Platform = process.platform): Promise<void> {
  const [command, args] = openerFor(platform, href);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { detached: true, stdio: "ignore" });
    child.once("error", reject);
    child.once("spawn", () => {
      child.unref();
      resolve();
    });
  });
}
