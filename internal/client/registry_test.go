package client_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	// The agents register from their own package, as in toolscore itself.
	_ "github.com/toolscore/toolscore/internal/agent"
	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/record"
)

// TestRegistry: every name a manifest may use resolves to the command a run starts, the image
// it runs in and, for an agent, where its real model's key is by default.
func TestRegistry(t *testing.T) {
	node, python := []string{"node", "/opt/adapter/adapter.mjs"}, []string{"/opt/adapter/venv/bin/python", "/opt/adapter/adapter.py"}
	java := []string{"java", "-cp", "/opt/adapter/lib/*", "toolscore.Adapter"}
	agent := func(name string) []string { return []string{"/opt/toolscore/toolscore", "agent", name} }
	table := []struct {
		name, image, keyEnv string
		agent, inProcess    bool
		argv                []string
	}{
		{name: "raw", inProcess: true},
		{name: "go-sdk/call", inProcess: true},
		{name: "go-sdk/list-then-call", inProcess: true},
		{name: "mcp-go/call", inProcess: true},
		{name: "mcp-go/list-then-call", inProcess: true},
		{name: "ts-sdk/call", image: "ts-sdk", argv: append(node, "call")},
		{name: "ts-sdk/list-then-call", image: "ts-sdk", argv: append(node, "list-then-call")},
		{name: "ts-client-v2/call", image: "ts-client-v2", argv: append(node, "call")},
		{name: "ts-client-v2/list-then-call", image: "ts-client-v2", argv: append(node, "list-then-call")},
		{name: "python-sdk/call", image: "python-sdk", argv: append(python, "call")},
		{name: "python-sdk/list-then-call", image: "python-sdk", argv: append(python, "list-then-call")},
		{name: "openai-agents-py", image: "openai-agents-py", argv: python},
		{name: "langchain-py", image: "langchain-py", argv: python},
		{name: "openai-agents-js", image: "openai-agents-js", argv: node},
		{name: "openai-agents-js/structured", image: "openai-agents-js", argv: append(node, "structured")},
		{name: "langchain-js", image: "langchain-js", argv: node},
		{name: "fastmcp/call", image: "fastmcp", argv: append(python, "call")},
		{name: "fastmcp/list-then-call", image: "fastmcp", argv: append(python, "list-then-call")},
		{name: "pydantic-ai", image: "pydantic-ai", argv: python},
		{name: "agno", image: "agno", argv: python},
		{name: "semantic-kernel", image: "semantic-kernel", argv: python},
		{name: "autogen", image: "autogen", argv: python},
		{name: "google-adk", image: "google-adk", argv: python},
		{name: "strands-agents", image: "strands-agents", argv: python},
		{name: "llama-index", image: "llama-index", argv: python},
		{name: "mcp-use", image: "mcp-use", argv: python},
		{name: "java-sdk", image: "java-sdk", argv: java},
		{name: "java-sdk/validating", image: "java-sdk", argv: append(slices.Clone(java), "validating")},
		{name: "kotlin-sdk", image: "kotlin-sdk", argv: java},
		{name: "langchain4j", image: "langchain4j", argv: java},
		{name: "claude-code", image: "claude-code", keyEnv: "ANTHROPIC_API_KEY", agent: true, inProcess: true, argv: agent("claude-code")},
		{name: "codex", image: "codex", keyEnv: "OPENAI_API_KEY", agent: true, inProcess: true, argv: agent("codex")},
		{name: "gemini-cli", image: "gemini-cli", keyEnv: "GEMINI_API_KEY", agent: true, inProcess: true, argv: agent("gemini-cli")},
		{name: "ai-sdk", image: "ai-sdk", argv: node},
		{name: "ai-sdk/schemas", image: "ai-sdk", argv: append(node, "schemas")},
		{name: "mastra", image: "mastra", argv: node},
		{name: "qwen-code", image: "qwen-code", keyEnv: "OPENAI_API_KEY", agent: true, inProcess: true, argv: agent("qwen-code")},
		{name: "opencode", image: "opencode", keyEnv: "OPENAI_API_KEY", agent: true, inProcess: true, argv: agent("opencode")},
		{name: "copilot-cli", image: "copilot-cli", keyEnv: "OPENAI_API_KEY", agent: true, inProcess: true, argv: agent("copilot-cli")},
		{name: "claude-agent-sdk", image: "claude-agent-sdk", keyEnv: "ANTHROPIC_API_KEY", agent: true, inProcess: true, argv: agent("claude-agent-sdk")},
		{name: "claude-agent-sdk-py", image: "claude-agent-sdk-py", keyEnv: "ANTHROPIC_API_KEY", agent: true, inProcess: true, argv: agent("claude-agent-sdk-py")},
		{name: "kilo-cli", image: "kilo-cli", keyEnv: "OPENAI_API_KEY", agent: true, inProcess: true, argv: agent("kilo-cli")},
		{name: "continue-cli", image: "continue-cli", keyEnv: "OPENAI_API_KEY", agent: true, inProcess: true, argv: agent("continue-cli")},
		{name: "cline-cli", image: "cline-cli", keyEnv: "OPENAI_API_KEY", agent: true, inProcess: true, argv: agent("cline-cli")},
		{name: "rmcp", image: "rmcp", argv: []string{"/opt/adapter/toolscore-rmcp"}},
	}
	for _, w := range table {
		d, path, ok := client.Lookup(w.name)
		if !ok {
			t.Errorf("%s is not registered", w.name)
			continue
		}
		if d.Image.Dir != w.image || d.Contained() != (w.image != "") || d.KeyEnv != w.keyEnv || d.Agent != w.agent ||
			client.IsAgent(w.name) != w.agent || (d.Run != nil) != w.inProcess {
			t.Errorf("%s: image %q, key %q, agent %v, in process %v; want image %q, key %q, agent %v, in process %v",
				w.name, d.Image.Dir, d.KeyEnv, d.Agent, d.Run != nil, w.image, w.keyEnv, w.agent, w.inProcess)
		}
		if d.Contained() && !slices.Equal(d.Argv(path), w.argv) {
			t.Errorf("%s starts as %q in its image, want %q", w.name, d.Argv(path), w.argv)
		}
		if want, _ := strings.CutPrefix(w.name, d.Name+"/"); want != w.name && path != want {
			t.Errorf("%s resolves to path %q, want %q", w.name, path, want)
		}
	}
	// The listings are sorted, hold every name above, and nothing that does not resolve: a new
	// client adds itself to them with no change here.
	names := client.Names()
	if !slices.IsSorted(names) || !slices.IsSorted(client.AgentNames()) {
		t.Errorf("Names() %v or AgentNames() %v is not sorted", names, client.AgentNames())
	}
	for _, w := range table {
		if !slices.Contains(names, w.name) || slices.Contains(client.AgentNames(), w.name) != w.agent {
			t.Errorf("%s: in Names() %v, in AgentNames() %v", w.name, slices.Contains(names, w.name), slices.Contains(client.AgentNames(), w.name))
		}
	}
	for _, n := range names {
		if _, _, ok := client.Lookup(n); !ok {
			t.Errorf("Names() lists %s, which does not resolve", n)
		}
	}
	var images []string
	for _, im := range client.Images() {
		images = append(images, im.Dir)
	}
	if !slices.IsSorted(images) || len(slices.Compact(slices.Clone(images))) != len(images) {
		t.Errorf("Images() = %v, want each directory once, sorted", images)
	}
	for _, w := range table {
		if w.image != "" && !slices.Contains(images, w.image) {
			t.Errorf("Images() = %v lacks %s", images, w.image)
		}
	}
	if _, _, ok := client.Lookup("go-sdk"); ok {
		t.Error("go-sdk resolves, but a client with paths is named only with one")
	}
}

// TestRegisterRefuses: a name taken twice, or a client with nothing to run, stops at once.
func TestRegisterRefuses(t *testing.T) {
	run := func(context.Context, client.Request, string) (*record.Observation, error) { return nil, nil }
	for name, d := range map[string]client.Descriptor{
		"a name taken":         {Name: "raw", Run: run},
		"a path's name taken":  {Name: "go-sdk", Paths: []string{"call"}, Run: run},
		"nothing to run":       {Name: "toolscore-test-idle"},
		"an image, no command": {Name: "toolscore-test-imaged", Image: client.Image{Dir: "ts-sdk"}},
		"no name":              {Run: run},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%+v) did not panic", d)
				}
			}()
			client.Register(d)
		})
	}
	if _, _, ok := client.Lookup("toolscore-test-idle"); ok {
		t.Error("a refused descriptor was registered")
	}
}
