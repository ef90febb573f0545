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
	// Their names, packages, pins, images and docs are their folders' (internal/client/clients/
	// claude-agent-sdk and claude-agent-sdk-py).
	client.Register(client.AgentFolder("claude-agent-sdk", func(ctx context.Context, r client.Request, _ string) (*record.Observation, error) {
		return ClaudeAgentSDK(ctx, r, claudeSDKTypeScript)
	}))
	client.Register(client.AgentFolder("claude-agent-sdk-py", func(ctx context.Context, r client.Request, _ string) (*record.Observation, error) {
		return ClaudeAgentSDK(ctx, r, claudeSDKPython)
	}))
}

// ClaudeSDK is one language's Claude Agent SDK: the agent's name, the package it reports, the
// variable naming its program (the folder's query.mjs or query.py, installed beside the SDK)
// and the program's place in the image, and the command that runs the program.
type ClaudeSDK struct {
	Agent, Package, ProgramEnv, Program string
	Argv                                func(program string) []string
}

var (
	claudeSDKTypeScript = ClaudeSDK{Agent: "claude-agent-sdk", Package: "@anthropic-ai/claude-agent-sdk",
		ProgramEnv: "TOOLSCORE_CLAUDE_AGENT_SDK", Program: "/opt/claude-agent-sdk/query.mjs",
		Argv: func(p string) []string { return []string{"node", p} }}
	// The Python program runs on the interpreter of the virtual environment beside it, where the
	// SDK is installed (in the image and in a local install alike).
	claudeSDKPython = ClaudeSDK{Agent: "claude-agent-sdk-py", Package: "claude-agent-sdk",
		ProgramEnv: "TOOLSCORE_CLAUDE_AGENT_SDK_PY", Program: "/opt/claude-agent-sdk-py/query.py",
		Argv: func(p string) []string { return []string{filepath.Join(filepath.Dir(p), "venv", "bin", "python"), p} }}
)

// ClaudeAgentSDK runs a Claude Agent SDK as an application does: its program (query.mjs,
// query.py) calls query() with the scenario's MCP server in its options, the tool allowed, no
// built-in tools and no settings from disk. The SDK starts the Claude Code executable its
// package bundles, which connects to the server and talks to the scripted Anthropic model on
// 127.0.0.1 (the same environment as claude-code's). Its files land in ./AGENT/ of the run's
// directory: model-requests.jsonl, messages.jsonl (every message query() yielded, as
// stream-json), stderr.txt, options.json, and the home it ran with.
func ClaudeAgentSDK(ctx context.Context, r client.Request, sdk ClaudeSDK) (*record.Observation, error) {
	a, err := prepare(r, sdk.Agent, sdk.ProgramEnv, sdk.Program, model.Anthropic, "home/.claude")
	if err != nil {
		return nil, err
	}
	defer a.close()
	program, dir, home, m := a.bin, a.dir, a.home, a.model

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
	argv := append(sdk.Argv(program), filepath.Join(dir, "options.json"))
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = claudeEnv(home, m.URL)
	run, err := runCLI(ctx, cmd, dir, "messages.jsonl")
	if err != nil {
		return nil, err
	}
	files := []string{"model-requests.jsonl", "messages.jsonl", "stderr.txt", "options.json"}
	for i, f := range files {
		files[i] = sdk.Agent + "/" + f
	}
	obs := claudeObservation(sdk.Agent, run, m.Requests(), exposed, files,
		func(claudeStream) string { return sdk.Package + " " + sdkVersion(run.stdout) })
	run.report(sdk.Agent, len(m.Requests()), true)
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
