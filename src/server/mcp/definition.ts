/**
 * How a registration's optional fields reach its listed definition (tools, prompts, resources).
 */

/**
 * Copies onto `target` each of `keys` that `config` defines, and returns `target`. Registration
 * time only: a key left undefined never appears on the wire.
 *
 * @example
 * const definition = withDefined({ name }, config, ["title", "description", "icons", "_meta"]);
 */
export function withDefined<T extends object>(target: T, config: object, keys: readonly string[]): T {
  const from = config as Record<string, unknown>;
  const to = target as Record<string, unknown>;
  for (const key of keys) if (from[key] !== undefined) to[key] = from[key];
  return target;
}
