/**
 * Names of this machine, shared by the server's DNS-rebinding guard and the OAuth client's rule
 * that only a local MCP server may send it to local endpoints. No other imports, so the OAuth
 * client does not pull the server's guards into its bundle.
 */
const IPV4_LOOPBACK = /^127(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;

/**
 * True for `localhost`, `127.x.y.z` and `::1` (with or without brackets).
 *
 * @example
 * isLoopbackHostname("127.0.0.1"); // true
 * isLoopbackHostname("localhost.evil.com"); // false
 */
export function isLoopbackHostname(hostname: string): boolean {
  const name = hostname.toLowerCase();
  return name === "localhost" || IPV4_LOOPBACK.test(name) || name === "[::1]" || name === "::1";
}
