package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/model"
	"github.com/toolscore/toolscore/record"
)

func init() {
	// Its name, package, pin, image and docs are its folder's (internal/client/clients/copilot-cli).
	client.Register(client.AgentFolder("copilot-cli", func(ctx context.Context, r client.Request, _ string) (*record.Observation, error) {
		return CopilotCLI(ctx, r)
	}))
}

// CopilotCLI runs GitHub Copilot CLI headless (copilot -p, --output-format json) in its
// offline mode (COPILOT_OFFLINE=true: no GitHub authentication, telemetry, web tools, GitHub
// MCP server or auto-update) with its bring-your-own-key provider on the scripted Chat
// Completions API on 127.0.0.1 (COPILOT_PROVIDER_BASE_URL, type openai, wire API completions),
// a fresh COPILOT_HOME, and the scenario's MCP server given by --additional-mcp-config, its tool
// allowed and every built-in tool denied. The CLI is TOOLSCORE_COPILOT (default: copilot on
// PATH). Its files land in ./copilot-cli/ of the run's directory: model-requests.jsonl,
// events.jsonl (the CLI's own record), stderr.txt, mcp-config.json, and the home it ran with.
func CopilotCLI(ctx context.Context, r client.Request) (*record.Observation, error) {
	a, err := prepare(r, "copilot-cli", "TOOLSCORE_COPILOT", "copilot", model.Chat, "home/.copilot", "work")
	if err != nil {
		return nil, err
	}
	defer a.close()
	bin, dir, home, m := a.bin, a.dir, a.home, a.model
	work := filepath.Join(dir, "work")

	server := map[string]any{"type": "http", "url": r.URL, "tools": []string{"*"}}
	if r.URL == "" {
		server = map[string]any{"type": "local", "command": r.Server[0], "args": r.Server[1:], "tools": []string{"*"}}
	}
	mcpPath := filepath.Join(dir, "mcp-config.json")
	if err := writeJSON(mcpPath, map[string]any{"mcpServers": map[string]any{ServerName: server}}); err != nil {
		return nil, err
	}
	prompt := r.Prompt
	if prompt == "" {
		prompt = defaultPrompt(r)
	}
	mdl := r.Model
	if mdl == "" {
		mdl = model.ScriptedChatModel
	}
	args := []string{"-p", prompt, "--output-format", "json", "--additional-mcp-config", "@" + mcpPath,
		"--allow-all-tools", "--disable-builtin-mcps", "--no-auto-update", "--disable-client-telemetry",
		"--model", mdl}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = work
	cmd.Env = append(cliEnv("COPILOT_", "GH_", "GITHUB_", "OPENAI_"), "HOME="+home,
		"COPILOT_HOME="+filepath.Join(home, ".copilot"), "COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false",
		"COPILOT_PROVIDER_BASE_URL="+m.URL+"/v1", "COPILOT_PROVIDER_TYPE=openai", "COPILOT_PROVIDER_WIRE_API=completions",
		"COPILOT_PROVIDER_API_KEY="+placeholderKey, "COPILOT_MODEL="+mdl, "NO_COLOR=1", "CI=1")
	if d := os.Getenv("TOOLSCORE_COPILOT_DIST_DIR"); d != "" {
		// The CLI's JavaScript package, unpacked once (the image does it at build): without it
		// the native executable unpacks about 235 MB into the fresh home's cache every run.
		cmd.Env = append(cmd.Env, "COPILOT_CLI_DIST_DIR="+d)
	}
	run, err := runCLI(ctx, cmd, dir, "events.jsonl")
	if err != nil {
		return nil, err
	}
	reqs := m.Requests()
	stream := parseCopilotEvents(run.stdout)
	view, called, asked := chatView(reqs, r.Tool, func(text string) bool {
		return stream.isError && strings.TrimSpace(stream.text) == strings.TrimSpace(text)
	})
	view = copilotStructured(view)
	view.Called = called
	obs := &record.Observation{Client: "copilot-cli", Library: "@github/copilot " + copilotVersion(ctx, bin), Listed: true}
	av := &record.AgentView{ModelView: view, Answer: stream.answer, Model: asked, ModelRequests: len(reqs), Exit: run.exit,
		Files: []string{"copilot-cli/model-requests.jsonl", "copilot-cli/events.jsonl", "copilot-cli/stderr.txt", "copilot-cli/mcp-config.json"}}
	if stream.tool != nil {
		av.Stream = excerpt(string(stream.tool), 2000)
		agrees := view.Block != nil && strings.TrimSpace(stream.text) == strings.TrimSpace(qwenText(view))
		av.StreamAgrees = &agrees
	}
	if stream.errText != "" {
		av.Stream = strings.TrimSpace(av.Stream + "\nerror: " + stream.errText)
	}
	obs.Agent = av
	run.report("copilot-cli", len(reqs), view.Block != nil)
	return obs, nil
}

type copilotStream struct {
	answer, errText, text string
	isError               bool
	tool                  json.RawMessage
}

// parseCopilotEvents reads copilot --output-format json (JSONL): the tool execution's
// completion for the scripted call, the assistant's messages (the answer), and errors.
func parseCopilotEvents(b []byte) copilotStream {
	var s copilotStream
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var line struct {
			Type string `json:"type"`
			Data struct {
				Content    string `json:"content"`
				ToolCallID string `json:"toolCallId"`
				Success    *bool  `json:"success"`
				Message    string `json:"message"`
				Result     struct {
					Content string `json:"content"`
				} `json:"result"`
				Error *struct {
					Message string `json:"message"`
				} `json:"error"`
			} `json:"data"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		switch {
		case line.Type == "tool.execution_complete" && (line.Data.ToolCallID == model.ChatCallID || s.tool == nil):
			s.tool = append(json.RawMessage(nil), sc.Bytes()...)
			s.text = line.Data.Result.Content
			s.isError = line.Data.Success != nil && !*line.Data.Success
			if line.Data.Error != nil {
				s.text = line.Data.Error.Message
			}
		case line.Type == "assistant.message" && line.Data.Content != "":
			s.answer = line.Data.Content
		case strings.HasSuffix(line.Type, ".error") || line.Type == "error":
			s.errText = strings.TrimSpace(s.errText + " " + line.Data.Message)
		}
	}
	return s
}

func copilotVersion(ctx context.Context, bin string) string {
	if v := npmVersion(bin, "@github/copilot"); v != "" {
		return v
	}
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(out))
	for _, w := range f {
		if len(w) > 0 && w[0] >= '0' && w[0] <= '9' {
			return strings.TrimSuffix(w, ".")
		}
	}
	return "unknown"
}

// copilotStructured reads the view as Copilot CLI builds it: for a result with
// structuredContent it gives the model the text blocks, a blank line, then the JSON of
// structuredContent, in one tool message (its tool.execution_complete record keeps the parts
// apart: result.contents and result.structuredContent beside result.content, the joined text).
// The model reads the values from the JSON: the view is structured, its excerpt the JSON; the
// block keeps the whole message.
func copilotStructured(v record.ModelView) record.ModelView {
	if v.Kind != record.ViewText {
		return v
	}
	text := qwenText(v)
	if i := strings.LastIndex(text, "\n\n"); i >= 0 {
		return withJSON(v, text[i+2:])
	}
	return v
}
