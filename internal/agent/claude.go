package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/model"
	"github.com/toolscore/toolscore/record"
)

// ServerName is the name the agents' configs give the scenario's MCP server, so Claude Code
// exposes the tool as mcp__scenario__<tool>.
const ServerName = "scenario"

// defaultPrompt is what an agent is asked when the scenario has no prompt.
func defaultPrompt(r client.Request) string {
	return "Call the tool " + r.Tool + " and tell me what it returned."
}

func init() {
	// Its name, package, pin, image and docs are its folder's (internal/client/clients/claude-code).
	client.Register(client.AgentFolder("claude-code", func(ctx context.Context, r client.Request, _ string) (*record.Observation, error) {
		return ClaudeCode(ctx, r)
	}))
}

// ClaudeCode runs Claude Code headless (claude -p, stream-json) with a fresh home holding only
// the scenario's MCP server, no built-in tools, telemetry, auto-update and non-essential traffic
// off, against the scripted Anthropic model on 127.0.0.1. The CLI is TOOLSCORE_CLAUDE
// (default: claude on PATH). Its files land in ./claude-code/ of the run's directory:
// model-requests.jsonl (every request the model got), stream.jsonl (the CLI's own record),
// stderr.txt, mcp.json, and the home it ran with.
func ClaudeCode(ctx context.Context, r client.Request) (*record.Observation, error) {
	a, err := prepare(r, "claude-code", "TOOLSCORE_CLAUDE", "claude", model.Anthropic, "home/.claude")
	if err != nil {
		return nil, err
	}
	defer a.close()
	bin, dir, home, m := a.bin, a.dir, a.home, a.model

	// The name Claude Code gives the tool: a dot in it is "_" (model.SanitizedName).
	exposed := model.SanitizedName("mcp__"+ServerName+"__", r.Tool)
	mcp := map[string]any{"mcpServers": claudeServers(r)}
	// Only the scenario's tool, allowed without a prompt; nothing else the CLI ships.
	settings := map[string]any{
		"permissions":                map[string]any{"allow": []string{exposed}},
		"includeCoAuthoredBy":        false,
		"autoUpdates":                false,
		"enableAllProjectMcpServers": false,
	}
	if err := writeJSON(filepath.Join(dir, "mcp.json"), mcp); err != nil {
		return nil, err
	}
	if err := writeJSON(filepath.Join(home, ".claude", "settings.json"), settings); err != nil {
		return nil, err
	}
	prompt := r.Prompt
	if prompt == "" {
		prompt = defaultPrompt(r)
	}
	args := []string{"-p", prompt, "--output-format", "stream-json", "--verbose",
		"--mcp-config", filepath.Join(dir, "mcp.json"), "--strict-mcp-config",
		"--tools", "", "--allowedTools", exposed,
		"--no-session-persistence", "--disable-slash-commands"}
	if r.Model != "" {
		args = append(args, "--model", r.Model)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = claudeEnv(home, m.URL)
	run, err := runCLI(ctx, cmd, dir, "stream.jsonl")
	if err != nil {
		return nil, err
	}
	obs := claudeObservation("claude-code", run, m.Requests(), exposed,
		[]string{"claude-code/model-requests.jsonl", "claude-code/stream.jsonl", "claude-code/stderr.txt", "claude-code/mcp.json"},
		func(s claudeStream) string {
			if s.version == "" {
				s.version = claudeVersion(ctx, bin)
			}
			return "@anthropic-ai/claude-code " + s.version
		})
	run.report("claude-code", len(m.Requests()), true)
	return obs, nil
}

// claudeObservation is the observation of a run of Claude Code, as the CLI (claude-code) or
// under the Agent SDK (claude-agent-sdk), whose records have the same shape: the model's view
// from the model's requests, the answer, model and version from the record (stream-json, or the
// messages query() yielded). library names the package and version the run ran, given the record.
func claudeObservation(agent string, run cliRun, reqs []model.Request, exposed string, files []string, library func(claudeStream) string) *record.Observation {
	stream := parseClaudeStream(run.stdout)
	obs := &record.Observation{Client: agent, Library: library(stream), Listed: true}
	view := anthropicView(reqs, exposed)
	if view.Block != nil {
		view.Called = exposed
	}
	av := &record.AgentView{ModelView: view, Answer: stream.result, Model: stream.model, ModelRequests: len(reqs), Exit: run.exit, Files: files}
	if stream.toolResult != nil {
		av.Stream = excerpt(string(stream.toolResult), 2000)
		agrees := view.Block != nil && sameResult(view.Block, stream.toolResult)
		av.StreamAgrees = &agrees
	}
	if stream.errText != "" {
		av.Stream = strings.TrimSpace(av.Stream + "\nresult: " + stream.errText)
	}
	obs.Agent = av
	return obs
}

// claudeServers is the mcpServers of Claude Code's config (and of the Agent SDK's options): the
// scenario's server alone, over stdio or streamable HTTP.
func claudeServers(r client.Request) map[string]any {
	server := map[string]any{"type": "http", "url": r.URL}
	if r.URL == "" {
		server = map[string]any{"type": "stdio", "command": r.Server[0], "args": r.Server[1:]}
	}
	return map[string]any{ServerName: server}
}

// claudeEnv is the environment Claude Code runs with (under the Agent SDK too, which hands the
// executable its own): the home given, the model at url with a placeholder key, and nothing
// sent anywhere else.
func claudeEnv(home, url string) []string {
	return append(cliEnv("ANTHROPIC_", "CLAUDE_"), "HOME="+home, "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"),
		"ANTHROPIC_BASE_URL="+url, "ANTHROPIC_API_KEY="+placeholderKey,
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1",
		"DISABLE_NON_ESSENTIAL_MODEL_CALLS=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		// With no built-in tools there is no ToolSearch, so MCP tools are listed to the model
		// directly; this keeps it so if that changes. (The scripted model also copes with the
		// search step: with --tools ToolSearch, 2.1.332 defers the tool, the model selects it,
		// and the tool result reaches the model the same way.)
		"ENABLE_TOOL_SEARCH=false")
}

