/**
 * Unit tests of the OAuth client's parsing and discovery: the `WWW-Authenticate` Bearer challenge,
 * the HTTPS-or-loopback rule, resource matching, Protected Resource Metadata and authorization
 * server metadata discovery (with a recording fake fetch).
 */
import { describe, expect, it } from "vitest";
import { MAX_OAUTH_DOCUMENT_BYTES } from "../../../src/transports/http/oauth/answer.js";
import { parseBearerChallenge } from "../../../src/transports/http/oauth/challenge.js";
import {
  authorizationServerMetadataUrls,
  discoverAuthorizationServer,
  discoverResource,
  endpointUrl,
  reachable,
  resourceCovers,
  secureEnough,
} from "../../../src/transports/http/oauth/discovery.js";
import { OAuthError } from "../../../src/transports/http/oauth/errors.js";
import { prng } from "../../prng.js";
import { endlessBody, failure, fakeFetch, jsonOfLength } from "./fake-fetch.js";

function syncFailure(run: () => unknown): OAuthError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(OAuthError);
    return error as OAuthError;
  }
  throw new Error("expected an OAuthError");
}

describe("parseBearerChallenge", () => {
  it("finds no challenge without a header or without a Bearer scheme", () => {
    expect(parseBearerChallenge(undefined)).toBeUndefined();
    expect(parseBearerChallenge("Basic realm=x")).toBeUndefined();
    expect(parseBearerChallenge("")).toBeUndefined();
  });

  it("reads a bare Bearer challenge as no parameters", () => {
    expect(parseBearerChallenge("Bearer")).toStrictEqual({});
  });

  it("unescapes quoted values", () => {
    expect(parseBearerChallenge('Bearer scope="a \\"quoted\\" b\\\\c"')).toStrictEqual({
      scope: 'a "quoted" b\\c',
    });
  });

  it("reads token (unquoted) values", () => {
    expect(parseBearerChallenge("Bearer error=invalid_token, scope=files.read")).toStrictEqual({
      error: "invalid_token",
      scope: "files.read",
    });
  });

  it("ignores the case of the scheme and of parameter names", () => {
    expect(parseBearerChallenge('bEaReR SCOPE="s", Resource_Metadata="https://x/y", ERROR=e')).toStrictEqual({
      scope: "s",
      resourceMetadata: "https://x/y",
      error: "e",
    });
  });

  it("keeps only the Bearer challenge's parameters when there are several challenges", () => {
    expect(
      parseBearerChallenge('DPoP algs="ES256", Bearer scope="a b", resource_metadata="https://x/y"'),
    ).toStrictEqual({ scope: "a b", resourceMetadata: "https://x/y" });
    expect(parseBearerChallenge('Bearer scope="a", Basic realm="r", error="from-basic"')).toStrictEqual({
      scope: "a",
    });
  });

  it.each([
    ['Negotiate YIIFyw==, Bearer scope="a"', { scope: "a" }],
    ['Newauth abc=, Bearer scope="a"', { scope: "a" }],
    ['Basic dXNlcjpwYXNz, Bearer error="invalid_token"', { error: "invalid_token" }],
    ["Negotiate YIIFyw==", undefined],
  ])("skips a padded token68 credential of another scheme: %s", (header, expected) => {
    expect(parseBearerChallenge(header)).toEqual(expected);
  });

  it("keeps the first of a repeated parameter", () => {
    expect(parseBearerChallenge('Bearer scope="first", scope="second"')).toStrictEqual({ scope: "first" });
  });

  it("ends the parse at an unterminated quoted string, keeping what came before", () => {
    expect(
      parseBearerChallenge('Bearer scope="a", error="never closed, resource_metadata=https'),
    ).toStrictEqual({ scope: "a" });
  });

  it("reads error=insufficient_scope with its scope", () => {
    expect(parseBearerChallenge('Bearer error="insufficient_scope", scope="files:write"')).toStrictEqual({
      error: "insufficient_scope",
      scope: "files:write",
    });
  });
});

