// A resolver that asks only when it has to: an order for an item in stock goes straight through.
import { elicit, MCPServer, resolver } from "roundtrip-mcp/server";
import * as z from "zod";

export const mcp = new MCPServer("Shop");

export const stock: Record<string, number> = { widget: 10, gadget: 0 };

const backorder = resolver("backorder", { args: ["item"] }, ({ args }) => {
  const item = String(args.item);
  if ((stock[item] ?? 0) > 0) return { backorder: false };
  return elicit(`${item} is out of stock. Place a backorder?`, z.object({ backorder: z.boolean() }));
});

mcp.tool(
  "order",
  { description: "Order an item", input: z.object({ item: z.string() }), resolve: { choice: backorder } },
  ({ item }, { choice }) => {
    if ((stock[item] ?? 0) > 0) return `Ordered one ${item}.`;
    return choice.backorder ? `Backordered one ${item}.` : `No order placed for ${item}.`;
  },
);
