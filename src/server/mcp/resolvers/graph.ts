import { type AnyResolver, InvalidSignature, isResolver, RESOLVER, type ResolverCore } from "./resolver.js";

/** A tool's resolvers, checked once at registration. */
export interface ResolverGraph {
  /** The consumer's map: parameter name → resolver (or outcome view). */
  readonly entries: readonly [string, AnyResolver][];
}

/**
 * Checks a `resolve` map at registration: every entry is a resolver, dependencies form no cycle,
 * keys are unique across the whole graph (they are wire keys), and every argument a resolver reads
 * exists in the tool's input.
 */
export function buildResolverGraph(
  owner: string,
  map: Readonly<Record<string, unknown>>,
  inputProperties: ReadonlySet<string> | undefined,
): ResolverGraph {
  const entries = Object.entries(map).map(([name, value]): [string, AnyResolver] => {
    if (!isResolver(value))
      throw new InvalidSignature(`${owner}: resolve.${name} is not a resolver (use resolver(...))`);
    return [name, value];
  });
  const byKey = new Map<string, ResolverCore>();
  const state = new Map<ResolverCore, "visiting" | "done">();
  const visit = (core: ResolverCore, path: readonly string[]): void => {
    const seen = state.get(core);
    if (seen === "done") return;
    if (seen === "visiting") {
      throw new InvalidSignature(
        `${owner}: resolver '${core.key}' has a cyclic dependency (${[...path, core.key].join(" → ")})`,
      );
    }
    const other = byKey.get(core.key);
    if (other !== undefined && other !== core) {
      throw new InvalidSignature(
        `${owner}: two different resolvers share the key '${core.key}'; keys are wire keys and must be unique`,
      );
    }
    byKey.set(core.key, core);
    if (inputProperties) {
      for (const arg of core.args ?? []) {
        if (!inputProperties.has(arg)) {
          throw new InvalidSignature(
            `${owner}: resolver '${core.key}' reads argument '${arg}', which the input does not declare`,
          );
        }
      }
    }
    state.set(core, "visiting");
    for (const [name, dep] of Object.entries(core.deps())) {
      if (!isResolver(dep))
        throw new InvalidSignature(`${owner}: resolver '${core.key}' dependency '${name}' is not a resolver`);
      visit(dep[RESOLVER], [...path, core.key]);
    }
    state.set(core, "done");
  };
  for (const [, value] of entries) visit(value[RESOLVER], []);
  return { entries };
}
