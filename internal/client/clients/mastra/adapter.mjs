// toolscore's adapter for Mastra's MCP client (@mastra/mcp): an MCPClient with one server, over
// stdio (TOOLSCORE_SERVER) or streamable HTTP (TOOLSCORE_URL), listToolsWithErrors() as a Mastra
// agent gets its tools, and the tool's execute as the agent runs it. One JSON observation line
// goes to stdout, reporting what execute gives back, which is what Mastra hands its model
// (dist/index.js of @mastra/mcp, buildToolFromListEntry's execute, and Tool.execute of
// @mastra/core, dist/tool-*.js):
//   - returned: a result without structuredContent comes back as the CallToolResult itself;
//   - handed, kind structured: structuredContent (valid against the listed outputSchema, or with
//     no outputSchema) comes back alone, without the rest of the result;
//   - handed, kind error: structuredContent that fails the outputSchema comes back as a value,
//     {error: true, message: "Tool output validation failed ..."}, not thrown;
//   - raised: execute threw (an isError result, with the default onToolError "throw"; a result
//     the MCP client's own schema refuses; a JSON-RPC error), or the server never gave the tool.
import { readFileSync } from "node:fs";

// Mastra's logger writes to the console: everything but the observation goes to stderr.
for (const level of ["log", "info", "debug", "warn"]) console[level] = (...a) => console.error(...a);

const { MCPClient } = await import("@mastra/mcp");
const pkg = "@mastra/mcp";
const version = JSON.parse(readFileSync(new URL(`./node_modules/${pkg}/package.json`, import.meta.url), "utf8")).version;
const tool = process.env.TOOLSCORE_TOOL;
const out = { client: "mastra", library: `${pkg} ${version}`, listed: true };

let server;
if (process.env.TOOLSCORE_URL) {
  server = { url: new URL(process.env.TOOLSCORE_URL) };
} else {
  const argv = JSON.parse(process.env.TOOLSCORE_SERVER);
  // The whole environment goes to the server: the default passes only a few variables.
  server = { command: argv[0], args: argv.slice(1), env: { ...process.env }, stderr: "inherit" };
}
const mcp = new MCPClient({ id: "toolscore", servers: { ts: server } });

const excerpt = (v) => {
  const s = typeof v === "string" ? v : JSON.stringify(v) ?? String(v);
  return s.length > 2000 ? s.slice(0, 2000) : s;
};

try {
  // listTools() drops a server that failed to connect or list; WithErrors says why.
  const { tools, errorDetails } = await mcp.listToolsWithErrors();
  const t = tools[`ts_${tool}`];
  if (!t) throw errorDetails?.ts ?? new ReferenceError(`listTools() has no tool ${JSON.stringify(tool)}`);
  // What a Mastra agent passes execute: the model's arguments and the call's context.
  const value = await t.execute(JSON.parse(process.env.TOOLSCORE_ARGUMENTS || "{}"), { toolCallId: "call-1", messages: [] });
  if (value && typeof value === "object" && value.error === true && typeof value.message === "string") {
    out.handed = { kind: "error", excerpt: excerpt(value.message), is_error: true };
  } else if (value && typeof value === "object" && !Array.isArray(value) && Array.isArray(value.content)) {
    out.returned = value;
  } else {
    out.handed = { kind: value === undefined ? "none" : typeof value === "string" ? "text" : "structured", excerpt: excerpt(value), is_error: false };
  }
} catch (e) {
  out.raised = { class: e?.constructor?.name ?? typeof e, message: String(e?.message ?? e) };
  if (typeof e?.code === "number") out.raised.code = e.code;
}
process.stdout.write(JSON.stringify(out) + "\n");
await mcp.disconnect().catch(() => {});
process.exit(0);
