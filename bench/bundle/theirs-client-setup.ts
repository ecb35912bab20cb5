// The official client of the bundle-size entries: opted into 2026-07-28, answering the one form.
import { Client } from "@modelcontextprotocol/client";

export function provisioningClient(): Client {
  const client = new Client(
    { name: "client", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "auto" } },
  );
  client.setRequestHandler("elicitation/create", async () => ({
    action: "accept",
    content: { region: "eu-west-1" },
  }));
  return client;
}
