// URL-mode elicitation asks the user to open a URL. The spec has the client show it and open it
// only with consent, but a host's callback that hands the URL to the system opener (`open`,
// `xdg-open`, `shell.openExternal`) would run `file:`, `javascript:` or an app's custom scheme as
// readily as a web page. A hostile server's non-web URL is therefore refused before any callback
// sees it: -32602, no retry.
import { describe, expect, it } from "vitest";
import type { ElicitationCallback } from "../../src/client/callbacks.js";
import { ProtocolError } from "../../src/shared/errors.js";
import { McpError } from "../../src/types/index.js";
import { connectTapped, stubServer, textOf } from "./stubs.js";

/** A stub whose tool asks the client to open `url`, then reports the answer it got. */
function askingToOpen(url: string) {
  const request = { method: "elicitation/create", params: { mode: "url", message: "Sign in", url } };
  return stubServer((method, params) => {
    if (method !== "tools/call") return undefined;
    const answer = (params.inputResponses as Record<string, unknown> | undefined)?.q;
    if (answer === undefined) return { resultType: "input_required", inputRequests: { q: request } };
    return { content: [{ type: "text", text: JSON.stringify(answer) }] };
  });
}

function consenting(): { elicitation: ElicitationCallback; urls: string[] } {
  const urls: string[] = [];
  return {
    elicitation: (_ctx, params) => {
      if (params.mode === "url") urls.push(params.url);
      return { action: "accept" };
    },
    urls,
  };
}

describe("URL-mode elicitation and the URL's scheme", () => {
  it.each([
    "file:///etc/passwd",
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vscode://settings/open",
    "smb://attacker.example/share",
  ])("refuses %s with -32602: the callback never sees it, and no retry is sent", async (url) => {
    const server = askingToOpen(url);
    const host = consenting();
    const { client } = await connectTapped(server, { elicitation: host.elicitation });
    const error = await client.callTool("t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({
      code: -32602,
      message: "URL-mode elicitation needs an http or https URL",
    });
    expect(host.urls).toEqual([]);
    expect(server.seen.filter((s) => s.method === "tools/call")).toHaveLength(1);
  });

  // No URI holds whitespace or control characters (RFC 3986), yet the URL parser drops a tab or
  // newline anywhere and trims the ends: "https://bank.example\n.evil.example/" would show the user
  // one host and open bank.example.evil.example. Such a URL is a malformed request, never shown.
  it.each([
    "https://bank.example\n.evil.example/login",
    "https://bank.example\t.evil.example/login",
    " https://auth.example/consent ",
    "https://auth.example/\u0000consent",
  ])("refuses %j as malformed: the callback never sees it, and no retry is sent", async (url) => {
    const server = askingToOpen(url);
    const host = consenting();
    const { client } = await connectTapped(server, { elicitation: host.elicitation });
    const error = await client.callTool("t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toMatch(
      /^The server sent a malformed InputRequiredResult for tools\/call \(inputRequests\.q/,
    );
    expect(host.urls).toEqual([]);
    expect(server.seen.filter((s) => s.method === "tools/call")).toHaveLength(1);
  });

  it.each(["https://auth.example/consent?flow=1", "HTTP://127.0.0.1:8080/done"])(
    "hands %s to the callback",
    async (url) => {
      const host = consenting();
      const { client } = await connectTapped(askingToOpen(url), { elicitation: host.elicitation });
      expect(textOf(await client.callTool("t"))).toBe('{"action":"accept"}');
      expect(host.urls).toEqual([url]);
    },
  );
});
