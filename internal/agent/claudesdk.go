package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"

	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/model"
	"github.com/toolscore/toolscore/record"
)

func init() {
	// Its name, package, pin, image and docs are its folder's (internal/client/clients/claude-agent-sdk).
	client.Register(client.AgentFolder("claude-agent-sdk", func(ctx context.Context, r client.Request, _ string) (*record.Observation, error) {
		return ClaudeAgentSDK(ctx, r)
	}))
}

// ClaudeAgentSDK runs the Claude Agent SDK for TypeScript as an application does: node runs
// the folder's query.mjs, which calls query() with the scenario's MCP server in its options,
// the tool allowed, no built-in tools and no settings from disk. The SDK starts the Claude Code
// executable its package bundles, which connects to the server and talks to the scripted
// Anthropic model on 127.0.0.1 (the same environment as claude-code's). The program is
// TOOLSCORE_CLAUDE_AGENT_SDK (default: /opt/claude-agent-sdk/query.mjs, the image's). Its files
// land in ./claude-agent-sdk/ of the run's directory: model-requests.jsonl, messages.jsonl (every
// message query() yielded), stderr.txt, options.json, and the home it ran with.
func ClaudeAgentSDK(ctx context.Context, r client.Request) (*record.Observation, error) {
	a, err := prepare(r, "claude-agent-sdk", "TOOLSCORE_CLAUDE_AGENT_SDK", "/opt/claude-agent-sdk/query.mjs", model.Anthropic, "home/.claude")
	if err != nil {
		return nil, err
	}
	defer a.close()
	script, dir, home, m := a.bin, a.dir, a.home, a.model

	exposed := model.SanitizedName("mcp__"+ServerName+"__", r.Tool)
	prompt := r.Prompt
	if prompt == "" {
		prompt = defaultPrompt(r)
	}
	opts := map[string]any{"prompt": prompt, "mcpServers": claudeServers(r), "allowedTools": []string{exposed}}
	if r.Model != "" {
		opts["model"] = r.Model
	}
	if err := writeJSON(filepath.Join(dir, "options.json"), opts); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "node", script, filepath.Join(dir, "options.json"))
	cmd.Dir = dir
	cmd.Env = claudeEnv(home, m.URL)
	run, err := runCLI(ctx, cmd, dir, "messages.jsonl")
	if err != nil {
		return nil, err
	}
	obs := claudeObservation("claude-agent-sdk", run, m.Requests(), exposed,
		[]string{"claude-agent-sdk/model-requests.jsonl", "claude-agent-sdk/messages.jsonl", "claude-agent-sdk/stderr.txt", "claude-agent-sdk/options.json"},
		func(claudeStream) string { return "@anthropic-ai/claude-agent-sdk " + sdkVersion(run.stdout) })
	run.report("claude-agent-sdk", len(m.Requests()), true)
	return obs, nil
}

// sdkVersion is the version of the Agent SDK query.mjs ran, from the line it prints first.
func sdkVersion(record []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(record))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var line struct {
			Type    string `json:"type"`
			Version string `json:"sdk_version"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Type == "toolscore" && line.Version != "" {
			return line.Version
		}
	}
	return "unknown"
}
