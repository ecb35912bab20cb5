/**
 * How the CLI authenticates to an HTTP server: a bearer token from the environment, or an OAuth
 * sign-in in the user's browser that comes back to a one-shot listener on 127.0.0.1.
 */
import { chmod, readFile, stat, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname } from "node:path";
import type { AuthProviderOption } from "../transports/http/auth.js";
import { OAuthClientProvider } from "../transports/http/oauth/provider.js";
import type { OAuthState, OAuthStore } from "../transports/http/oauth/provider-options.js";
import type { CliAuth } from "./args.js";
import { UsageError, UserAbortError } from "./exit.js";
import type { Ui } from "./ui.js";
import { inspectUrl, renderUrl } from "./url.js";

/** How long a sign-in may take in the browser. */
const SIGN_IN_TIMEOUT_MS = 5 * 60_000;

/** The authentication of one run: the provider for the transport, and what to stop afterwards. */
export interface CliAuthSession {
  readonly provider: AuthProviderOption | undefined;
  /**
   * Whether a sign-in is waiting for the browser: it runs inside the request that met the 401, so
   * that request's --timeout can end it first.
   */
  signInPending(): boolean;
  close(): Promise<void>;
}

const NONE: CliAuthSession = { provider: undefined, signInPending: () => false, close: async () => {} };

/**
 * The provider for `auth`. A missing `--bearer-env` variable is a usage error; `--oauth` listens
 * for the browser's return only while a sign-in waits for it.
 *
 * @example
 * const session = await cliAuth({ kind: "bearer", env: "MCP_TOKEN" }, { env: process.env, ui, open: false, opener });
 */
export async function cliAuth(
  auth: CliAuth,
  context: {
    env: Record<string, string | undefined>;
    ui: Ui;
    open: boolean;
    opener: (href: string) => Promise<void>;
    signal?: AbortSignal;
  },
): Promise<CliAuthSession> {
  if (auth.kind === "none") return NONE;
  if (auth.kind === "bearer") {
    const token = context.env[auth.env];
    if (token === undefined || token === "") {
      throw new UsageError(
        looksLikeVariableName(auth.env)
          ? `the environment variable ${auth.env} is not set`
          : "the environment variable given to --bearer-env is not set (was a token passed instead of a variable name?)",
      );
    }
    // fetch would refuse it in an error that quotes the whole header, token included.
    if (/[\0\r\n\u0100-\uffff]/.test(token.trim())) {
      throw new UsageError(
        `the token in ${auth.env} holds a character an HTTP header cannot carry (a line break?)`,
      );
    }
    return { provider: () => token, signInPending: () => false, close: async () => {} };
  }
  const file = auth.store === undefined ? undefined : fileStore(auth.store);
  // Read once, here, so a loose or broken store file is a usage error rather than a failed request;
  // the provider then gets what was read.
  const initial = await file?.load();
  const store = file && { load: () => initial, save: file.save };
  const callback = await listenForCallback(auth.port);
  const secret = context.env.ROUNDTRIP_OAUTH_CLIENT_SECRET;
  const provider = new OAuthClientProvider({
    clientName: "roundtrip CLI",
    ...(store !== undefined ? { store } : {}),
    redirectUri: callback.redirectUri,
    ...(auth.clientId !== undefined
      ? { client: { clientId: auth.clientId, ...(secret ? { clientSecret: secret } : {}) } }
      : {}),
    authorize: async (page) => {
      const returned = callback.next(context.signal);
      const { ui } = context;
      ui.line(`${ui.style.bold("Sign in")} to continue: ${renderUrl(inspectUrl(page.href), ui.style)}`);
      for (const warning of inspectUrl(page.href).warnings) ui.line(ui.style.yellow(warning));
      if (context.open) await context.opener(page.href).catch(() => ui.line("(could not open a browser)"));
      return returned;
    },
  });
  return { provider, signInPending: callback.waiting, close: callback.close };
}

/**
 * Whether a `--bearer-env` value is in the usual NAME_STYLE, and so safe to echo: anything else
 * may be a token passed by mistake, which must not reach a terminal or a CI log.
 */
