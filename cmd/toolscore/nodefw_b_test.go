package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolscore/toolscore/tally"
)

// nodeFwBWant is what the two Node agent frameworks hand their model for each fault, found by
// running them (the image lockfiles: @openai/agents 0.20.0 with @openai/agents-core 0.20.0 and
// @modelcontextprotocol/client 2.4.0; @langchain/mcp-adapters 1.1.4 with @langchain/core 1.4.0
// and @modelcontextprotocol/sdk 1.32.2). The schema is published, so both list the tool first and
// their MCP clients know its outputSchema.
//
// openai-agents-js and openai-agents-js/structured (the adapter runs the tool with
// invokeFunctionTool, as the runner does):
//   - clean: passed. Without useStructuredContent the tool output is content[0]
//     (@openai/agents-core/dist/mcp.mjs:740-741), the runner's getToolCallOutputItem makes it
//     an input_text with the same text (dist/runner/toolExecution.mjs:86-92); with it, the
//     output is JSON.stringify(structuredContent) (mcp.mjs:736-739).
//   - type-swap, wrong-container: rejected. The SDK's MCP client throws (type-swap: the output
//     validator, @modelcontextprotocol/client/dist/public-CvV4ZHkX.mjs:3922; wrong-container:
//     the tools/call result schema of its request, :3896), the FunctionTool catches it
//     (@openai/agents-core/dist/tool.mjs:809, resolveToolFailure) and hands the model the
//     default error function's fixed text, "An error occurred while running the tool. Please
//     try again." (tool.mjs:518-519): an error value where the wire had a result.
//   - error: altered. An isError result is handed as its content like any other (mcp.mjs:736-741
//     reads isError only to skip structuredContent): the model gets the error's words as a
//     completed tool output with no error flag.
//
// langchain-js (tool.invoke with a tool call, giving the ToolMessage an agent hands its model):
//   - clean: altered. With structuredContent present, a single text block comes back as an
//     object {type, text, structuredContent} (@langchain/mcp-adapters/dist/tools.js:324-330),
//     which @langchain/core stringifies into the ToolMessage (@langchain/core/dist/tools/index.js:
//     352-354): the model reads the text wrapped in JSON, not the text the wire had.
//   - type-swap, wrong-container: threw. The SDK client rejects the result (type-swap: the
//     output validator, @modelcontextprotocol/sdk/dist/esm/client/index.js:498; wrong-container:
//     the CallToolResultSchema of its request, :484), and _callTool rethrows it as a
//     ToolException (tools.js:411).
//   - error: threw. _convertCallToolResult throws a ToolException for isError (tools.js:308):
//     invoke raises it, whose text carries the server's error message.
func nodeFwBWant(client, fault string) string {
	if client == "langchain-js" {
		if fault == "clean" {
			return "altered"
		}
		return "threw"
	}
	switch fault {
	case "clean":
		return "passed"
	case "error":
		return "altered"
	}
	return "rejected"
}

const nodeFwBManifest = `name: node frameworks b
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [clean, type-swap, wrong-container, error]
schema_modes: [published]
protocols: ["2026-07-28"]
transports: [stdio, http]
clients: [openai-agents-js, openai-agents-js/structured, langchain-js]
runs: 1
`

// TestNodeFrameworksBOnDocker runs @openai/agents (both paths) and @langchain/mcp-adapters
// against the ledger's faults in their cell images and on the local backend
// (node from the host) (compareBackends: the same counts both ways), checking every count against
// nodeFwBWant, and one fault over streamable HTTP.
func TestNodeFrameworksBOnDocker(t *testing.T) {
	api := engine(t)
	manifest := filepath.Join(t.TempDir(), "nodefw.yaml")
	if err := os.WriteFile(manifest, []byte(nodeFwBManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(cells []*tally.Cell, want int) {
		t.Helper()
		if len(cells) != want {
			t.Fatalf("%d cells, want %d", len(cells), want)
		}
		for _, c := range cells {
			if w := nodeFwBWant(c.Client, c.Fault); c.Outcome[w] != 1 {
				t.Errorf("%s: %s, want %s 1/1 (evidence: %v)", c.Coordinates(), c.Counts(), w, c.Examples)
			}
		}
	}
	libraries := map[string]string{
		"openai-agents-js": "@openai/agents 0.20.0", "openai-agents-js/structured": "@openai/agents 0.20.0",
		"langchain-js": "@langchain/mcp-adapters 1.1.4",
	}
	// The local backend installs from the same lockfiles into the install cache and runs node
	// from the host, as TestDockerMatchesLocalInstalled does for the SDKs.
	stdio := compareBackends(t, []string{manifest, "--transports", "stdio", "--parallel", "2"}, 12)
	check(stdio, 12)
	for _, c := range stdio {
		if c.Library != libraries[c.Client] {
			t.Errorf("%s ran %q, want %q", c.Client, c.Library, libraries[c.Client])
		}
	}
	out := t.TempDir()
	if code, _, stderr := runStatic(t, manifest, "--backend", "docker", "--transports", "http", "--faults", "type-swap", "--out", out); code != 0 {
		t.Fatalf("the http sweep exited %d:\n%s", code, stderr)
	}
	check(readResultsDir(t, out).Cells, 3)
	noLeftovers(t, api, "the node frameworks sweep")
}
