import { isThenable } from "../shared/thenable.js";
import type { ResultObject } from "../types/index.js";
import type { Middleware, NextHandler, ServerRequestContext } from "./context.js";
import type { Registration } from "./params.js";

/**
 * Runs a handler inside the middleware chain, first element outermost, with `check` applied to the
 * handler's result as it returns (inside the chain, so middleware sees an invalid result fail).
 * `middleware` is copied first: a layer added meanwhile waits for the next request.
 *
 * @example
 * const result = await runChain(server.middleware, ctx, registration, (value) => value as ResultObject);
 */
export function runChain(
  middleware: readonly Middleware[],
  ctx: ServerRequestContext,
  registration: Registration,
  check?: (result: unknown) => ResultObject,
): Promise<ResultObject> {
  const chain = [...middleware];
  const run =
    (index: number): NextHandler =>
    (current) => {
      // No async wrapper per layer; a synchronous throw still becomes a rejection.
      try {
        const layer = chain[index];
        if (layer === undefined) {
          const value = registration.handler(current, current.params);
          if (!check) return Promise.resolve(value as ResultObject);
          return isThenable(value) ? Promise.resolve(value).then(check) : Promise.resolve(check(value));
        }
        return typeof layer === "function"
          ? layer(current, run(index + 1))
          : layer.handle(current, run(index + 1));
      } catch (error) {
        return Promise.reject(error);
      }
    };
  return run(0)(ctx);
}
