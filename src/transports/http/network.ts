import type { TransportNetwork } from "../../shared/transport.js";

/**
 * What a client over HTTP reports of its server: TCP, HTTP, the host (an IPv6 address without its
 * brackets, as `server.address` wants it) and the port, the scheme's when the URL names none.
 *
 * @example
 * httpNetwork(new URL("https://[::1]/mcp")); // { transport: "tcp", protocolName: "http", serverAddress: "::1", serverPort: 443 }
 */
export function httpNetwork(url: URL): TransportNetwork {
  return {
    transport: "tcp",
    protocolName: "http",
    serverAddress: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    serverPort: url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port),
  };
}
