/**
 * Request-state sealing: the codec, the policy and the boundary middleware.
 *
 * @example
 * import { RequestStateBoundary, RequestStateSecurity } from "roundtrip-mcp/server";
 * server.middleware.push(new RequestStateBoundary(new RequestStateSecurity({ keys: [key] }), { defaultAudience: server.name }));
 */
export { RequestStateBoundary, type RequestStateBoundaryOptions } from "./boundary.js";
export {
  AesGcmRequestStateCodec,
  MIN_KEY_BYTES,
  type RequestStateCodec,
  type RequestStateKey,
} from "./codec.js";
export { InvalidRequestState } from "./errors.js";
export { RequestStateSecurity, type RequestStateSecurityOptions, type RequestStateSource } from "./policy.js";
export { authenticatedPrincipal, type PrincipalBinder } from "./principal.js";
