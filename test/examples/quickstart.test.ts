import { expect, it } from "vitest";
import { provision } from "../../examples/quickstart-client.js";
import { mcp } from "../../examples/resolver-region.js";
import { serveHttp } from "../../src/transports/http/node.js";

it("the README quickstart client completes the README server's flow over HTTP", async () => {
  const http = await serveHttp(mcp, { port: 0 });
  try {
    expect(await provision(http.url.href)).toBe("Provisioned 'orders' in eu-west-1.");
  } finally {
    await http.close();
  }
});
