// toolscore's TypeScript adapter: one tools/call through the real MCP TypeScript SDK
// (1.x is @modelcontextprotocol/sdk, 2.x is @modelcontextprotocol/client; the image says which
// in TOOLSCORE_TS_PACKAGE), speaking the runner's contract: the request comes in TOOLSCORE_*
// variables, one JSON observation line goes to stdout. TOOLSCORE_URL, when set, is the server's
// streamable HTTP endpoint (the http transport); otherwise TOOLSCORE_SERVER is its command.
import { readFileSync } from "node:fs";

const mode = process.argv[2] ?? "call";
const pkg = process.env.TOOLSCORE_TS_PACKAGE ?? "@modelcontextprotocol/sdk";
const v2 = pkg === "@modelcontextprotocol/client";
const { Client } = await import(v2 ? "@modelcontextprotocol/client" : "@modelcontextprotocol/sdk/client/index.js");
const version = JSON.parse(readFileSync(new URL(`./node_modules/${pkg}/package.json`, import.meta.url), "utf8")).version;

const out = {
  client: (v2 ? "ts-client-v2/" : "ts-sdk/") + mode,
  library: `${pkg} ${version}`,
  listed: mode === "list-then-call",
};
let transport;
if (process.env.TOOLSCORE_URL) {
  const { StreamableHTTPClientTransport } = await import(v2 ? "@modelcontextprotocol/client" : "@modelcontextprotocol/sdk/client/streamableHttp.js");
  transport = new StreamableHTTPClientTransport(new URL(process.env.TOOLSCORE_URL));
} else {
  const { StdioClientTransport } = await import(v2 ? "@modelcontextprotocol/client/stdio" : "@modelcontextprotocol/sdk/client/stdio.js");
  const server = JSON.parse(process.env.TOOLSCORE_SERVER);
  // The whole environment goes to the server: the SDK's default passes only a few variables.
  transport = new StdioClientTransport({ command: server[0], args: server.slice(1), env: process.env, stderr: "inherit" });
}
const client = new Client({ name: "toolscore-ts", version: "1" });
// The handshake is inside: a server that fails it is something the library reacts to.
try {
  await client.connect(transport);
  if (out.listed) await client.listTools();
  out.returned = await client.callTool({
    name: process.env.TOOLSCORE_TOOL,
    arguments: JSON.parse(process.env.TOOLSCORE_ARGUMENTS || "{}"),
  });
} catch (e) {
  out.raised = { class: e?.constructor?.name ?? typeof e, message: String(e?.message ?? e) };
  if (typeof e?.code === "number") out.raised.code = e.code;
}
process.stdout.write(JSON.stringify(out) + "\n");
await client.close().catch(() => {});
process.exit(0);