describe("parseBearerChallenge on arbitrary input", () => {
  const ALPHABET = [...'Bearer scope=" \\,=abcXYZ09+/~-._\t', "é", "\u0000", "error", "resource_metadata"];

  it("never throws, always ends, and gives string parameters or nothing (2,000 seeded headers)", () => {
    const random = prng(0x5eed);
    for (let round = 0; round < 2_000; round++) {
      let header = "";
      const parts = random.int(24);
      for (let index = 0; index < parts; index++) header += random.pick(ALPHABET);
      const parsed = parseBearerChallenge(header);
      if (parsed === undefined) continue;
      for (const value of Object.values(parsed)) expect(typeof value).toBe("string");
      expect(Object.keys(parsed).every((key) => ["error", "scope", "resourceMetadata"].includes(key))).toBe(
        true,
      );
    }
  });
});

describe("secureEnough and endpointUrl", () => {
  it.each([
    ["https://example.com/x", true],
    ["https://localhost.evil.com/", true],
    ["http://localhost:3000/cb", true],
    ["http://127.0.0.1/", true],
    ["http://127.1.2.3:8080/", true],
    ["http://[::1]:9000/", true],
    ["http://example.com/", false],
    ["http://localhost.evil.com/", false],
    ["http://127.0.0.1.evil.com/", false],
    ["ftp://localhost/", false],
    ["ftp://example.com/", false],
  ])("%s → %s", (url, expected) => {
    expect(secureEnough(new URL(url))).toBe(expected);
  });

  it("returns the parsed URL of an acceptable field", () => {
    expect(endpointUrl("https://auth.example/token", "token_endpoint", false).href).toBe(
      "https://auth.example/token",
    );
    expect(endpointUrl("http://127.0.0.1:9/t", "token_endpoint", true).href).toBe("http://127.0.0.1:9/t");
  });

  it.each([
    ["https://auth.example/t", false, true],
    ["https://auth.example/t", true, true],
    ["http://auth.example/t", true, false],
    ["http://127.0.0.1:9/t", true, true],
    ["https://localhost/t", true, true],
    // A remote MCP server's metadata must not send the client to services on this machine.
    ["http://127.0.0.1:9/t", false, false],
    ["https://localhost/t", false, false],
    ["http://[::1]:9/t", false, false],
    // Other names of this machine: the unspecified addresses connect to it, and so do IPv4-mapped
    // loopback, the fully qualified `localhost.` and RFC 6761's `.localhost` names.
    ["https://0.0.0.0/t", false, false],
    ["https://0/t", false, false],
    ["https://[::]/t", false, false],
    ["https://[::ffff:127.0.0.1]/t", false, false],
    ["https://[::ffff:0.0.0.0]/t", false, false],
    ["https://localhost./t", false, false],
    ["https://mcp.localhost/t", false, false],
    ["http://0.0.0.0:9/t", true, true],
    ["https://0.example.com/t", false, true],
    ["https://[::ffff:8.8.8.8]/t", false, true],
  ])("reachable(%s) for a local server %s → %s", (url, local, expected) => {
    expect(reachable(new URL(url), local)).toBe(expected);
  });

  it.each([
    [42, "token_endpoint"],
    [undefined, "authorization_endpoint"],
    ["/token", "token_endpoint"],
    ["http://auth.example/token", "registration_endpoint"],
  ])("rejects %j with invalid_metadata naming %s", (value, field) => {
    const error = syncFailure(() => endpointUrl(value, field, true));
    expect(error.code).toBe("invalid_metadata");
    expect(error.message).toBe(`${field} is not an HTTPS URL (or, for a local server, a local one)`);
  });
});

