// A service with no user — a nightly job, a backend agent — signs in as itself: the client
// credentials grant, authenticated with a private key rather than a shared secret.
import { Client } from "roundtrip-mcp/client";
import { ClientCredentialsProvider } from "roundtrip-mcp/oauth";

/** `issuer` pins the authorization server the key is registered with: nothing is sent to another. */
export function serviceClient(url: URL, issuer: string, clientId: string, privateKeyPem: string) {
  const authProvider = new ClientCredentialsProvider({
    clientId,
    privateKey: privateKeyPem,
    signingAlgorithm: "ES256",
    issuer,
  });
  return Client.connect(url, { http: { authProvider } });
}
