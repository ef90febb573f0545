package agent

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/model"
	"github.com/toolscore/toolscore/record"
)

func init() {
	// Its name, package, pin, image and docs are its folder's (internal/client/clients/cline-cli).
	client.Register(client.AgentFolder("cline-cli", func(ctx context.Context, r client.Request, _ string) (*record.Observation, error) {
		return ClineCLI(ctx, r)
	}))
}

// ClineCLI runs Cline's CLI headless (cline --json PROMPT: act mode, every tool approved) with
// a fresh home whose ~/.cline/data/settings hold only its openai-compatible provider on the
// scripted Chat Completions API on 127.0.0.1 (providers.json, as `cline auth -p
// openai-compatible -b URL` writes it) and the scenario's MCP server (cline_mcp_settings.json,
// as `cline mcp add` writes it). The CLI is TOOLSCORE_CLINE (default: cline on PATH). Its files
// land in ./cline-cli/ of the run's directory: model-requests.jsonl, messages.jsonl (the CLI's
// own record), stderr.txt, and the home it ran with.
func ClineCLI(ctx context.Context, r client.Request) (*record.Observation, error) {
	a, err := prepare(r, "cline-cli", "TOOLSCORE_CLINE", "cline", model.Chat, "work", "home/.cline/data/settings")
	if err != nil {
		return nil, err
	}
	defer a.close()
	bin, dir, home, m := a.bin, a.dir, a.home, a.model
	work := filepath.Join(dir, "work")
	settings := filepath.Join(home, ".cline", "data", "settings")
	mdl := r.Model
	if mdl == "" {
		mdl = model.ScriptedChatModel
	}
	providers := map[string]any{"version": 1, "lastUsedProvider": "openai-compatible", "modes": map[string]any{},
		"providers": map[string]any{"openai-compatible": map[string]any{"settings": map[string]any{
			"provider": "openai-compatible", "apiKey": placeholderKey, "model": mdl, "baseUrl": m.URL + "/v1"},
			"updatedAt": "2026-01-01T00:00:00.000Z", "tokenSource": "manual"}}}
	if err := writeJSON(filepath.Join(settings, "providers.json"), providers); err != nil {
		return nil, err
	}
	transport := map[string]any{"type": "stdio"}
	if r.URL != "" {
		transport["type"], transport["url"] = "streamableHttp", r.URL
	} else {
		transport["command"], transport["args"] = r.Server[0], r.Server[1:]
	}
	if err := writeJSON(filepath.Join(settings, "cline_mcp_settings.json"),
		// Its requests to a server time out after 3 s unless the entry says otherwise ("timeout", in
		// seconds): a loaded machine's first initialize can take longer.
		map[string]any{"mcpServers": map[string]any{ServerName: map[string]any{"transport": transport, "timeout": 60}}}); err != nil {
		return nil, err
	}
	prompt := r.Prompt
	if prompt == "" {
		prompt = defaultPrompt(r)
	}
	cmd := exec.CommandContext(ctx, bin, "--json", "--cwd", work, "--retries", "1",
		"--provider", "openai-compatible", "--model", mdl, prompt)
	cmd.Dir = work
	cmd.Env = append(cliEnv("CLINE_", "OPENAI_", "ANTHROPIC_", "OTEL_"), "HOME="+home, "NO_COLOR=1", "CI=1")
	run, err := runCLI(ctx, cmd, dir, "messages.jsonl")
	if err != nil {
		return nil, err
	}
	reqs := m.Requests()
	// Its tool message is the JSON of the whole CallToolResult: the MCP tool's execute returns
	// callTool's result as it is (@cline/core dist/index.js:230), and the agent serializes it.
	// The model reads isError, structuredContent and the text blocks from that JSON.
	view, called, asked := chatView(reqs, r.Tool, func(text string) bool { return clineResult(text).IsError })
	view = clineView(view)
	view.Called = called
	obs := &record.Observation{Client: "cline-cli", Library: "cline " + npmVersionOr(ctx, bin, "cline"), Listed: true}
	av := &record.AgentView{ModelView: view, Answer: strings.TrimSpace(string(run.stdout)), Model: asked, ModelRequests: len(reqs), Exit: run.exit,
		Files: []string{"cline-cli/model-requests.jsonl", "cline-cli/messages.jsonl", "cline-cli/stderr.txt"}}
	obs.Agent = av
	run.report("cline-cli", len(reqs), view.Block != nil)
	return obs, nil
}

// clineCallResult is the CallToolResult as Cline's tool message carries it.
type clineCallResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

func clineResult(text string) clineCallResult {
	var res clineCallResult
	_ = json.Unmarshal([]byte(strings.TrimSpace(text)), &res)
	return res
}

// clineView reads the view from the JSON of the result: structured (its excerpt the JSON of
// structuredContent) when the result has structuredContent, else the text blocks' text; the
// block keeps the whole message as the model got it.
func clineView(v record.ModelView) record.ModelView {
	if v.Kind == record.ViewNone {
		return v
	}
	res := clineResult(qwenText(v))
	var texts []string
	for _, c := range res.Content {
		if c.Type == "text" {
			texts = append(texts, c.Text)
		}
	}
	if texts == nil && res.StructuredContent == nil {
		return v // not a CallToolResult: the message as it came
	}
	v.Kind, v.Excerpt = Classify(v.IsError, texts), excerpt(strings.Join(texts, "\n"), 2000)
	if !v.IsError && len(res.StructuredContent) > 0 && string(res.StructuredContent) != "null" {
		v = withJSON(v, string(res.StructuredContent))
	}
	return v
}
