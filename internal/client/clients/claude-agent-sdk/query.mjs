// The Claude Agent SDK as an application uses it: query() with the scenario's MCP server in
// options.mcpServers, its one tool allowed, no built-in tools and no settings from disk. The SDK
// starts the Claude Code executable its package bundles and hands it the servers; the executable
// connects to the server and talks to the model at ANTHROPIC_BASE_URL (toolscore's scripted
// model), both set by `toolscore agent claude-agent-sdk`, which writes the options as JSON to the
// file named by the first argument. Every message query() yields is printed as a JSON line: the
// agent's own record, read as Claude Code's stream-json is.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { query } from '@anthropic-ai/claude-agent-sdk';

// First the SDK's own version (the messages name only the executable's, claude_code_version).
const entry = fileURLToPath(import.meta.resolve('@anthropic-ai/claude-agent-sdk'));
const sdk = JSON.parse(readFileSync(join(dirname(entry), 'package.json'), 'utf8'));
process.stdout.write(JSON.stringify({ type: 'toolscore', sdk_version: sdk.version }) + '\n');

const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const options = {
  mcpServers: cfg.mcpServers,
  strictMcpConfig: true,
  tools: [],
  allowedTools: cfg.allowedTools,
  settingSources: [],
  persistSession: false,
  cwd: process.cwd(),
  stderr: (data) => process.stderr.write(data),
};
if (cfg.model) options.model = cfg.model;
let failed = false;
try {
  for await (const message of query({ prompt: cfg.prompt, options })) {
    process.stdout.write(JSON.stringify(message) + '\n');
  }
} catch (err) {
  // The SDK throws when the executable ends badly; the record so far is still the evidence.
  process.stderr.write(`query() threw: ${err && err.stack ? err.stack : err}\n`);
  failed = true;
}
process.exit(failed ? 1 : 0);
