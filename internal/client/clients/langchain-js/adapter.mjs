// toolscore's adapter for LangChain.js's MCP adapters (@langchain/mcp-adapters): loadMcpTools
// lists the server's tools through the MCP TypeScript SDK client and makes each a LangChain
// DynamicStructuredTool (responseFormat "content_and_artifact"); tool.invoke runs one with a
// tool call, as a LangChain agent's tool node does, and gives the ToolMessage the agent hands its
// model. That message's content is printed as `handed`; what invoke throws (the library's
// ToolException for an isError result, a failed call or a failed validation) is `raised`, as
// a LangChain user calling invoke gets it.
// The request comes in TOOLSCORE_* variables as for every adapter (TOOLSCORE_URL: streamable HTTP;
// otherwise TOOLSCORE_SERVER is the server's command); one JSON observation line goes to stdout.
import { readFileSync } from "node:fs";

const version = JSON.parse(readFileSync(new URL("./node_modules/@langchain/mcp-adapters/package.json", import.meta.url), "utf8")).version;
const { loadMcpTools } = await import("@langchain/mcp-adapters");
const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");

const out = { client: "langchain-js", library: `@langchain/mcp-adapters ${version}`, listed: true };
let transport;
if (process.env.TOOLSCORE_URL) {
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  transport = new StreamableHTTPClientTransport(new URL(process.env.TOOLSCORE_URL));
} else {
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const server = JSON.parse(process.env.TOOLSCORE_SERVER);
  // The whole environment goes to the server: the SDK's default passes only a few variables.
  transport = new StdioClientTransport({ command: server[0], args: server.slice(1), env: process.env, stderr: "inherit" });
}
const client = new Client({ name: "toolscore-langchain-js", version: "1" });
const cut = (s) => (s.length > 2000 ? s.slice(0, 2000) : s);
try {
  await client.connect(transport);
  const tools = await loadMcpTools("toolscore", client);
  const name = process.env.TOOLSCORE_TOOL;
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`loadMcpTools gave no tool named ${name} (it has ${tools.map((t) => t.name).join(", ") || "none"})`);
  const message = await tool.invoke({ type: "tool_call", id: "call_toolscore", name, args: JSON.parse(process.env.TOOLSCORE_ARGUMENTS || "{}") });
  const content = message.content;
  // A string is the text the model reads; content blocks (a text block that carries
  // structuredContent, or several blocks) go to the model as they are.
  const text = typeof content === "string" ? content : JSON.stringify(content);
  out.handed = { kind: "text", excerpt: cut(text), is_error: message.status === "error", block: { content, status: message.status ?? null } };
} catch (e) {
  out.raised = { class: e?.constructor?.name ?? typeof e, message: String(e?.message ?? e) };
  if (typeof e?.code === "number") out.raised.code = e.code;
}
process.stdout.write(JSON.stringify(out) + "\n");
await client.close().catch(() => {});
process.exit(0);