describe("resourceCovers", () => {
  const mcp = new URL("https://a.example/mcp");

  it.each([
    ["https://a.example", mcp, true],
    ["https://a.example/", mcp, true],
    ["https://a.example/mcp", mcp, true],
    ["https://a.example/mcp", new URL("https://a.example/mcp/"), true],
    ["https://a.example/mcp/", mcp, true],
    ["https://a.example/mcp", new URL("https://a.example/mcp/sub"), true],
    ["https://a.example/mcp", new URL("https://a.example/mcp2"), false],
    ["https://a.example/mcp/sub", mcp, false],
    ["https://b.example/mcp", mcp, false],
    ["http://a.example/mcp", mcp, false],
    ["https://a.example:8443/mcp", mcp, false],
    ["https://a.example/mcp?t=a", new URL("https://a.example/mcp?t=a"), true],
    ["https://a.example/mcp", new URL("https://a.example/mcp?t=a"), true],
    ["https://a.example/mcp?t=b", new URL("https://a.example/mcp?t=a"), false],
    ["https://a.example/mcp?t=a", mcp, false],
    ["https://a.example/mcp#frag", mcp, false],
    ["https://a.example/mcp#", mcp, false],
    ["not a url", mcp, false],
    ["", mcp, false],
  ])("%s covers %s: %s", (resource, server, expected) => {
    expect(resourceCovers(server, resource)).toBe(expected);
  });

  it("answers at once for a resource whose path is a long run of slashes (a peer's document)", () => {
    const hostile = `https://a.example/${"/".repeat(200_000)}x`;
    expect(resourceCovers(mcp, hostile)).toBe(false);
    expect(resourceCovers(new URL(hostile), `https://a.example/${"/".repeat(200_000)}x///`)).toBe(true);
  });
});

