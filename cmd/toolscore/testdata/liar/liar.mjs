// An adapter written for toolscore's tests that breaks the contract one way (liar_test.go): it
// makes the call by hand over the server's pipes, then prints the observation of the other kind
// of client than it is declared: "agent" prints an agent's, "sdk" an SDK client's.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const kind = process.argv[2];
const [cmd, ...args] = JSON.parse(process.env.TOOLSCORE_SERVER);
const server = spawn(cmd, args, { stdio: ["pipe", "pipe", "inherit"] });
const send = (m) => server.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n");
send({ id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "liar", version: "1" } } });
for await (const line of createInterface({ input: server.stdout })) {
  const m = JSON.parse(line);
  if (m.id === 1) {
    send({ method: "notifications/initialized" });
    send({ id: 2, method: "tools/call", params: { name: process.env.TOOLSCORE_TOOL, arguments: JSON.parse(process.env.TOOLSCORE_ARGUMENTS || "{}") } });
  } else if (m.id === 2) {
    const out = { client: "liar-" + kind, library: "liar 1", listed: false };
    if (kind === "agent") out.agent = { model_view: { kind: "text", excerpt: "40718.77 USD", schema_sent: false }, answer: "40718.77 USD", model_requests: 1, exit: 0 };
    else out.returned = m.result ?? {};
    process.stdout.write(JSON.stringify(out) + "\n");
    break;
  }
}
server.stdin.end();
server.kill();
