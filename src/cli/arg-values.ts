/**
 * The values of the command line's options and its target, each checked and turned into what the
 * CLI uses. Pure: errors are `UsageError`s (exit 2) that never repeat a secret.
 */
import { basename, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Root } from "../types/index.js";
import { UsageError } from "./exit.js";

export function splitPair(option: string, value: string): [string, string] {
  const at = value.indexOf("=");
  if (at <= 0) throw new UsageError(`${option} expects key=value, got ${JSON.stringify(value)}`);
  return [value.slice(0, at), value.slice(at + 1)];
}

export function parseJsonValue(option: string, key: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // The value is not repeated: an answer may be a password, and this message may land in a log.
    throw new UsageError(
      `${option} ${key}=…: the value is not JSON; quote strings, e.g. ${option} ${key}='"text"'`,
    );
  }
}

export function parseArgsJson(option: string, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${option} expects a JSON object, got ${JSON.stringify(text)}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`${option} expects a JSON object, got ${text}`);
  }
  return value as Record<string, unknown>;
}

export function parseCount(option: string, text: string, min: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min) {
    throw new UsageError(`${option} expects an integer ≥ ${min}, got ${JSON.stringify(text)}`);
  }
  return value;
}

/**
 * A `--root` value as a `Root`: a `file://` URI as given, or a path made absolute.
 *
 * @example
 * rootFrom("/work/repo", "/"); // { uri: "file:///work/repo", name: "repo" }
 */
export function rootFrom(value: string, cwd: string): Root {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    if (!value.toLowerCase().startsWith("file://") || !URL.canParse(value)) {
      throw new UsageError(`--root expects a path or a file:// URI, got ${JSON.stringify(value)}`);
    }
    const uri = new URL(value).href;
    let name: string;
    try {
      name = basename(fileURLToPath(uri));
    } catch {
      name = uri;
    }
    return name ? { uri, name } : { uri };
  }
  if (value === "") throw new UsageError("--root expects a path or a file:// URI");
  const path = resolve(cwd, value);
  const name = basename(path);
  const uri = pathToFileURL(path).href;
  return name ? { uri, name } : { uri };
}

export function targetFrom(operand: string | undefined): string {
  if (operand === undefined) {
    throw new UsageError('missing <target>: a Streamable HTTP URL, or "-- command args..." for stdio');
  }
  const parsed = URL.canParse(operand) ? new URL(operand) : undefined;
  if (parsed !== undefined && (parsed.username !== "" || parsed.password !== "")) {
    // fetch refuses such a URL, and the error would then print the password: refuse it here,
    // without echoing it.
    throw new UsageError(
      "the target URL must not contain a user name or password; pass a token with --bearer-env NAME, " +
        "or sign in with --oauth",
    );
  }
  if (!/^https?:\/\//i.test(operand) || parsed === undefined) {
    throw new UsageError(
      `${JSON.stringify(operand)} is not an http(s) URL; for a stdio server put its command line ` +
        'after "--", e.g. roundtrip tools -- node server.js',
    );
  }
  return operand;
}
