import { ErrorCode, isInputRequiredResult, McpError } from "../../types/core.js";
import type {
  Annotations,
  Icon,
  InputRequiredResult,
  ReadResourceResult,
  Resource,
  ResourceContents,
  ResourceTemplate,
} from "../../types/index.js";
import type { Context } from "./context.js";
import { withDefined } from "./definition.js";
import type { ArgumentCompleter } from "./prompts.js";
import { UriTemplate } from "./uri-template.js";

/** How a resource or a resource template describes itself. */
export interface ResourceConfig {
  /** Defaults to the URI (or template). */
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

/** Template-only options. */
export interface ResourceTemplateConfig extends ResourceConfig {
  /** Enumerates concrete resources of this template for `resources/list`. */
  list?: () => Resource[] | Promise<Resource[]>;
  /** Completion for template variables, by variable name. */
  complete?: Record<string, ArgumentCompleter>;
}

/** What a resource handler may return. */
export type ResourceReturn = string | Uint8Array | ResourceContents | ResourceContents[] | ReadResourceResult;

export type StaticResourceRunner = (
  uri: string,
  ctx: Context,
) => Promise<ResourceReturn | InputRequiredResult>;
export type TemplateRunner = (
  variables: Record<string, string>,
  ctx: Context,
  uri: string,
) => Promise<ResourceReturn | InputRequiredResult>;

interface StaticEntry {
  readonly definition: Resource;
  readonly run: StaticResourceRunner;
}

interface TemplateEntry {
  readonly definition: ResourceTemplate;
  readonly template: UriTemplate;
  readonly config: ResourceTemplateConfig;
  readonly run: TemplateRunner;
}

function describe<T extends { name: string }>(base: T, config: ResourceConfig): T {
  return withDefined(base, config, ["title", "description", "mimeType", "annotations", "icons", "_meta"]);
}

function toContents(uri: string, value: ResourceReturn, mimeType: string | undefined): ReadResourceResult {
  const withType = (contents: ResourceContents): ResourceContents =>
    mimeType !== undefined && contents.mimeType === undefined ? { ...contents, mimeType } : contents;
  if (typeof value === "string") return { contents: [withType({ uri, text: value })] };
  if (value instanceof Uint8Array)
    return { contents: [withType({ uri, blob: Buffer.from(value).toString("base64") })] };
  if (Array.isArray(value)) return { contents: value };
  if ("contents" in value && Array.isArray(value.contents)) return value as ReadResourceResult;
  return { contents: [withType(value as ResourceContents)] };
}

/** The static resources and templates of one MCPServer, in registration order. */
export class ResourceRegistry {
  readonly #static = new Map<string, StaticEntry>();
  readonly #templates = new Map<string, TemplateEntry>();

  addStatic(uri: string, config: ResourceConfig, run: StaticResourceRunner): Resource {
    if (this.#static.has(uri)) throw new Error(`A resource ${JSON.stringify(uri)} is already registered`);
    const definition = describe<Resource>({ uri, name: config.name ?? uri }, config);
    this.#static.set(uri, { definition, run });
    return definition;
  }

  addTemplate(uriTemplate: string, config: ResourceTemplateConfig, run: TemplateRunner): ResourceTemplate {
    if (this.#templates.has(uriTemplate)) {
      throw new Error(`A resource template ${JSON.stringify(uriTemplate)} is already registered`);
    }
    const template = new UriTemplate(uriTemplate);
    const definition = describe<ResourceTemplate>({ uriTemplate, name: config.name ?? uriTemplate }, config);
    this.#templates.set(uriTemplate, { definition, template, config, run });
    return definition;
  }

  async list(): Promise<Resource[]> {
    const listed = [...this.#static.values()].map((entry) => entry.definition);
    for (const entry of this.#templates.values()) {
      // One by one: spread into push(), a large enumeration overflows the stack (past ~120,000).
      if (entry.config.list) for (const resource of await entry.config.list()) listed.push(resource);
    }
    return listed;
  }

  listTemplates(): ResourceTemplate[] {
    return [...this.#templates.values()].map((entry) => entry.definition);
  }

  /** Forgets a static resource (by URI) or a template (by its URI template); false when neither. */
  remove(uri: string): boolean {
    return this.#static.delete(uri) || this.#templates.delete(uri);
  }

  /**
   * Serves `resources/read`: a static resource first, else the first template that matches;
   * unknown URI → -32602 with `data.uri`. Only templates may answer `input_required`.
   */
  async read(uri: string, ctx: Context): Promise<ReadResourceResult | InputRequiredResult> {
    const fixed = this.#static.get(uri);
    if (fixed) {
      const value = await fixed.run(uri, ctx);
      if (isInputRequiredResult(value)) {
        throw new McpError(
          ErrorCode.InternalError,
          `Static resource ${uri} returned an InputRequiredResult; static resources cannot ask for input, ` +
            "only resource templates participate in multi-round-trip requests",
        );
      }
      return toContents(uri, value, fixed.definition.mimeType);
    }
    for (const entry of this.#templates.values()) {
      const variables = entry.template.match(uri);
      // `users://` is no user: a handler gets every `{id}`-style variable, never an empty one.
      if (
        !variables ||
        entry.template.required.some((name) => !Object.hasOwn(variables, name) || !variables[name])
      )
        continue;
      const value = await entry.run(variables, ctx, uri);
      return isInputRequiredResult(value) ? value : toContents(uri, value, entry.definition.mimeType);
    }
    throw new McpError(ErrorCode.InvalidParams, `Resource not found: ${uri}`, { uri });
  }

  /**
   * Completion of one template variable; undefined for a static resource's URI (a `ref/resource`
   * may name one; it has nothing to complete), null when no resource or template has that URI.
   */
  completer(uriTemplate: string, variable: string): ArgumentCompleter | undefined | null {
    const entry = this.#templates.get(uriTemplate);
    if (!entry) return this.#static.has(uriTemplate) ? undefined : null;
    const complete = entry.config.complete;
    return complete && Object.hasOwn(complete, variable) ? complete[variable] : undefined;
  }
}
