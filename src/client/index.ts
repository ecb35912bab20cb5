/** The client side of roundtrip: `ClientSession` (manual loop) and its errors. */
export { InputRequiredError } from "./errors.js";
export {
  type CallOptions,
  ClientSession,
  type ClientSessionOptions,
  DEFAULT_CLIENT_INFO,
  type InputCallOptions,
} from "./session.js";
