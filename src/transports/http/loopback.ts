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

/** Whether `name` is an IPv4-mapped IPv6 address (`[::ffff:7f00:1]` as URLs write it) in 127/8 or 0/8. */
function mappedLocal(name: string): boolean {
  const high = /^\[::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}\]$/.exec(name)?.[1];
  return high !== undefined && [0, 0x7f].includes(Number.parseInt(high, 16) >> 8);
}

/**
 * Every name a URL can give this machine by: the loopback ones, the unspecified addresses
 * (0.0.0.0/8 and `::` connect to it), IPv4-mapped forms of both, and the `localhost.` and
 * `*.localhost` names (RFC 6761 §6.3). URL parsing already turns `127.1` or `2130706433` into
 * `127.0.0.1`.
 *
 * @example
 * onThisMachine("0.0.0.0"); // true
 * onThisMachine("[::ffff:7f00:1]"); // true
 */
export function onThisMachine(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  return (
    isLoopbackHostname(name) ||
    name.endsWith(".localhost") ||
    /^0(?:\.\d{1,3}){3}$/.test(name) ||
    name === "[::]" ||
    mappedLocal(name)
  );
}
