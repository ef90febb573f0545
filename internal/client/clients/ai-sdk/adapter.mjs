// toolscore's adapter for the Vercel AI SDK's own MCP client (@ai-sdk/mcp): createMCPClient over
// stdio (TOOLSCORE_SERVER, its Experimental_StdioMCPTransport) or streamable HTTP (TOOLSCORE_URL),
// tools() as an AI SDK app gets them, and the tool's execute as generateText would run it.
// Paths: "" lets the library build the tools ("automatic": no output schema), "schemas" passes
// schemas: {<tool>: {inputSchema, outputSchema}} built from the listed tool, as the library's
// docs show with zod (z.fromJSONSchema of the tool's own schemas).
// One JSON observation line goes to stdout:
//   - returned: execute gave back the CallToolResult (the automatic path always does, and the
//     schemas path does for a result with isError: dist/index.js toolsFromDefinitions, execute);
//   - handed: execute gave back something else, what the AI SDK hands its model: with an
//     outputSchema, the structuredContent (or the parsed text) validated against it
//     (extractStructuredContent);
//   - raised: execute, tools() or the handshake threw.
import { readFileSync } from "node:fs";
import { createMCPClient } from "@ai-sdk/mcp";
import { Experimental_StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { jsonSchema } from "@ai-sdk/provider-utils";
import { z } from "zod";

const path = process.argv[2] ?? "";
const pkg = "@ai-sdk/mcp";
const version = JSON.parse(readFileSync(new URL(`./node_modules/${pkg}/package.json`, import.meta.url), "utf8")).version;
const tool = process.env.TOOLSCORE_TOOL;
const out = { client: path ? `ai-sdk/${path}` : "ai-sdk", library: `${pkg} ${version}`, listed: true };

let transport;
if (process.env.TOOLSCORE_URL) {
  transport = { type: "http", url: process.env.TOOLSCORE_URL };
} else {
  const server = JSON.parse(process.env.TOOLSCORE_SERVER);
  // The whole environment goes to the server: the transport's default passes only a few variables.
  transport = new Experimental_StdioMCPTransport({ command: server[0], args: server.slice(1), env: process.env, stderr: "inherit" });
  // The stdio transport probes server/discover with a 1 s timeout and on a timeout falls back to
  // initialize (dist/index.js tryProtocolDiscovery, DEFAULT_PROTOCOL_DISCOVERY_TIMEOUT): a slow
  // start of the cell's server would downgrade a 2026 cell at random. The library's transport
  // interface documents waitsForProtocolVersionDiscovery (dist/index.d.ts, MCPTransport) for
  // "transports that always deliver a response", as its HTTP transport does; the server behind
  // this pipe is toolscore's proxy, which always answers server/discover (a 2025-capped proxy
  // answers it -32601 itself), so the adapter sets it rather than racing a sleep.
  transport.waitsForProtocolVersionDiscovery = true;
}

const excerpt = (v) => {
  const s = typeof v === "string" ? v : JSON.stringify(v) ?? String(v);
  return s.length > 2000 ? s.slice(0, 2000) : s;
};

let client;
try {
  client = await createMCPClient({ transport, name: "toolscore-ai-sdk" });
  let tools;
  if (path === "schemas") {
    const { tools: listed } = await client.listTools();
    const def = listed.find((t) => t.name === tool);
    const schemas = {};
    if (def) {
      schemas[tool] = { inputSchema: jsonSchema(def.inputSchema) };
      if (def.outputSchema) schemas[tool].outputSchema = z.fromJSONSchema(def.outputSchema);
    }
    tools = await client.tools({ schemas });
  } else {
    tools = await client.tools();
  }
  const t = tools[tool];
  if (!t) throw new ReferenceError(`tools() has no tool ${JSON.stringify(tool)}`);
  // What generateText passes execute: the model's arguments and the call's options.
  const value = await t.execute(JSON.parse(process.env.TOOLSCORE_ARGUMENTS || "{}"), { toolCallId: "call-1", messages: [] });
  if (value && typeof value === "object" && !Array.isArray(value) && Array.isArray(value.content)) {
    out.returned = value;
  } else {
    out.handed = { kind: value === undefined ? "none" : typeof value === "string" ? "text" : "structured", excerpt: excerpt(value), is_error: false };
  }
} catch (e) {
  out.raised = { class: e?.constructor?.name ?? typeof e, message: String(e?.message ?? e) };
  if (typeof e?.code === "number") out.raised.code = e.code;
}
process.stdout.write(JSON.stringify(out) + "\n");
await client?.close().catch(() => {});
process.exit(0);
