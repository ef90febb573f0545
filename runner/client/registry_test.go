package client_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	// The agents register from their own package, as in toolscore itself.
	_ "github.com/toolscore/toolscore/runner/agent"
	"github.com/toolscore/toolscore/runner/client"
)

// TestRegistry: every name a manifest may use resolves to the command a run starts, the image
// it runs in and, for an agent, where its real model's key is by default.
func TestRegistry(t *testing.T) {
	node, python := []string{"node", "/opt/adapter/adapter.mjs"}, []string{"/opt/adapter/venv/bin/python", "/opt/adapter/adapter.py"}
	agent := func(name string) []string { return []string{"/opt/toolscore/toolscore", "agent", name} }
	for _, w := range []struct {
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
		{name: "claude-code", image: "claude-code", keyEnv: "ANTHROPIC_API_KEY", agent: true, inProcess: true, argv: agent("claude-code")},
		{name: "codex", image: "codex", keyEnv: "OPENAI_API_KEY", agent: true, inProcess: true, argv: agent("codex")},
		{name: "gemini-cli", image: "gemini-cli", keyEnv: "GEMINI_API_KEY", agent: true, inProcess: true, argv: agent("gemini-cli")},
	} {
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
	want := "claude-code codex gemini-cli go-sdk/call go-sdk/list-then-call mcp-go/call mcp-go/list-then-call python-sdk/call python-sdk/list-then-call raw ts-client-v2/call ts-client-v2/list-then-call ts-sdk/call ts-sdk/list-then-call"
	if got := strings.Join(client.Names(), " "); got != want {
		t.Errorf("Names() = %s\nwant      %s", got, want)
	}
	if got := strings.Join(client.AgentNames(), " "); got != "claude-code codex gemini-cli" {
		t.Errorf("AgentNames() = %s", got)
	}
	var images []string
	for _, im := range client.Images() {
		images = append(images, im.Dir)
	}
	if got := strings.Join(images, " "); got != "claude-code codex gemini-cli python-sdk ts-client-v2 ts-sdk" {
		t.Errorf("Images() = %s", got)
	}
	if _, _, ok := client.Lookup("go-sdk"); ok {
		t.Error("go-sdk resolves, but a client with paths is named only with one")
	}
}

// TestRegisterRefuses: a name taken twice, or a client with nothing to run, stops at once.
func TestRegisterRefuses(t *testing.T) {
	run := func(context.Context, client.Request, string) (*client.Observation, error) { return nil, nil }
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
