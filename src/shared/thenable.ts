/**
 * True for anything `await` would wait for: a promise, or any object with a `then` method. Used where
 * a user callback may answer synchronously or not, so that the synchronous answer costs no promise.
 *
 * @example
 * const found = lookup(name);
 * return isThenable(found) ? Promise.resolve(found).then(check) : check(found);
 */
export function isThenable<T>(value: unknown): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === "function";
}
