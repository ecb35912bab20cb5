/**
 * Results as readable text for stdout (`--json` prints the raw JSON instead). Every string from
 * the server is sanitized: a result cannot drive the terminal.
 */

import { withoutTrailing } from "../shared/text.js";
import type {
  CallToolResult,
  ContentBlock,
  DiscoverResult,
  GetPromptResult,
  Implementation,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceContents,
  ResourceTemplate,
  Tool,
} from "../types/index.js";
import { indent, sanitize } from "./terminal.js";

const one = (text: unknown): string => sanitize(String(text), true);

function base64Bytes(data: unknown): number {
  const text = typeof data === "string" ? withoutTrailing(data, "=") : "";
  return Math.floor((text.length * 3) / 4);
}

function describeContents(contents: ResourceContents): string {
  const header = `${one(contents.uri)}${contents.mimeType ? ` (${one(contents.mimeType)})` : ""}`;
  if ("text" in contents && typeof contents.text === "string") return `${header}\n${sanitize(contents.text)}`;
  return `${header}\n[binary, ${base64Bytes((contents as { blob?: unknown }).blob)} bytes; use --json for the data]`;
}

/**
 * One content block as text: text as is, media and links described.
 *
 * @example
 * formatBlock({ type: "text", text: "hello" }); // "hello"
 */
export function formatBlock(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return sanitize(block.text);
    case "image":
    case "audio":
      return `[${block.type} ${one(block.mimeType)}, ${base64Bytes(block.data)} bytes]`;
    case "resource_link":
      return `[link] ${one(block.uri)}${block.name ? ` (${one(block.name)})` : ""}${block.description ? ` — ${one(block.description)}` : ""}`;
    case "resource":
      return `[resource] ${describeContents(block.resource)}`;
    default:
      return `[${one((block as { type: unknown }).type)}]`;
  }
}

/**
 * A tool result: its content blocks, then the structured content when there is some that the
 * text does not already show.
 *
 * @example
 * formatToolResult({ content: [{ type: "text", text: "Provisioned 'orders' in eu-west-1." }] });
 */
export function formatToolResult(result: CallToolResult): string {
  const parts = result.content.map(formatBlock);
  if (result.structuredContent !== undefined) {
    const json = JSON.stringify(result.structuredContent, null, 2);
    if (
      !result.content.some(
        (block) => block.type === "text" && block.text.trim() === JSON.stringify(result.structuredContent),
      )
    ) {
      parts.push(`structured content:\n${indent(sanitize(json), "  ")}`);
    }
  }
  return parts.join("\n");
}

/** A prompt's messages, one `[role]` header each. */
export function formatPromptResult(result: GetPromptResult): string {
  const parts: string[] = [];
  if (result.description) parts.push(sanitize(result.description), "");
  for (const message of result.messages)
    parts.push(`[${message.role}]`, indent(formatBlock(message.content), "  "));
  return parts.join("\n");
}

/** The contents of a read resource. */
export function formatReadResult(result: ReadResourceResult): string {
  return result.contents.map(describeContents).join("\n\n");
}

function propertiesOf(schema: unknown): [string, Record<string, unknown>][] {
  const properties = (schema as { properties?: unknown } | undefined)?.properties;
  if (typeof properties !== "object" || properties === null) return [];
  return Object.entries(properties as Record<string, unknown>).map(([name, value]) => [
    name,
    typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {},
  ]);
}

function typeOf(property: Record<string, unknown>): string {
  if (Array.isArray(property.enum)) return property.enum.map((value) => JSON.stringify(value)).join(" | ");
  if (typeof property.type === "string") return property.type;
  if (Array.isArray(property.type)) return property.type.join(" | ");
  return "any";
}

/** The tools, each with its arguments. */
export function formatTools(tools: readonly Tool[]): string {
  if (tools.length === 0) return "(no tools)";
  return tools
    .map((tool) => {
      const lines = [`${one(tool.name)}${tool.title ? ` — ${one(tool.title)}` : ""}`];
      if (tool.description) lines.push(indent(sanitize(tool.description), "  "));
      const required = new Set(
        Array.isArray(tool.inputSchema.required) ? (tool.inputSchema.required as unknown[]).map(String) : [],
      );
      for (const [name, property] of propertiesOf(tool.inputSchema)) {
        const description = typeof property.description === "string" ? ` — ${one(property.description)}` : "";
        lines.push(
          `  --arg ${one(name)}=<${one(typeOf(property))}>${required.has(name) ? " (required)" : ""}${description}`,
        );
      }
      return lines.join("\n");
    })
    .join("\n\n");
}

/** The prompts, each with its arguments. */
export function formatPrompts(prompts: readonly Prompt[]): string {
  if (prompts.length === 0) return "(no prompts)";
  return prompts
    .map((prompt) => {
      const lines = [`${one(prompt.name)}${prompt.title ? ` — ${one(prompt.title)}` : ""}`];
      if (prompt.description) lines.push(indent(sanitize(prompt.description), "  "));
      for (const argument of prompt.arguments ?? []) {
        const description = argument.description ? ` — ${one(argument.description)}` : "";
        lines.push(
          `  --arg ${one(argument.name)}=<string>${argument.required ? " (required)" : ""}${description}`,
        );
      }
      return lines.join("\n");
    })
    .join("\n\n");
}

/** Resources, then resource templates. */
export function formatResources(
  resources: readonly Resource[],
  templates: readonly ResourceTemplate[],
): string {
  const lines: string[] = [];
  lines.push(resources.length === 0 ? "(no resources)" : "Resources:");
  for (const resource of resources) {
    lines.push(
      `  ${one(resource.uri)}  ${one(resource.title ?? resource.name)}${resource.mimeType ? ` (${one(resource.mimeType)})` : ""}`,
    );
    if (resource.description) lines.push(indent(sanitize(resource.description), "    "));
  }
  if (templates.length > 0) {
    lines.push("", "Resource templates:");
    for (const template of templates) {
      lines.push(
        `  ${one(template.uriTemplate)}  ${one(template.title ?? template.name)}${template.mimeType ? ` (${one(template.mimeType)})` : ""}`,
      );
      if (template.description) lines.push(indent(sanitize(template.description), "    "));
    }
  }
  return lines.join("\n");
}

/** What `server/discover` said, plus the negotiated version. */
export function formatDiscover(
  result: DiscoverResult,
  serverInfo: Implementation | undefined,
  protocolVersion: string,
): string {
  const lines: string[] = [];
  if (serverInfo) {
    const title = serverInfo.title ? ` — ${one(serverInfo.title)}` : "";
    lines.push(
      `Server: ${one(serverInfo.name)}${serverInfo.version ? ` ${one(serverInfo.version)}` : ""}${title}`,
    );
  }
  lines.push(
    `Protocol: ${one(protocolVersion)} (server supports ${result.supportedVersions.map(one).join(", ")})`,
  );
  const capabilities = Object.entries(result.capabilities).map(([name, value]) => {
    const flags =
      typeof value === "object" && value !== null
        ? Object.entries(value as Record<string, unknown>)
            .filter(([, flag]) => flag === true || (typeof flag === "object" && flag !== null))
            .map(([flag]) => one(flag))
        : [];
    return flags.length > 0 ? `${one(name)} (${flags.join(", ")})` : one(name);
  });
  lines.push(`Capabilities: ${capabilities.length > 0 ? capabilities.join(", ") : "(none)"}`);
  if (result.instructions) lines.push("Instructions:", indent(sanitize(result.instructions), "  "));
  return lines.join("\n");
}
