/**
 * What a 2025-11-25 HTTP session holds on the server besides its handshake: the log level of
 * `logging/setLevel` and the URIs of `resources/subscribe`. A new session opened because the server
 * forgot the old one holds none of it, so the client tells it again.
 */

/** One request to repeat on a new session (it gets a fresh id when sent). */
export interface SessionRequest {
  readonly method: string;
  readonly params: unknown;
}

/**
 * The session state the server accepted, kept from the requests it answered with a result.
 *
 * @example
 * const state = new LegacySessionState();
 * state.accepted("logging/setLevel", { level: "info" });
 * state.replay(); // [{ method: "logging/setLevel", params: { level: "info" } }]
 */
export class LegacySessionState {
  #level: SessionRequest | undefined;
  /** By URI: the subscribe request as the server accepted it. */
  readonly #subscribed = new Map<string, SessionRequest>();

  /** Takes in a request the server answered with a result; other methods are ignored. */
  accepted(method: string, params: unknown): void {
    const uri = (params as { uri?: unknown } | undefined)?.uri;
    if (method === "logging/setLevel") this.#level = { method, params };
    else if (typeof uri !== "string") return;
    else if (method === "resources/subscribe") this.#subscribed.set(uri, { method, params });
    else if (method === "resources/unsubscribe") this.#subscribed.delete(uri);
  }

  /** The requests that give a new session this state. */
  replay(): SessionRequest[] {
    const requests = [...this.#subscribed.values()];
    if (this.#level !== undefined) requests.unshift(this.#level);
    return requests;
  }
}
