// listAll reads a list to its end by following nextCursor, for every kind of list, and refuses a
// server whose cursors loop or never end (a ProtocolError, not an endless loop).
import { describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { listAll } from "../../src/client/pages.js";
import { silentLogger } from "../../src/server/logger.js";
import { Server } from "../../src/server/server.js";
import { ProtocolError } from "../../src/shared/errors.js";
import { ErrorCode, McpError } from "../../src/types/index.js";

/** Pages of `size` items named `${prefix}-n`; `next` says which cursor follows which. */
function paged(
  count: number,
  size: number,
  next: (page: number) => string | undefined = (p) => ((p + 1) * size < count ? String(p + 1) : undefined),
) {
  return (prefix: string, cursor: string | undefined) => {
    const pageIndex = cursor === undefined ? 0 : Number(cursor);
    const names = Array.from(
      { length: Math.min(size, count - pageIndex * size) },
      (_, i) => `${prefix}-${pageIndex * size + i}`,
    );
    const nextCursor = next(pageIndex);
    return { names, ...(nextCursor === undefined ? {} : { nextCursor }) };
  };
}

function listingServer(pages: ReturnType<typeof paged>) {
  return new Server("lists", {
    logger: silentLogger,
    onListTools: (_ctx, params) => {
      const { names, ...rest } = pages("tool", params.cursor as string | undefined);
      return { tools: names.map((name) => ({ name, inputSchema: { type: "object" as const } })), ...rest };
    },
    onListPrompts: (_ctx, params) => {
      const { names, ...rest } = pages("prompt", params.cursor as string | undefined);
      return { prompts: names.map((name) => ({ name })), ...rest };
    },
    onListResources: (_ctx, params) => {
      const { names, ...rest } = pages("res", params.cursor as string | undefined);
      return { resources: names.map((name) => ({ name, uri: `file:///${name}` })), ...rest };
    },
    onListResourceTemplates: (_ctx, params) => {
      const { names, ...rest } = pages("tpl", params.cursor as string | undefined);
      return { resourceTemplates: names.map((name) => ({ name, uriTemplate: `x://${name}/{id}` })), ...rest };
    },
    onReadResource: (_ctx, params) => ({ contents: [{ uri: params.uri, text: "" }] }),
  });
}

describe("listAll", () => {
  it("follows nextCursor to the end, for each kind of list", async () => {
    const client = await Client.connect(listingServer(paged(7, 3)));
    expect((await listAll(client, "tools")).map((tool) => tool.name)).toEqual(
      Array.from({ length: 7 }, (_, i) => `tool-${i}`),
    );
    expect(await listAll(client, "prompts")).toHaveLength(7);
    expect((await listAll(client, "resources")).at(-1)?.uri).toBe("file:///res-6");
    expect((await listAll(client, "resourceTemplates")).at(0)?.uriTemplate).toBe("x://tpl-0/{id}");
  });

  it("takes a page of 200,000 items, more than a call's arguments can hold", async () => {
    // A spread of the page into push() overflowed the stack past about 120,000 items.
    const client = await Client.connect(listingServer(paged(200_001, 200_000)));
    const resources = await listAll(client, "resources");
    expect(resources).toHaveLength(200_001);
    expect(resources.at(-1)?.uri).toBe("file:///res-200000");
  });

  it("refuses a server that repeats a cursor", async () => {
    const client = await Client.connect(listingServer(paged(100, 2, (page) => (page === 0 ? "1" : "0"))));
    await expect(listAll(client, "tools")).rejects.toThrow(
      new ProtocolError('tools: the server repeated the cursor "1"'),
    );
  });

  it("refuses a list longer than maxPages", async () => {
    const client = await Client.connect(listingServer(paged(100, 2)));
    await expect(listAll(client, "prompts", { maxPages: 3 })).rejects.toThrow(
      new ProtocolError("prompts: more than 3 pages"),
    );
    expect(await listAll(client, "prompts", { maxPages: 50 })).toHaveLength(100);
  });

  it.each([0, -1, 2.5, Number.NaN, Number.POSITIVE_INFINITY])("refuses maxPages %s", async (maxPages) => {
    // Before, any of these but 0 never equalled a page count: only the list's end stopped the loop.
    const client = await Client.connect(listingServer(paged(10, 1)));
    await expect(listAll(client, "prompts", { maxPages })).rejects.toThrow(
      new RangeError(`maxPages must be a positive integer, got ${maxPages}`),
    );
  });
});

describe("the re-list after a -32020", () => {
  it("stops at a server whose cursors loop instead of listing forever", async () => {
    let lists = 0;
    const server = new Server("stale", {
      logger: silentLogger,
      onListTools: (_ctx, params) => {
        lists++;
        return {
          tools: [{ name: "route", inputSchema: { type: "object" } }],
          nextCursor: params.cursor === "a" ? "b" : "a",
        };
      },
      onCallTool: () => {
        throw new McpError(
          ErrorCode.HeaderMismatch,
          "Header Mcp-Param-Region does not match arguments.region",
        );
      },
    });
    const client = await Client.connect(server);
    await expect(client.callTool("route", { region: "eu" })).rejects.toThrow(
      new ProtocolError('tools: the server repeated the cursor "a"'),
    );
    expect(lists).toBe(3);
  });
});
