import { RoundtripError } from "../../../shared/errors.js";

/**
 * The OAuth client gave up: discovery found nothing usable, a document failed validation (a
 * resource or issuer that does not match, an endpoint that is not HTTPS), the authorization server
 * answered an error, or the redirect back did not check out (state, `iss`). `code` is the OAuth
 * error code when the server sent one, else one of ours; messages never carry a token, code,
 * verifier or client secret.
 *
 * @example
 * try { await client.listTools(); } catch (e) { if (e instanceof OAuthError && e.code === "access_denied") showLogin(); }
 */
export class OAuthError extends RoundtripError {
  /** An RFC 6749 error code (`invalid_grant`, `access_denied`, …) or one of ours (`discovery_failed`, …). */
  readonly code: string;
  /** The HTTP status the authorization server refused with, when it answered at all. */
  readonly status: number | undefined;

  constructor(code: string, message: string, status?: number) {
    super(message);
    this.code = code;
    this.status = status;
  }
}
