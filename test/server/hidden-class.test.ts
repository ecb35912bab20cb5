// The per-request contexts must share V8 hidden classes from one request to the next: a getter
// in an object literal gives each request its own, which kept every request's objects alive
// through young-generation GCs (src/shared/lazy-signal.ts). Checked in a child with V8's own
// %HaveSameMap, over the in-memory and the web-handler paths, on first rounds and on retries.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const FIXTURE = fileURLToPath(new URL("../fixtures/hidden-class/contexts.ts", import.meta.url));

it("handler and dispatch contexts keep one hidden class across requests", () => {
  const output = execFileSync(process.execPath, ["--allow-natives-syntax", "--import", "tsx", FIXTURE], {
    encoding: "utf8",
    timeout: 30_000,
  });
  expect(JSON.parse(output)).toEqual({
    counts: [8, 4, 4],
    handler: [true, true, true, true],
    memory: [true, true],
    http: [true, true],
  });
});
