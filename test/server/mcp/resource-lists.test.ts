// A template's list callback may enumerate a large collection: resources/list answers with all of it.
import { describe, expect, it } from "vitest";
import { resultOf } from "../../helpers.js";
import { quietServer, send } from "./helpers.js";

describe("resources/list over a large template list", () => {
  it("lists 200,000 resources from one callback (a spread into push() overflowed the stack)", async () => {
    const mcp = quietServer("res");
    const count = 200_000;
    mcp.resource(
      "rows://{id}",
      { list: () => Array.from({ length: count }, (_, i) => ({ uri: `rows://${i}`, name: `row ${i}` })) },
      ({ id }) => `row ${id}`,
    );
    const { resources } = resultOf(await send(mcp, "resources/list")) as { resources: { uri: string }[] };
    expect(resources).toHaveLength(count);
    expect(resources.at(-1)).toEqual({ uri: `rows://${count - 1}`, name: `row ${count - 1}` });
  });
});
