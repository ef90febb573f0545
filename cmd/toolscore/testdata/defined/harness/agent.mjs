// An agent adapter written for toolscore's tests, as a user would write one: plain node, no
// packages, MCP by hand over the server's pipes, and the model at TOOLSCORE_MODEL_URL (an
// Anthropic Messages API) on the client contract (CONTRIBUTING.md).
//
// It lists the tools, offers the scenario's tool to the model as acme__<tool>, calls what the
// model asks for, and shows the model the JSON of structuredContent when the result has one,
// else its text blocks joined, marking an isError result (or a JSON-RPC error) as an error;
// then it prints the model's final answer.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const PREFIX = "acme__";
const server = JSON.parse(process.env.TOOLSCORE_SERVER);
const tool = process.env.TOOLSCORE_TOOL;
const prompt = process.env.TOOLSCORE_PROMPT;
const modelURL = process.env.TOOLSCORE_MODEL_URL;

const child = spawn(server[0], server.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
const waiting = new Map();
createInterface({ input: child.stdout }).on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.id !== undefined && msg.method === undefined && waiting.has(msg.id)) {
    waiting.get(msg.id)(msg);
    waiting.delete(msg.id);
  }
});
let nextID = 1;
function request(method, params) {
  const id = nextID++;
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
  return new Promise((resolve) => waiting.set(id, resolve));
}

async function model(messages, tools) {
  const res = await fetch(modelURL + "/v1/messages", {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "none", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ model: "acme-model", max_tokens: 1024, tools, messages }),
  });
  if (!res.ok) throw new Error("the model answered " + res.status + ": " + (await res.text()));
  return res.json();
}

// shown is what the model is given of a tools/call reply.
function shown(reply) {
  if (reply.error) return { content: reply.error.message, is_error: true };
  const r = reply.result;
  const content = r.structuredContent !== undefined
    ? JSON.stringify(r.structuredContent)
    : (r.content || []).filter((b) => b.type === "text").map((b) => b.text).join("\n");
  return { content, is_error: r.isError === true };
}

await request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "acme-agent", version: "0.1.0" } });
child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
const listed = await request("tools/list", {});
const def = listed.result.tools.find((t) => t.name === tool);
const tools = [{ name: PREFIX + def.name, description: def.description || "", input_schema: def.inputSchema }];
const messages = [{ role: "user", content: prompt }];
let answer = "";
for (let turn = 0; turn < 4; turn++) {
  const reply = await model(messages, tools);
  messages.push({ role: "assistant", content: reply.content });
  const use = reply.content.find((b) => b.type === "tool_use");
  if (!use) {
    answer = reply.content.filter((b) => b.type === "text").map((b) => b.text).join("\n");
    break;
  }
  const called = await request("tools/call", { name: use.name.slice(PREFIX.length), arguments: use.input });
  messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: use.id, ...shown(called) }] });
}
child.stdin.end();
console.log(JSON.stringify({ client: "acme-agent", library: "acme-agent 0.1.0", agent: { answer } }));
process.exit(0);