// anthropicView finds the tool result the model got: in the first Messages request that
// carries the scripted call's tool_result; the tool's definition is taken from the request
// that made the call (the one before).
func anthropicView(reqs []model.Request, exposed string) record.ModelView {
	var def json.RawMessage
	for _, q := range reqs {
		if !strings.HasPrefix(q.Path, "/v1/messages") || strings.HasPrefix(q.Path, "/v1/messages/") {
			continue
		}
		var mr model.MessagesRequest
		if json.Unmarshal(q.Body, &mr) != nil {
			continue
		}
		if d := mr.ToolDef(exposed); d != nil && def == nil {
			def = d
		}
		b := mr.FindToolResult(model.CallID)
		if b == nil {
			continue
		}
		raw := b.Raw
		var parts []string
		var s string
		if json.Unmarshal(b.Content, &s) == nil {
			parts = []string{s}
		} else {
			var bs []model.Block
			_ = json.Unmarshal(b.Content, &bs)
			for _, c := range bs {
				if c.Type == "text" {
					parts = append(parts, c.Text)
				}
			}
		}
		text, _ := b.ToolResultText()
		kind := Classify(b.IsError, parts)
		if kind == record.ViewText && noOutput.MatchString(strings.TrimSpace(text)) {
			// Claude Code's own placeholder for a result with no content: the model is told
			// there was nothing.
			kind = record.ViewNone
		}
		return record.ModelView{Kind: kind, Excerpt: excerpt(text, 2000), IsError: b.IsError, Block: raw, ToolDef: def,
			SchemaSent: bytes.Contains(def, []byte("outputSchema")) || bytes.Contains(def, []byte("output_schema"))}
	}
	return record.ModelView{Kind: record.ViewNone, ToolDef: def}
}

// noOutput is what Claude Code puts in front of the model when a tool result has no content.
var noOutput = regexp.MustCompile(`^\(\S+ completed with no output\)$`)

type claudeStream struct {
	version, model, result, errText string
	toolResult                      json.RawMessage
}

// parseClaudeStream reads Claude Code's stream-json: the init line (version, model), the user
// message carrying the tool result, and the final result.
func parseClaudeStream(b []byte) claudeStream {
	var s claudeStream
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var line struct {
			Type    string   `json:"type"`
			Subtype string   `json:"subtype"`
			Version string   `json:"claude_code_version"`
			Model   string   `json:"model"`
			Result  string   `json:"result"`
			IsError bool     `json:"is_error"`
			Errors  []string `json:"errors"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		switch line.Type {
		case "system":
			if line.Subtype == "init" {
				s.version, s.model = line.Version, line.Model
			}
		case "user":
			var blocks []json.RawMessage
			_ = json.Unmarshal(line.Message.Content, &blocks)
			for _, raw := range blocks {
				var bl model.Block
				if json.Unmarshal(raw, &bl) == nil && bl.Type == "tool_result" && bl.ToolUseID == model.CallID {
					s.toolResult = raw
				}
			}
		case "result":
			s.result = line.Result
			if line.IsError || line.Subtype != "success" {
				s.errText = line.Subtype + " " + strings.Join(line.Errors, "; ")
			}
		}
	}
	return s
}

func claudeVersion(ctx context.Context, bin string) string {
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "unknown"
	}
	v, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	return v
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// sameResult says whether two tool_result blocks carry the same content and error flag (fields
// such as cache_control are the transport's, not the result's).
func sameResult(a, b json.RawMessage) bool {
	type result struct {
		Content any  `json:"content"`
		IsError bool `json:"is_error"`
	}
	var x, y result
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
