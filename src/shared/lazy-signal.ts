/**
 * A `signal` property that reads its source only when asked (a `Cancellation` builds its
 * AbortController on first read), through one getter shared by every object.
 *
 * Why not `{ get signal() { ... } }` in an object literal: V8 keeps an accessor's functions in the
 * object's hidden class, so a getter written in a literal gives every request its own hidden
 * class. Those live in old space until a full GC and keep whatever the getter's closure reaches
 * alive through every young-generation GC: on Node 20 each loopback POST's objects (~9 KB) were
 * promoted, and GC became a fifth of the request's CPU time.
 */

import type { Cancellation } from "./cancellation.js";
import type { AuthInfo, DispatchContext, HttpRequestView } from "./dispatch.js";

/** A signal that never aborts, for requests nobody can cancel. */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/** Where the shared getter finds each object's source (a symbol, so JSON and `Object.keys` skip it). */
const SOURCE = Symbol("roundtrip.signalSource");

/** Anything with an optional `signal`: a `Cancellation`, a dispatch context. */
export interface SignalSource {
  readonly signal?: AbortSignal | undefined;
}

function readSignal(this: { [SOURCE]: SignalSource }): AbortSignal {
  return this[SOURCE].signal ?? NEVER_ABORTED;
}

const SIGNAL: PropertyDescriptor = { get: readSignal, enumerable: true, configurable: true };

/**
 * Gives `target` a read-only `signal` that is `source.signal` (or a never-aborted signal), read
 * on each access. Copies made with `deriveContext` keep it lazy; a spread reads it once.
 *
 * @example
 * const context = withLazySignal({ cancelled: cancellation.cancelled }, cancellation);
 * context.signal; // the AbortController is built here, not before
 */
export function withLazySignal<T extends object>(
  target: T,
  source: SignalSource,
): T & { readonly signal: AbortSignal } {
  (target as { [SOURCE]?: SignalSource })[SOURCE] = source;
  Object.defineProperty(target, "signal", SIGNAL);
  return target as T & { readonly signal: AbortSignal };
}

/**
 * Whether the request behind `target` was cancelled, asked of its source's `cancelled()` when it
 * has one (a `Cancellation`, a lazy dispatch context), so that asking builds no signal.
 *
 * @example
 * if (wasCancelled(ctx)) return; // no AbortController is built for a request nobody cancelled
 */
export function wasCancelled(target: { readonly signal: AbortSignal }): boolean {
  const source = (target as { [SOURCE]?: SignalSource & { readonly cancelled?: () => boolean } })[SOURCE];
  return source?.cancelled?.() ?? target.signal.aborted;
}

/**
 * The context a transport hands `dispatch`: its signal comes from the request's `Cancellation`
 * and is built only when read. `signal` is an own property through the shared getter, so a
 * dispatcher wrapper that spreads the context still passes a working signal on.
 *
 * @example
 * const cancellation = new Cancellation();
 * await dispatcher.dispatch(message, new LazyDispatchContext(cancellation, notify, authInfo));
 */
export class LazyDispatchContext implements DispatchContext {
  readonly notify: DispatchContext["notify"];
  readonly cancelled: () => boolean;
  readonly authInfo: AuthInfo | undefined;
  readonly http: HttpRequestView | undefined;
  declare readonly signal: AbortSignal;

  constructor(
    cancellation: Cancellation,
    notify: DispatchContext["notify"],
    authInfo: AuthInfo | undefined,
    http?: HttpRequestView,
  ) {
    this.notify = notify;
    this.cancelled = cancellation.cancelled;
    this.authInfo = authInfo;
    this.http = http;
    withLazySignal(this, cancellation);
  }
}
