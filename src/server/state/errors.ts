/**
 * Raised when a request-state token or its claims fail verification.
 *
 * The message is a short, log-only reason code (`"malformed"`, `"unknown key"`, `"seal"`, `"expired"`,
 * `"minted in the future"`, `"request binding"`, `"audience"`, `"principal"`, `"principal drift"`,
 * `"codec error"`, …). It never reaches the wire: the boundary answers every cause with the one frozen
 * `-32602 "Invalid or expired requestState"`, so a probe cannot learn which check failed.
 * A custom codec throws it from `unseal` for any token it did not mint unmodified.
 *
 * @example
 * unseal(token: string): Uint8Array {
 *   if (!token.startsWith("kms1.")) throw new InvalidRequestState("unknown token format");
 *   // …
 * }
 */
export class InvalidRequestState extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "InvalidRequestState";
  }
}