function looksLikeVariableName(name: string): boolean {
  return name.length <= 40 && /^[A-Z0-9_]+$/.test(name);
}

/**
 * The provider's state in a JSON file only its owner can read: created with mode 600, and refused
 * (a usage error) when group or others may read or write it, as ssh refuses a loose key.
 */
export function fileStore(path: string): OAuthStore {
  return {
    load: async () => {
      let mode: number;
      try {
        mode = (await stat(path)).mode;
      } catch {
        await checkFolder(path);
        return undefined; // not there yet: the first sign-in creates it
      }
      if ((mode & 0o077) !== 0) {
        throw new UsageError(`${path} is readable or writable by others: chmod 600 it, or remove it`);
      }
      try {
        return JSON.parse(await readFile(path, "utf8")) as OAuthState;
      } catch {
        throw new UsageError(`${path} is not a roundtrip OAuth store`);
      }
    },
    save: async (state) => {
      await writeFile(path, JSON.stringify(state), { mode: 0o600 });
      await chmod(path, 0o600);
    },
  };
}

/**
 * Refuses (a usage error) a store file that could not be created: found out only when the first
 * save fails, it would end the run as a failed request, after the registration or the sign-in.
 */
async function checkFolder(path: string): Promise<void> {
  const folder = dirname(path);
  const isFolder = await stat(folder).then(
    (found) => found.isDirectory(),
    () => false,
  );
  if (!isFolder) throw new UsageError(`--oauth-store ${path}: there is no folder ${folder} to create it in`);
}

/** The base a request's target is read against: only its path and query matter. */
const LOOPBACK_BASE = "http://127.0.0.1";

/**
 * A request target as a URL, or undefined when it does not parse (`//`, for one): anything
 * thrown in the listener would be uncaught and end the CLI.
 */
function requestUrl(target: string | undefined): URL | undefined {
  try {
    return new URL(target ?? "/", LOOPBACK_BASE);
  } catch {
    return undefined;
  }
}

/** A listener for the authorization server's redirect, on 127.0.0.1 (a native app's redirect URI). */
async function listenForCallback(port: number) {
  let deliver: ((url: URL) => void) | undefined;
  const server: Server = createServer((req, res) => {
    const url = requestUrl(req.url);
    if (url === undefined) {
      res.writeHead(400).end();
      return;
    }
    if (url.pathname !== "/callback" || deliver === undefined) {
      res.writeHead(404).end();
      return;
    }
    // An authorization server that refused (RFC 6749 §4.1.2.1: `error=access_denied`) sends the
    // browser back here too: the page must not claim a sign-in. The terminal says why.
    const refused = url.searchParams.has("error");
    res
      .writeHead(200, { "content-type": "text/plain" })
      .end(
        refused
          ? "The sign-in to roundtrip did not complete. You can close this tab; the terminal says why."
          : "Signed in to roundtrip. You can close this tab.",
      );
    deliver(url);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      // A port the user chose and must change, like any bad argument (exit 2); nothing reached the server.
      reject(
        error.code === "EADDRINUSE"
          ? new UsageError(
              `--oauth-port ${port}: the port is in use on 127.0.0.1 ` +
                "(pick another one, or leave --oauth-port out for any free port)",
            )
          : error,
      ),
    );
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  return {
    redirectUri,
    /** Whether a sign-in waits for the browser to come back. */
    waiting: () => deliver !== undefined,
    /** The URL the browser comes back to; fails after the sign-in timeout or on Ctrl-C. */
    next: (signal?: AbortSignal) =>
      new Promise<URL>((resolve, reject) => {
        const timer = setTimeout(
          () => finish(new Error("the sign-in was not completed in time")),
          SIGN_IN_TIMEOUT_MS,
        );
        const aborted = () => finish(new UserAbortError("the sign-in was cancelled"));
        function finish(outcome: URL | Error) {
          clearTimeout(timer);
          signal?.removeEventListener("abort", aborted);
          deliver = undefined;
          if (outcome instanceof URL) resolve(outcome);
          else reject(outcome);
        }
        signal?.addEventListener("abort", aborted, { once: true });
        deliver = finish;
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
