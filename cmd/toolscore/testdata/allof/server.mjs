// A bare MCP server on stdio whose one tool publishes an outputSchema with an allOf of 200,000
// entries (ALLOF_ENTRIES sets how many), for the test that the proxy bounds its own schema work.
// It answers every request at once, with the ledger's clean balance.
import { createInterface } from "node:readline";

const entries = Number(process.env.ALLOF_ENTRIES ?? 200000);
const outputSchema = {
  type: "object",
  properties: { account_id: { type: "string" }, balance_minor: { type: "integer" }, currency: { type: "string" }, as_of: { type: "string" } },
  required: ["account_id", "balance_minor", "currency", "as_of"],
  allOf: Array.from({ length: entries }, () => ({ required: ["account_id"] })),
};
const inputSchema = { type: "object", properties: { account_id: { type: "string" } }, required: ["account_id"] };
const balance = { account_id: "ACC-4471", balance_minor: 4071877, currency: "USD", as_of: "2026-03-31" };
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n");

createInterface({ input: process.stdin }).on("line", (line) => {
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    return;
  }
  if (m.id === undefined || m.id === null) return; // a notification
  switch (m.method) {
    case "initialize":
      return send({ id: m.id, result: { protocolVersion: m.params?.protocolVersion ?? "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "allof", version: "1.0.0" } } });
    case "ping":
      return send({ id: m.id, result: {} });
    case "tools/list":
      return send({ id: m.id, result: { tools: [{ name: "get_balance", description: "The balance of an account.", inputSchema, outputSchema }] } });
    case "tools/call":
      return send({ id: m.id, result: { content: [{ type: "text", text: "ACC-4471: balance 40,718.77 USD as of 2026-03-31" }], structuredContent: balance } });
  }
  send({ id: m.id, error: { code: -32601, message: `method not found: ${m.method}` } });
});