describe("discoverResource", () => {
  const server = new URL("http://127.0.0.1:1234/mcp");
  const pathBased = "http://127.0.0.1:1234/.well-known/oauth-protected-resource/mcp";
  const root = "http://127.0.0.1:1234/.well-known/oauth-protected-resource";
  const hint = "https://meta.example/prm";
  const good = {
    resource: "http://127.0.0.1:1234",
    authorization_servers: ["https://auth.example"],
    scopes_supported: ["files:read", "files:write"],
  };

  it("tries the challenge's resource_metadata first and returns the resource verbatim", async () => {
    const fake = fakeFetch({ [hint]: { body: good }, [pathBased]: { body: good } });
    await expect(discoverResource(fake.fetch, server, hint)).resolves.toStrictEqual({
      resource: "http://127.0.0.1:1234",
      authorizationServers: ["https://auth.example"],
      scopesSupported: ["files:read", "files:write"],
    });
    expect(fake.calls).toStrictEqual([{ url: hint, method: "GET", headers: { accept: "application/json" } }]);
  });

  it("goes hint, path-based, root, skipping 404s", async () => {
    const fake = fakeFetch({ [root]: { body: { ...good, scopes_supported: undefined } } });
    const found = await discoverResource(fake.fetch, server, hint);
    expect(fake.urls()).toStrictEqual([hint, pathBased, root]);
    expect(found.scopesSupported).toBeUndefined();
  });

  it("ignores a resource_metadata URL that is neither HTTPS nor loopback, or not a URL", async () => {
    for (const bad of ["http://meta.example/prm", "not a url"]) {
      const fake = fakeFetch({ [root]: { body: good } });
      await discoverResource(fake.fetch, server, bad);
      expect(fake.urls()).toStrictEqual([pathBased, root]);
    }
  });

  it("never follows a remote server's resource_metadata to this machine", async () => {
    const remote = new URL("https://mcp.example/mcp");
    const remoteDocument = {
      resource: "https://mcp.example/mcp",
      authorization_servers: ["https://auth.example"],
    };
    const fake = fakeFetch({
      "https://mcp.example/.well-known/oauth-protected-resource/mcp": { body: remoteDocument },
    });
    const local = [
      "http://127.0.0.1:8080/admin",
      "https://localhost/prm",
      "http://[::1]/x",
      "https://0.0.0.0:8443/prm",
      "https://[::ffff:7f00:1]:8443/prm",
      "https://localhost.:8443/prm",
    ];
    for (const hint of local) {
      await discoverResource(fake.fetch, remote, hint);
    }
    expect(fake.urls().every((url) => url.startsWith("https://mcp.example/"))).toBe(true);
  });

  it("skips answers that are not JSON, JSON arrays or null", async () => {
    const fake = fakeFetch({
      [hint]: () => new Response("<html>", { status: 200, headers: { "content-type": "text/html" } }),
      [pathBased]: { body: [good] },
      [root]: { body: null },
    });
    const error = await failure(discoverResource(fake.fetch, server, hint));
    expect(error.code).toBe("discovery_failed");
    expect(fake.urls()).toStrictEqual([hint, pathBased, root]);
  });

  it("stops at the first document found", async () => {
    const fake = fakeFetch({ [pathBased]: { body: { ...good, resource: "http://127.0.0.1:1234/mcp" } } });
    const found = await discoverResource(fake.fetch, server, undefined);
    expect(found.resource).toBe("http://127.0.0.1:1234/mcp");
    expect(fake.urls()).toStrictEqual([pathBased]);
  });

  it("only tries the root well-known URL for a server at the root", async () => {
    const fake = fakeFetch({});
    await failure(discoverResource(fake.fetch, new URL("http://127.0.0.1:1234/"), undefined));
    expect(fake.urls()).toStrictEqual([root]);
  });

  it.each([
    ["another path", "http://127.0.0.1:1234/other"],
    ["another origin", "http://127.0.0.1:4321/mcp"],
    ["no resource", undefined],
  ])("refuses a document naming %s, fetching nothing after it", async (_, resource) => {
    const fake = fakeFetch({ [pathBased]: { body: { ...good, resource } }, [root]: { body: good } });
    const error = await failure(discoverResource(fake.fetch, server, undefined));
    expect(error.code).toBe("resource_mismatch");
    expect(fake.urls()).toStrictEqual([pathBased]);
  });

  it.each([
    ["empty", []],
    ["missing", undefined],
    ["not strings", [42]],
  ])("fails when authorization_servers is %s", async (_, servers) => {
    const fake = fakeFetch({ [pathBased]: { body: { ...good, authorization_servers: servers } } });
    const error = await failure(discoverResource(fake.fetch, server, undefined));
    expect(error.code).toBe("discovery_failed");
    expect(error.message).toBe("the protected resource metadata names no authorization server");
  });

  it("fails with discovery_failed when nothing is found", async () => {
    const fake = fakeFetch({});
    const error = await failure(discoverResource(fake.fetch, server, undefined));
    expect(error.code).toBe("discovery_failed");
    expect(fake.urls()).toStrictEqual([pathBased, root]);
  });

  it("fails with discovery_failed, without the path, when the fetch rejects", async () => {
    const fake = fakeFetch({
      [pathBased]: () => {
        throw new TypeError("fetch failed for /.well-known/oauth-protected-resource/mcp");
      },
    });
    const error = await failure(discoverResource(fake.fetch, server, undefined));
    expect(error.code).toBe("discovery_failed");
    expect(error.message).toBe("could not reach http://127.0.0.1:1234");
    expect(error.message).not.toContain("/mcp");
    expect(fake.urls()).toStrictEqual([pathBased]);
  });
});

describe("authorizationServerMetadataUrls", () => {
  const hrefs = (issuer: string) => authorizationServerMetadataUrls(new URL(issuer)).map((url) => url.href);

  it("gives the two root URLs for an issuer without a path", () => {
    const expected = [
      "https://auth.example/.well-known/oauth-authorization-server",
      "https://auth.example/.well-known/openid-configuration",
    ];
    expect(hrefs("https://auth.example")).toStrictEqual(expected);
    expect(hrefs("https://auth.example/")).toStrictEqual(expected);
  });

  it("gives the three URLs in order for an issuer with a path, trailing slash trimmed", () => {
    const expected = [
      "https://auth.example/.well-known/oauth-authorization-server/tenant1",
      "https://auth.example/.well-known/openid-configuration/tenant1",
      "https://auth.example/tenant1/.well-known/openid-configuration",
    ];
    expect(hrefs("https://auth.example/tenant1")).toStrictEqual(expected);
    expect(hrefs("https://auth.example/tenant1/")).toStrictEqual(expected);
  });
});

