/**
 * The formats the validator asserts, against @cfworker/json-schema (the validator it replaced, a
 * devDependency now) on a corpus of ordinary and tricky strings: the same verdict on each, but for
 * the few differences listed (and chosen) here.
 */
import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { CORPUS, DIFFERENCES } from "./format-corpus.js";
import { verdicts } from "./helpers.js";

describe("formats agree with @cfworker/json-schema on ordinary and tricky strings", () => {
  it.each(Object.entries(CORPUS))("%s", (format, corpus) => {
    const oracle = new Validator({ format }, "2020-12", false);
    const ours = verdicts({ format }, corpus);
    const expected = corpus.map(
      (text) => oracle.validate(text).valid !== DIFFERENCES.has(`${format} ${text}`),
    );
    expect(corpus.map((text, i) => [text, ours[i]])).toEqual(corpus.map((text, i) => [text, expected[i]]));
    expect(ours.some(Boolean)).toBe(true);
    expect(ours.some((ok) => !ok)).toBe(true);
  });

  it("formats it does not know are annotations only, as cfworker's extra ones now are", () => {
    for (const format of ["regex", "duration", "uri-reference", "json-pointer", "idn-email", "made-up"]) {
      expect(verdicts({ format }, ["(", "not a duration", "\\\\", "x"])).toEqual([true, true, true, true]);
    }
  });
});
