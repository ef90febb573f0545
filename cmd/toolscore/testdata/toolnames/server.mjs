// A bare MCP server on stdio for the tool-name test: three tools that add a and b, named the ways
// the MCP spec allows and client libraries rename (a hyphen, a dot, more than 64 characters).
// No SDK, so the names reach the client exactly as written here.
import { createInterface } from "node:readline";

const names = ["get-sum", "math.add", "sum_of_two_numbers_with_a_name_longer_than_sixty_four_characters_in_all"];
const inputSchema = { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] };
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
      return send({ id: m.id, result: { protocolVersion: m.params?.protocolVersion ?? "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "toolnames", version: "1.0.0" } } });
    case "ping":
      return send({ id: m.id, result: {} });
    case "tools/list":
      return send({ id: m.id, result: { tools: names.map((name) => ({ name, description: "Adds a and b.", inputSchema })) } });
    case "tools/call": {
      if (!names.includes(m.params?.name)) return send({ id: m.id, error: { code: -32602, message: `unknown tool ${m.params?.name}` } });
      const { a, b } = m.params.arguments ?? {};
      return send({ id: m.id, result: { content: [{ type: "text", text: `${m.params.name}: ${a + b}` }] } });
    }
  }
  send({ id: m.id, error: { code: -32601, message: `method not found: ${m.method}` } });
});
