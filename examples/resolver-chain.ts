// A two-step chain: who are you (login) → do you confirm (which depends on the login).
import { elicit, MCPServer, resolver, withOutcome } from "roundtrip-mcp/server";
import * as z from "zod";

export const mcp = new MCPServer("Deployer");

export const login = resolver("login", () => elicit("Username?", z.object({ username: z.string().min(1) })));

export const confirm = resolver("confirm", { deps: { user: login }, args: ["service"] }, ({ deps, args }) =>
  elicit(`Deploy ${String(args.service)} as ${deps.user.username}?`, z.object({ ok: z.boolean() })),
);

mcp.tool(
  "deploy",
  {
    description: "Deploy a service after a confirmation",
    input: z.object({ service: z.string() }),
    resolve: { user: login, confirm: withOutcome(confirm) },
  },
  ({ service }, { user, confirm }) =>
    confirm.action === "accept" && confirm.content.ok
      ? `Deployed ${service} as ${user.username}.`
      : `Deployment of ${service} cancelled.`,
);
