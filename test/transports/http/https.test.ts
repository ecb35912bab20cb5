/**
 * The client over real TLS on 127.0.0.1: a self-signed certificate made by `openssl`, trusted
 * through NODE_EXTRA_CA_CERTS in a child process. The default client posts through `node:https`
 * directly; a custom fetch takes the fetch path; both finish the same two-round flow.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const FLOW = fileURLToPath(new URL("../../fixtures/https/flow.ts", import.meta.url));
const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const hasOpenssl = spawnSync("openssl", ["version"]).status === 0;

// Skipped only where no `openssl` binary exists to make the test certificate (Debian CI has one).
describe.skipIf(!hasOpenssl)("the Streamable HTTP client over HTTPS", () => {
  let dir = "";
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "roundtrip-tls-"));
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
      ],
      { stdio: "ignore" },
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function run(mode?: "fetch"): { text: string; direct: number } {
    const child = spawnSync(
      process.execPath,
      ["--import", "tsx", FLOW, join(dir, "key.pem"), join(dir, "cert.pem"), ...(mode ? [mode] : [])],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, "cert.pem") },
        encoding: "utf8",
        timeout: 30_000,
      },
    );
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    return JSON.parse(child.stdout.trim().split("\n").at(-1) as string) as { text: string; direct: number };
  }

  it("posts through node:https directly and finishes the two-round flow", () => {
    const { text, direct } = run();
    expect(text).toBe("Provisioned orders in eu-west-1.");
    // server/discover, then the two legs of the flow.
    expect(direct).toBe(3);
  });

  it("takes the fetch path with a custom fetch, with the same outcome", () => {
    const { text, direct } = run("fetch");
    expect(text).toBe("Provisioned orders in eu-west-1.");
    expect(direct).toBe(0);
  });
});
