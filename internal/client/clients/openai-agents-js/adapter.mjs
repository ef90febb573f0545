// toolscore's adapter for the OpenAI Agents SDK for JavaScript (@openai/agents): the tool is
// reached the way an Agent's run reaches an MCP server's tool, with no model in the loop.
//   - MCPServerStdio / MCPServerStreamableHttp connect to the server (path "structured" sets
//     useStructuredContent: true on it);
//   - getAllMcpTools lists its tools and turns each into a FunctionTool (mcpToFunctionTool), as
//     the runner does before every turn;
//   - invokeFunctionTool runs that tool, the function the runner calls for a model's function
//     call (runner/toolExecution.mjs), so the library's own error handling applies: a failure
//     inside the tool becomes the default error function's text (tool.mjs defaultToolErrorFunction);
//   - getToolCallOutputItem (runner/toolExecution.mjs, not exported: loaded from its file) turns
//     the output into the function_call_result item the model is given.
// What the model would be handed is printed as `handed`: kind "error" when the MCP call failed
// and the text is the one the library substitutes, "structured" when useStructuredContent made
// the output the structuredContent's JSON, "text" otherwise. A throw out of it all is `raised`.
// The request comes in TOOLSCORE_* variables as for every adapter (TOOLSCORE_URL: streamable HTTP;
// otherwise TOOLSCORE_SERVER is the server's command); one JSON observation line goes to stdout.
import { readFileSync } from "node:fs";

const path = process.argv[2] ?? "";
const structured = path === "structured";
const core = new URL("./node_modules/@openai/agents-core/", import.meta.url);
const version = JSON.parse(readFileSync(new URL("./node_modules/@openai/agents/package.json", import.meta.url), "utf8")).version;
const { MCPServerStdio, MCPServerStreamableHttp, getAllMcpTools, invokeFunctionTool, RunContext } = await import("@openai/agents");
const { getToolCallOutputItem } = await import(new URL("dist/runner/toolExecution.mjs", core).href);
const { getMcpToolBinding } = await import(new URL("dist/toolIdentity.mjs", core).href);

const out = { client: "openai-agents-js" + (path ? "/" + path : ""), library: `@openai/agents ${version}`, listed: true };
let server;
if (process.env.TOOLSCORE_URL) {
  server = new MCPServerStreamableHttp({ url: process.env.TOOLSCORE_URL, name: "toolscore", useStructuredContent: structured });
} else {
  const argv = JSON.parse(process.env.TOOLSCORE_SERVER);
  // The whole environment goes to the server, as the other adapters do.
  server = new MCPServerStdio({ command: argv[0], args: argv.slice(1), env: { ...process.env }, name: "toolscore", useStructuredContent: structured });
}
// What the MCP call itself did, seen from beside the library: the FunctionTool catches a failure
// and hands the model its error function's text instead, so this is how the adapter tells that
// text from a tool's own. server.callTool goes through callToolResult (mcp.mjs), so this sees both.
let failure, result;
const callToolResult = server.callToolResult.bind(server);
server.callToolResult = async (...a) => {
  try {
    return (result = await callToolResult(...a));
  } catch (e) {
    failure = e;
    throw e;
  }
};
const cut = (s) => (s.length > 2000 ? s.slice(0, 2000) : s);
try {
  await server.connect();
  const runContext = new RunContext({});
  const tools = await getAllMcpTools({ mcpServers: [server], runContext });
  const name = process.env.TOOLSCORE_TOOL;
  // The model sees the tool under the SDK's name for it, not the server's: tool() makes every
  // character outside [a-zA-Z0-9] an underscore (agents-core 0.20.0 dist/utils/tools.mjs:27, via
  // dist/tool.mjs:689), so get-sum is get_sum. The MCP name stays in the tool's binding
  // (dist/mcp.mjs mcpToFunctionTool, bindMcpTool), which is how the runner calls the server.
  const tool = tools.find((t) => getMcpToolBinding(t)?.toolName === name);
  if (!tool) throw new Error(`the agent was given no tool named ${name} (it has ${tools.map((t) => t.name).join(", ") || "none"})`);
  const toolCall = { type: "function_call", callId: "call_toolscore", name: tool.name, arguments: process.env.TOOLSCORE_ARGUMENTS || "{}" };
  const output = await invokeFunctionTool({ tool, runContext, input: toolCall.arguments, details: { toolCall } });
  const item = getToolCallOutputItem(toolCall, output);
  const parts = Array.isArray(item.output) ? item.output : [item.output];
  // A text part (input_text once converted) is the text the model reads; any other part is
  // shown as its JSON.
  const text = parts.map((p) => (typeof p?.text === "string" ? p.text : JSON.stringify(p))).join("\n");
  let kind = "text";
  if (failure) kind = "error";
  else if (structured && result && result.isError !== true && result.structuredContent !== undefined) kind = "structured";
  out.handed = { kind, excerpt: cut(text), block: item };
} catch (e) {
  out.raised = { class: e?.constructor?.name ?? typeof e, message: String(e?.message ?? e) };
  if (typeof e?.code === "number") out.raised.code = e.code;
}
process.stdout.write(JSON.stringify(out) + "\n");
await server.close().catch(() => {});
process.exit(0);