describe("discoverAuthorizationServer", () => {
  const issuer = "https://auth.example";
  const oauthUrl = "https://auth.example/.well-known/oauth-authorization-server";
  const oidcUrl = "https://auth.example/.well-known/openid-configuration";
  const metadata = {
    issuer,
    authorization_endpoint: "https://auth.example/authorize",
    token_endpoint: "https://auth.example/token",
    registration_endpoint: "https://auth.example/register",
    code_challenge_methods_supported: ["plain", "S256"],
    scopes_supported: ["files:read"],
    token_endpoint_auth_methods_supported: ["none", "client_secret_post"],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
  };

  it("reads the RFC 8414 document", async () => {
    const fake = fakeFetch({ [oauthUrl]: { body: metadata }, [oidcUrl]: { body: metadata } });
    const found = await discoverAuthorizationServer(fake.fetch, issuer, false);
    expect(fake.calls).toStrictEqual([
      { url: oauthUrl, method: "GET", headers: { accept: "application/json" } },
    ]);
    expect({
      ...found,
      authorizationEndpoint: found.authorizationEndpoint.href,
      tokenEndpoint: found.tokenEndpoint.href,
      registrationEndpoint: found.registrationEndpoint?.href,
    }).toStrictEqual({
      issuer,
      authorizationEndpoint: "https://auth.example/authorize",
      tokenEndpoint: "https://auth.example/token",
      registrationEndpoint: "https://auth.example/register",
      scopesSupported: ["files:read"],
      tokenEndpointAuthMethods: ["none", "client_secret_post"],
      pkceS256: true,
      dpopAlgorithms: undefined,
      issParameterSupported: true,
      clientIdMetadataDocumentSupported: true,
    });
  });

  it("refuses a loopback issuer or endpoint for a remote server, and accepts them for a local one", async () => {
    const loopbackIssuer = "http://127.0.0.1:9000";
    const fake = fakeFetch({});
    const error = await failure(discoverAuthorizationServer(fake.fetch, loopbackIssuer, false));
    expect(error.code).toBe("invalid_metadata");
    expect(fake.calls).toHaveLength(0);
    const steered = fakeFetch({
      [oauthUrl]: { body: { ...metadata, token_endpoint: "http://127.0.0.1:9/token" } },
    });
    expect((await failure(discoverAuthorizationServer(steered.fetch, issuer, false))).message).toContain(
      "token_endpoint",
    );
  });

  it("falls through 404s to the next candidate", async () => {
    const fake = fakeFetch({ [oidcUrl]: { body: metadata } });
    expect((await discoverAuthorizationServer(fake.fetch, issuer, false)).issuer).toBe(issuer);
    expect(fake.urls()).toStrictEqual([oauthUrl, oidcUrl]);

    const tenant = "https://auth.example/tenant1";
    const last = "https://auth.example/tenant1/.well-known/openid-configuration";
    const tenantFake = fakeFetch({ [last]: { body: { ...metadata, issuer: tenant } } });
    expect((await discoverAuthorizationServer(tenantFake.fetch, tenant, false)).issuer).toBe(tenant);
    expect(tenantFake.urls()).toStrictEqual([
      "https://auth.example/.well-known/oauth-authorization-server/tenant1",
      "https://auth.example/.well-known/openid-configuration/tenant1",
      last,
    ]);
  });

  it("fails with discovery_failed when no candidate answers", async () => {
    const fake = fakeFetch({});
    expect((await failure(discoverAuthorizationServer(fake.fetch, issuer, false))).code).toBe(
      "discovery_failed",
    );
    expect(fake.urls()).toStrictEqual([oauthUrl, oidcUrl]);
  });

  it("reads metadata up to 256 KiB and refuses a larger document, naming only its origin", async () => {
    const exact = fakeFetch({
      [oauthUrl]: () => Response.json(JSON.parse(jsonOfLength(metadata, MAX_OAUTH_DOCUMENT_BYTES))),
    });
    await expect(discoverAuthorizationServer(exact.fetch, issuer, false)).resolves.toMatchObject({ issuer });
    const over = fakeFetch({
      [oauthUrl]: () => new Response(jsonOfLength(metadata, MAX_OAUTH_DOCUMENT_BYTES + 1), { status: 200 }),
      [oidcUrl]: { body: metadata },
    });
    const error = await failure(discoverAuthorizationServer(over.fetch, issuer, false));
    expect(error.code).toBe("discovery_failed");
    expect(error.message).toBe("https://auth.example sent a body larger than 262144 bytes");
    expect(over.urls()).toStrictEqual([oauthUrl]);
  });

  it("moves on to the next candidate when a body breaks off mid-read", async () => {
    const broken = () =>
      new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('{"issuer":'));
            controller.error(new Error("connection reset"));
          },
        }),
      );
    const fake = fakeFetch({ [oauthUrl]: broken, [oidcUrl]: { body: metadata } });
    await expect(discoverAuthorizationServer(fake.fetch, issuer, false)).resolves.toMatchObject({ issuer });
    expect(fake.urls()).toStrictEqual([oauthUrl, oidcUrl]);
  });

  it("stops reading a metadata body that never ends", async () => {
    const endless = endlessBody();
    const fake = fakeFetch({ [oauthUrl]: endless.route });
    expect((await failure(discoverAuthorizationServer(fake.fetch, issuer, false))).code).toBe(
      "discovery_failed",
    );
    expect(endless.cancelled()).toBe(true);
    expect(endless.pulled()).toBeLessThan(10);
  });

  it("requires the issuer to match exactly", async () => {
    const fake = fakeFetch({
      [oauthUrl]: { body: { ...metadata, issuer: `${issuer}/` } },
      [oidcUrl]: { body: metadata },
    });
    expect((await failure(discoverAuthorizationServer(fake.fetch, issuer, false))).code).toBe(
      "issuer_mismatch",
    );
    expect(fake.urls()).toStrictEqual([oauthUrl]);
  });

  it.each([
    ["missing", undefined, false],
    ["without S256", ["plain"], false],
    ["not a list", "S256", false],
    ["with S256", ["plain", "S256"], true],
  ])("reads code_challenge_methods_supported %s as pkceS256 %s", async (_, methods, expected) => {
    const fake = fakeFetch({
      [oauthUrl]: { body: { ...metadata, code_challenge_methods_supported: methods } },
    });
    expect((await discoverAuthorizationServer(fake.fetch, issuer, false)).pkceS256).toBe(expected);
  });

  it("refuses a plain-HTTP, non-loopback endpoint", async () => {
    const fake = fakeFetch({
      [oauthUrl]: { body: { ...metadata, token_endpoint: "http://auth.example/token" } },
    });
    const error = await failure(discoverAuthorizationServer(fake.fetch, issuer, false));
    expect(error.code).toBe("invalid_metadata");
    expect(error.message).toContain("token_endpoint");
  });

  it("accepts loopback HTTP, an absent registration_endpoint, and only literal true flags", async () => {
    const local = "http://127.0.0.1:9000";
    const fake = fakeFetch({
      [`${local}/.well-known/oauth-authorization-server`]: {
        body: {
          ...metadata,
          issuer: local,
          authorization_endpoint: `${local}/authorize`,
          token_endpoint: `${local}/token`,
          registration_endpoint: undefined,
          scopes_supported: "files:read",
          authorization_response_iss_parameter_supported: "true",
          client_id_metadata_document_supported: 1,
        },
      },
    });
    const found = await discoverAuthorizationServer(fake.fetch, local, true);
    expect(found.tokenEndpoint.href).toBe(`${local}/token`);
    expect(found.registrationEndpoint).toBeUndefined();
    expect(found.scopesSupported).toBeUndefined();
    expect(found.issParameterSupported).toBe(false);
    expect(found.clientIdMetadataDocumentSupported).toBe(false);
  });

  it.each(["http://auth.example", "auth.example"])("refuses issuer %s without fetching", async (bad) => {
    const fake = fakeFetch({});
    expect((await failure(discoverAuthorizationServer(fake.fetch, bad, false))).code).toBe(
      "invalid_metadata",
    );
    expect(fake.calls).toStrictEqual([]);
  });
});
