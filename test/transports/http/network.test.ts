// What a client over HTTP tells its telemetry of the server: OpenTelemetry's server.address is a
// bare host (an IPv6 address without brackets) and server.port the one in use, the scheme's by default.
import { describe, expect, it } from "vitest";
import { StreamableHttpClientTransport } from "../../../src/transports/http/index.js";
import { LegacyHttpClientTransport } from "../../../src/transports/http/legacy-client.js";
import { SseClientTransport } from "../../../src/transports/http/legacy-sse-client.js";
import { httpNetwork } from "../../../src/transports/http/network.js";

const http = { transport: "tcp", protocolName: "http" };

describe("httpNetwork()", () => {
  it("names the host and the port, the scheme's when the URL gives none", () => {
    expect(httpNetwork(new URL("http://127.0.0.1:8123/mcp"))).toEqual({
      ...http,
      serverAddress: "127.0.0.1",
      serverPort: 8123,
    });
    expect(httpNetwork(new URL("https://mcp.example.com/mcp"))).toEqual({
      ...http,
      serverAddress: "mcp.example.com",
      serverPort: 443,
    });
    expect(httpNetwork(new URL("http://localhost/mcp"))).toEqual({
      ...http,
      serverAddress: "localhost",
      serverPort: 80,
    });
    expect(httpNetwork(new URL("https://[::1]:9443/mcp"))).toEqual({
      ...http,
      serverAddress: "::1",
      serverPort: 9443,
    });
  });

  it("is what every HTTP client transport reports, HTTP+SSE (2024-11-05) included", () => {
    const url = "http://[::1]:3000/mcp";
    const expected = { ...http, serverAddress: "::1", serverPort: 3000 };
    expect(new StreamableHttpClientTransport(url).network).toEqual(expected);
    expect(new LegacyHttpClientTransport(url).network).toEqual(expected);
    expect(new SseClientTransport(url).network).toEqual(expected);
  });
});
