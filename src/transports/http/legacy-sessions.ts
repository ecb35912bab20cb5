/**
 * The live 2025 sessions of one HTTP endpoint: random `Mcp-Session-Id`s, a bound on how many may
 * live at once, an idle lifetime, and the principal each session belongs to.
 */
import type { LegacySession } from "../../server/legacy/session.js";
import type { HttpPlusSse } from "./legacy-sse-server.js";
import type { SseStream } from "./sse.js";

/**
 * Limits of the legacy sessions an HTTP endpoint keeps (`createHttpHandler` option `legacy`).
 *
 * @example
 * createHttpHandler(server, { legacy: { maxSessions: 200, sessionIdleTimeoutMs: 10 * 60_000 } });
 */
export interface LegacyHttpOptions {
  /**
   * Most live sessions (default 1 000). A new `initialize` beyond it ends the least recently used
   * idle session; when every session is busy it is refused with 503.
   */
  maxSessions?: number;
  /** A session nobody used for this long ends; its id then answers 404 (default 30 min). */
  sessionIdleTimeoutMs?: number;
  /**
   * Also serve clients of the deprecated HTTP+SSE transport (2024-11-05) on this URL: pass
   * `httpPlusSse` (imported on purpose, so servers without it do not carry it). A GET without
   * `Mcp-Session-Id` then opens a stream that names `?sessionId=…` for its POSTs. Streams live
   * while they are open, at most `maxSessions` of them.
   */
  sse?: HttpPlusSse;
}

/** The query parameter that names an HTTP+SSE stream on its POSTs. */
export const SSE_SESSION_PARAM = "sessionId";

export const DEFAULT_MAX_LEGACY_SESSIONS = 1_000;
export const DEFAULT_LEGACY_SESSION_IDLE_MS = 30 * 60_000;

/** One live session and what HTTP knows about it. */
export interface SessionEntry {
  readonly id: string;
  readonly session: LegacySession;
  /** Who opened it; later requests must come from the same principal. */
  readonly principal: string | undefined;
  lastSeen: number;
  /** The GET stream, while one is open. */
  stream: SseStream | undefined;
  /** POST exchanges still open. */
  active: number;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(Number.isInteger(value) && value > 0)) throw new RangeError(`${name} must be a positive integer`);
  return value;
}

/** A session id: 192 random bits, base64url (visible ASCII only, as the 2025 spec requires). */
export function newSessionId(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(24));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * The session table. Expiry is checked on every lookup and by a background sweep (an unref'd
 * timer that runs only while sessions exist).
 */
export class LegacySessionStore {
  readonly maxSessions: number;
  readonly idleTimeoutMs: number;
  readonly #entries = new Map<string, SessionEntry>();
  readonly #now: () => number;
  #sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(options: LegacyHttpOptions = {}, now: () => number = Date.now) {
    this.maxSessions = positive("legacy.maxSessions", options.maxSessions, DEFAULT_MAX_LEGACY_SESSIONS);
    this.idleTimeoutMs = positive(
      "legacy.sessionIdleTimeoutMs",
      options.sessionIdleTimeoutMs,
      DEFAULT_LEGACY_SESSION_IDLE_MS,
    );
    this.#now = now;
  }

  /**
   * Registers a session of `principal` (the server's, see `LegacyService.principalOf`) under a
   * fresh id; undefined when the table is full of busy sessions.
   */
  add(session: LegacySession, principal: string | undefined): SessionEntry | undefined {
    this.sweep();
    if (this.#entries.size >= this.maxSessions && !this.#evictOne(principal)) return undefined;
    const entry: SessionEntry = {
      id: newSessionId(),
      session,
      principal,
      lastSeen: this.#now(),
      stream: undefined,
      active: 0,
    };
    this.#entries.set(entry.id, entry);
    this.#startSweeping();
    return entry;
  }

  /**
   * The live session with this id for this principal, marked as used; undefined when unknown,
   * expired, ended, or opened by someone else (all of which answer 404).
   */
  get(id: string, principal: string | undefined): SessionEntry | undefined {
    const entry = this.#entries.get(id);
    if (!entry) return undefined;
    if (entry.session.closed || this.#expired(entry)) {
      this.delete(id);
      return undefined;
    }
    if (entry.principal !== principal) return undefined;
    entry.lastSeen = this.#now();
    return entry;
  }

  /** Ends a session: its work is aborted and its GET stream closed. */
  delete(id: string): boolean {
    const entry = this.#entries.get(id);
    if (!entry) return false;
    this.#entries.delete(id);
    entry.session.close("session ended");
    entry.stream?.end();
    entry.stream = undefined;
    if (this.#entries.size === 0) this.#stopSweeping();
    return true;
  }

  /** Ends every expired session. */
  sweep(): void {
    for (const [id, entry] of this.#entries) {
      if (entry.session.closed || this.#expired(entry)) this.delete(id);
    }
  }

  /** Ends every session (shutdown). */
  closeAll(): void {
    for (const id of [...this.#entries.keys()]) this.delete(id);
  }

  #idle(entry: SessionEntry): boolean {
    return !entry.session.busy && entry.active === 0;
  }

  #expired(entry: SessionEntry): boolean {
    return (
      this.#idle(entry) && entry.stream === undefined && this.#now() - entry.lastSeen > this.idleTimeoutMs
    );
  }

  /**
   * Ends the least recently used quiet session (idle, no GET stream open: a listening client is
   * using its session) to make room, the requester's own first; false when none is quiet.
   */
  #evictOne(principal: string | undefined): boolean {
    let oldest: SessionEntry | undefined;
    let oldestOwn: SessionEntry | undefined;
    for (const entry of this.#entries.values()) {
      if (!this.#idle(entry) || entry.stream !== undefined) continue;
      if (!oldest || entry.lastSeen < oldest.lastSeen) oldest = entry;
      if (entry.principal === principal && (!oldestOwn || entry.lastSeen < oldestOwn.lastSeen))
        oldestOwn = entry;
    }
    const victim = oldestOwn ?? oldest;
    return victim !== undefined && this.delete(victim.id);
  }

  #startSweeping(): void {
    if (this.#sweeper !== undefined) return;
    const every = Math.max(1_000, Math.min(this.idleTimeoutMs, 60_000));
    this.#sweeper = setInterval(() => this.sweep(), every);
    // Never keep a process alive just to expire sessions.
    (this.#sweeper as { unref?: () => void }).unref?.();
  }

  #stopSweeping(): void {
    if (this.#sweeper !== undefined) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }
}
