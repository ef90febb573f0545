// A loopback MCP server over streamable HTTP (PORT, path /mcp) with the TypeScript SDK's DNS
// rebinding protection, for TestConformanceThroughProxy: it refuses a request whose Host is not
// localhost, 127.0.0.1 or [::1] (the conformance suite's dns-rebinding-protection scenario),
// which server-everything does not; so a proxy that rewrote Host would be seen.
import { createMcpExpressApp } from "@modelcontextprotocol/sdk/server/express.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

const app = createMcpExpressApp({ host: "127.0.0.1" });
app.post("/mcp", async (req, res) => {
  const server = new McpServer({ name: "rebinding-server", version: "1.0.0" });
  server.registerTool("echo", { description: "Answers ok." }, async () => ({ content: [{ type: "text", text: "ok" }] }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on("close", () => {
    transport.close();
    server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
});
app.listen(Number(process.env.PORT), "127.0.0.1", () => console.log("listening"));
