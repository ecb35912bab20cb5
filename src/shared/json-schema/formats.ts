/**
 * The string formats JSON Schema validation asserts here: date, date-time, email and uri (a form's
 * formats, checked by form.ts too), and time, uuid, ipv4, ipv6 and hostname. Any other format is
 * only an annotation. Linear, anchored patterns only: these run on text a client chose.
 */

const TIME = /^([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/;
// RFC 5321/3986 characters only: a dot-atom at a hostname, a scheme then URI characters and escapes.
const ATOM = "[\\w!#$%&'*+/=?^`{|}~-]+";
const LABEL = "[a-z\\d]([a-z\\d-]*[a-z\\d])?";
const EMAIL = new RegExp(`^${ATOM}(\\.${ATOM})*@${LABEL}(\\.${LABEL})*$`, "i");
const URI =
  /^[a-z][a-z\d+.-]*:([\w.~!$&'()*+,;=:@/?[\]-]|%[\da-f]{2})*(#([\w.~!$&'()*+,;=:@/?-]|%[\da-f]{2})*)?$/i;
const IPV4 = /^((25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(25[0-5]|2[0-4]\d|[01]?\d\d?)$/;

/** A calendar date, `2026-02-28` (RFC 3339 full-date; year 0 is a leap year). */
export function isDate(text: string): boolean {
  const [, year = "", month = "", day = ""] = /^(\d{4})-(\d\d)-(\d\d)$/.exec(text) ?? [];
  const leap = +year % 4 === 0 && (+year % 100 !== 0 || +year % 400 === 0);
  const days = +month === 2 ? (leap ? 29 : 28) : 30 + ((+month + (+month > 7 ? 1 : 0)) % 2);
  return +month >= 1 && +month <= 12 && +day >= 1 && +day <= days;
}

/** A host name of dot-separated labels of at most 63 letters, digits and inner hyphens (253 in all). */
export function isHostname(text: string): boolean {
  return (
    text.length < 254 && text.split(".").every((label) => /^[a-z\d]([a-z\d-]{0,61}[a-z\d])?$/i.test(label))
  );
}

/** Eight groups of hex digits, `::` standing for one or more zero groups, the last two maybe an IPv4 address. */
function isIpv6(text: string): boolean {
  const [, head = text, v4] = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text) ?? [];
  if (v4 !== undefined && !IPV4.test(v4)) return false;
  const halves = `${head}${v4 === undefined ? "" : "0"}`.split("::");
  let groups = v4 === undefined ? 0 : 1;
  for (const half of halves) {
    for (const group of half === "" ? [] : half.split(":")) {
      if (!/^[\da-f]{1,4}$/i.test(group)) return false;
      groups++;
    }
  }
  return halves.length === 1 ? groups === 8 : halves.length === 2 && groups < 8;
}

/** A date and time, `2026-07-28T10:00:00Z` (RFC 3339 date-time; a space may stand for the "T"). */
export const isDateTime = (text: string): boolean =>
  /^[Tt ]$/.test(text.charAt(10)) && isDate(text.slice(0, 10)) && TIME.test(text.slice(11));

/** A mailbox, `ada@example.com`: a dot-atom at a host name. */
export const isEmail = (text: string): boolean => EMAIL.test(text);

/** An absolute URI, `https://example.com/a?b#c`: a scheme, then URI characters and escapes. */
export const isUri = (text: string): boolean => URI.test(text);

/** The format checks by name. */
export const FORMATS: Readonly<Record<string, (text: string) => boolean>> = {
  date: isDate,
  time: (text) => TIME.test(text),
  "date-time": isDateTime,
  email: isEmail,
  uri: isUri,
  uuid: (text) => /^[\da-f]{8}(-[\da-f]{4}){3}-[\da-f]{12}$/i.test(text),
  ipv4: (text) => IPV4.test(text),
  ipv6: isIpv6,
  hostname: isHostname,
};
