// A loopback MCP server of the 2026-07-28 revision's stateless lifecycle (PORT, path /mcp), for
// TestConformanceThroughProxy, just enough of it for the conformance suite's server-stateless
// scenario to reach its subscriptions/listen stream, which neither server-everything nor the
// TypeScript SDK 1.x serves: the answer to subscriptions/listen is one JSON body
// (application/json) that stays open and carries a message per line, the acknowledgement at
// once and a tools/list_changed when test_trigger_tool_change is called, where the listen asked
// for toolsListChanged. Through a proxy that
// read a JSON body whole before passing it on, the suite would get nothing of it.
import { createServer } from "node:http";

const listening = new Set();
const meta = (id) => ({ "io.modelcontextprotocol/subscriptionId": id });
let subscriptions = 0;

createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  let msg;
  try {
    msg = JSON.parse(body);
  } catch {
    msg = undefined;
  }
  const answer = (status, m) => {
    res.writeHead(status, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", id: msg?.id ?? null, ...m }));
  };
  if (req.method !== "POST" || req.url !== "/mcp" || !msg) return answer(400, { error: { code: -32600, message: "not a request" } });
  switch (msg.method) {
    case "server/discover":
      return answer(200, { result: { supportedVersions: ["2026-07-28"], capabilities: { tools: { listChanged: true } }, _meta: { "io.modelcontextprotocol/serverInfo": { name: "stateless-server", version: "1.0.0" } } } });
    case "tools/list":
      return answer(200, { result: { tools: [{ name: "test_trigger_tool_change", inputSchema: { type: "object" } }] } });
    case "tools/call":
      for (const stream of listening) {
        if (!stream.filter?.toolsListChanged) continue;
        stream.res.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: meta(stream.id) } }) + "\n");
      }
      return answer(200, { result: { content: [] } });
    case "subscriptions/listen": {
      const stream = { id: `sub-${++subscriptions}`, res, filter: msg.params?.notifications };
      res.writeHead(200, { "Content-Type": "application/json" });
      res.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { _meta: meta(stream.id) } }) + "\n");
      listening.add(stream);
      res.on("close", () => listening.delete(stream));
      return;
    }
    default:
      return answer(404, { error: { code: -32601, message: "Method not found" } });
  }
}).listen(Number(process.env.PORT), "127.0.0.1", () => console.log("listening"));
