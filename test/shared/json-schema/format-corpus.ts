/**
 * Strings for the format checks, ordinary and tricky, and the few where our checks and
 * @cfworker/json-schema part on purpose: formats.test.ts and the plain-form tests share them.
 */

export const CORPUS: Record<string, readonly string[]> = {
  date: [
    "2026-07-28",
    "2024-02-29",
    "2000-02-29",
    "0000-02-29",
    "1900-02-29",
    "2026-04-31",
    "2026-04-30",
  ].concat([
    "2026-13-01",
    "2026-00-10",
    "2026-1-1",
    "",
    "2026-07-32",
    "2026-07-28T00:00:00Z",
    "２０２６-07-28",
  ]),
  time: [
    "10:00:00Z",
    "23:59:59.999+02:00",
    "10:00:00z",
    "10:00:00",
    "24:00:00Z",
    "10:60:00Z",
    "10:00:00+24:00",
  ].concat(["10:00:00+23:59", "10:00Z", "1:00:00Z", "23:59:60Z", "10:00:60Z", "10:00:00.Z", ""]),
  "date-time": ["2026-07-28T10:00:00Z", "2026-07-28t10:00:00.123+02:00", "2026-07-28T24:00:00Z"]
    .concat([
      "2026-12-31T23:59:60Z",
      "2026-07-28T10:00:00-23:59",
      "2026-07-28T10:60:00Z",
      "2026-07-28T10:00:00",
    ])
    .concat(["2026-07-28 10:00:00Z", "2026-02-30T10:00:00Z", "2026-07-28T10:00:00+25:00", "2026-07-28", ""]),
  email: [
    "ada@example.com",
    "a.b+c@x.io",
    "no-at-sign",
    "two@@example.com",
    "a b@example.com",
    "@example.com",
  ]
    .concat([
      "a..b@example.com",
      ".a@example.com",
      "a.@example.com",
      'a"b@example.com',
      "a@b_c.com",
      "a@-b.com",
    ])
    .concat([
      "é@example.com",
      "a@example",
      "a@example.com.",
      `${"a".repeat(64)}@x.io`,
      `${"a".repeat(65)}@x.io`,
    ])
    .concat(["a@b@c.com", "user_name@sub-domain.example.co.uk", "a@[127.0.0.1]", '"quoted"@example.com']),
  uri: ["https://example.com/a?b=c", "mailto:ada@example.com", "urn:isbn:123", "no-scheme", "1http://x", ""]
    .concat(["a_b:x", "https://exa<mple.com", "https://example.com/{id}", "https://example.com/%zz"])
    .concat([
      "https://exämple.com",
      "https://example.com/#a#b",
      "https://example.com/a%20b#top",
      "//example.com",
    ])
    .concat([
      "http://[::1]:8080/",
      "http://user:pw@host:80/p",
      "file:///etc/hosts",
      "x:",
      "http://a b",
      "http://[zz]/",
    ]),
  uuid: [
    "123e4567-e89b-12d3-a456-426614174000",
    "123E4567-E89B-12D3-A456-426614174000",
    "123e4567e89b12d3a456426614174000",
  ].concat(["123e4567-e89b-12d3-a456-42661417400", "g23e4567-e89b-12d3-a456-426614174000", ""]),
  ipv4: [
    "127.0.0.1",
    "255.255.255.255",
    "256.0.0.1",
    "1.2.3",
    "1.2.3.4.5",
    "01.02.03.004",
    "1.2.3.-1",
    "a.b.c.d",
    "",
  ],
  ipv6: [
    "::",
    "::1",
    "1::",
    "1:2:3:4:5:6:7:8",
    "1:2:3:4:5:6:7::",
    "::ffff:192.168.0.1",
    "1:2:3:4:5:6:1.2.3.4",
  ]
    .concat(["1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "1::2::3", ":1::", ":::", "12345::", "g::", "1.2.3.4", ""])
    .concat(["::ffff:256.0.0.1", "1:2:3:4:5:6:7:1.2.3.4", "fe80::1%eth0", "1:2:3:4:5:6:7:8::", "::1.2.3.4"]),
  hostname: [
    "example.com",
    "a",
    "a-b.c",
    "-a.com",
    "a-.com",
    "a..b",
    "a.",
    "",
    `${"a".repeat(63)}.com`,
  ].concat([
    `${"a".repeat(64)}.com`,
    `${"a.".repeat(126)}a`,
    `${"a.".repeat(127)}a`,
    "exa_mple.com",
    "xn--nxasmq6b.com",
  ]),
};

/**
 * Where this validator and cfworker part, on purpose (the short patterns the form checks always
 * used): a leap second is accepted at any minute, not only at 23:59 UTC; an email's quoted local
 * part and IP-literal domain are refused, and its lengths not counted; a URI may be a bare scheme,
 * and the IP literal of its authority is not parsed.
 */
export const DIFFERENCES = new Set([
  "time 10:00:60Z",
  "email a@[127.0.0.1]",
  `email ${"a".repeat(65)}@x.io`,
  'email "quoted"@example.com',
  "uri x:",
  "uri http://[zz]/",
]);

/** The strings of `format` on which our check and cfworker agree. */
export const agreed = (format: string): readonly string[] =>
  (CORPUS[format] ?? []).filter((text) => !DIFFERENCES.has(`${format} ${text}`));
