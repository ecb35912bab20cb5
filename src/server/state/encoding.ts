/** Byte-level helpers shared by the codec and the claims envelope. Internal: not re-exported. */

/**
 * Decodes unpadded base64url, accepting only the one text `Buffer#toString("base64url")` produces for
 * those bytes. Node's decoder is lenient (it skips junk and padding, accepts `+`/`/`, ignores the last
 * character's spare bits), so re-encoding and comparing is the whole canonicality rule: one token, one
 * spelling, and no alias of a minted token can verify.
 */
export function decodeBase64UrlStrict(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, "base64url");
  return bytes.toString("base64url") === text ? bytes : undefined;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * UTF-8 that keeps lone UTF-16 surrogates as their own 3-byte sequences (WTF-8, Python's
 * "surrogatepass") instead of collapsing them to U+FFFD, so two distinct JS strings never share bytes.
 * Identical to UTF-8 for well-formed strings.
 */
export function encodeWtf8(text: string): Buffer {
  if (!SURROGATE.test(text)) return Buffer.from(text, "utf8");
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      const cp = 0x10000 + ((unit - 0xd800) << 10) + (next - 0xdc00);
      bytes.push(
        0xf0 | (cp >> 18),
        0x80 | ((cp >> 12) & 0x3f),
        0x80 | ((cp >> 6) & 0x3f),
        0x80 | (cp & 0x3f),
      );
      i++;
    } else if (unit < 0x80) {
      bytes.push(unit);
    } else if (unit < 0x800) {
      bytes.push(0xc0 | (unit >> 6), 0x80 | (unit & 0x3f));
    } else {
      bytes.push(0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f));
    }
  }
  return Buffer.from(bytes);
}
