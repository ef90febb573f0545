package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/model"
	"github.com/toolscore/toolscore/record"
)

// scriptedQwenModel is the model Qwen Code is told it talks to when the scripted model plays
// it (any name does: it sends it as the request's model).
const scriptedQwenModel = "qwen3-coder-plus"

func init() {
	// Its name, package, pin, image and docs are its folder's (internal/client/clients/qwen-code).
	client.Register(client.AgentFolder("qwen-code", func(ctx context.Context, r client.Request, _ string) (*record.Observation, error) {
		return QwenCode(ctx, r)
	}))
}

// QwenCode runs Qwen Code headless (qwen -p, stream-json, yolo approval) with a fresh home
// whose ~/.qwen/settings.json holds only the scenario's MCP server (trusted), telemetry, usage
// statistics, auto-update and chat recording off, against the scripted Chat Completions API on
// 127.0.0.1 (OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL; auth type openai). The CLI is
// TOOLSCORE_QWEN (default: qwen on PATH). Its files land in ./qwen-code/ of the run's
// directory: model-requests.jsonl, stream.jsonl (the CLI's own record), stderr.txt, and the
// home it ran with.
func QwenCode(ctx context.Context, r client.Request) (*record.Observation, error) {
	a, err := prepare(r, "qwen-code", "TOOLSCORE_QWEN", "qwen", model.Chat, "home/.qwen", "work")
	if err != nil {
		return nil, err
	}
	defer a.close()
	bin, dir, home, m := a.bin, a.dir, a.home, a.model
	work := filepath.Join(dir, "work")

	if err := writeJSON(filepath.Join(home, ".qwen", "settings.json"), qwenSettings(r)); err != nil {
		return nil, err
	}
	prompt := r.Prompt
	if prompt == "" {
		prompt = defaultPrompt(r)
	}
	mdl := r.Model
	if mdl == "" {
		mdl = scriptedQwenModel
	}
	args := []string{"-p", prompt, "--output-format", "stream-json", "--approval-mode", "yolo",
		"--allowed-mcp-server-names", ServerName, "--auth-type", "openai", "--model", mdl, "--chat-recording=false"}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = work
	cmd.Env = append(cliEnv("OPENAI_", "QWEN_", "DASHSCOPE_", "GEMINI_", "GOOGLE_", "ANTHROPIC_"), "HOME="+home,
		"OPENAI_BASE_URL="+m.URL+"/v1", "OPENAI_API_KEY="+placeholderKey, "OPENAI_MODEL="+mdl,
		"QWEN_CODE_NO_RELAUNCH=true", "NO_COLOR=1", "CI=1")
	run, err := runCLI(ctx, cmd, dir, "stream.jsonl")
	if err != nil {
		return nil, err
	}
	reqs := m.Requests()
	stream := parseQwenStream(run.stdout)
	// The Chat Completions API has no error flag on a tool message: Qwen Code tells the model a
	// call failed by the text it sends instead of the result (for an isError result its own
	// "MCP tool '…' reported tool error for function call: … with response: …",
	// chunks/chunk-2VS5EEXU.js:6263-6266 of 0.24.4; for a result its MCP SDK refused, the
	// SDK's message). Its own record marks that call is_error: the view is an error when it
	// does and the text it recorded is the one the model got.
	view, called, asked := chatView(reqs, r.Tool, func(text string) bool {
		return stream.isError && strings.TrimSpace(stream.text) == strings.TrimSpace(text)
	})
	view = qwenStructured(view)
	view.Called = called
	obs := &record.Observation{Client: "qwen-code", Library: "@qwen-code/qwen-code " + qwenVersion(ctx, bin), Listed: true}
	av := &record.AgentView{ModelView: view, Answer: stream.answer, Model: asked, ModelRequests: len(reqs), Exit: run.exit,
		Files: []string{"qwen-code/model-requests.jsonl", "qwen-code/stream.jsonl", "qwen-code/stderr.txt", "qwen-code/home/.qwen/settings.json"}}
	if stream.toolResult != nil {
		av.Stream = excerpt(string(stream.toolResult), 2000)
		agrees := view.Block != nil && strings.TrimSpace(stream.text) == strings.TrimSpace(qwenText(view))
		av.StreamAgrees = &agrees
	}
	if stream.errText != "" {
		av.Stream = strings.TrimSpace(av.Stream + "\nresult: " + stream.errText)
	}
	obs.Agent = av
	run.report("qwen-code", len(reqs), view.Block != nil)
	return obs, nil
}

// qwenSettings is the home's settings.json: the scenario's server, trusted (no confirmation),
// and nothing else the CLI would otherwise bring or send.
func qwenSettings(r client.Request) map[string]any {
	server := map[string]any{"trust": true, "timeout": 60000}
	if r.URL != "" {
		server["httpUrl"] = r.URL // streamable HTTP (url alone would be the older SSE transport)
	} else {
		server["command"], server["args"] = r.Server[0], r.Server[1:]
	}
	return map[string]any{
		"mcpServers": map[string]any{ServerName: server},
		"mcp":        map[string]any{"allowed": []string{ServerName}},
		// No tool search: with it on (the default) every MCP tool is deferred behind the
		// tool_search + tool_call bridge (chunk-WH7PDTZL.js:50398 denies both when it is off,
		// and the tool is then offered directly). tools.core leaves the built-ins out.
		"tools":     map[string]any{"toolSearch": map[string]any{"enabled": false}, "core": []string{"mcp__" + ServerName + "__" + r.Tool}},
		"general":   map[string]any{"disableAutoUpdate": true, "enableAutoUpdate": false, "checkpointing": map[string]any{"enabled": false}},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false, "logPrompts": false},
		"security":  map[string]any{"folderTrust": map[string]any{"enabled": false}, "auth": map[string]any{"selectedType": "openai"}},
		"ide":       map[string]any{"enabled": false},
		"ui":        map[string]any{"hideBanner": true, "hideTips": true},
	}
}

type qwenStream struct {
	answer, errText string
	toolResult      json.RawMessage
	// text and isError are the recorded tool_result's content and flag.
	text    string
	isError bool
}

// qwenStructured reads the view as Qwen Code builds it: for a result with structuredContent it
// gives the model the JSON of structuredContent as a part of its own, then the text blocks
// (unless one of them is that JSON already), joined by newlines into the tool message
// (transformMcpContentToParts, chunks/chunk-2VS5EEXU.js:6596-6626 of 0.24.4). The model reads
// the values from the JSON: the view is structured, its excerpt the JSON; the block keeps the
// whole message as the model got it.
func qwenStructured(v record.ModelView) record.ModelView {
	if v.Kind != record.ViewText {
		return v
	}
	first, _, _ := strings.Cut(qwenText(v), "\n")
	return withJSON(v, first)
}

// withJSON makes a text view that carries a JSON object or array (the JSON of
// structuredContent an agent put beside the text blocks) structured, its excerpt that JSON.
func withJSON(v record.ModelView, part string) record.ModelView {
	if isJSONContainer(part) {
		v.Kind, v.Excerpt = record.ViewStructured, excerpt(strings.TrimSpace(part), 2000)
	}
	return v
}

// qwenText is the whole text of the tool message the view's block holds.
func qwenText(v record.ModelView) string {
	var m model.ChatMessage
	if json.Unmarshal(v.Block, &m) != nil {
		return ""
	}
	return strings.Join(m.Parts(), "\n")
}

// parseQwenStream reads Qwen Code's stream-json (Claude Code's shape): the user message
// carrying the tool_result of the scripted call, and the final result.
func parseQwenStream(b []byte) qwenStream {
	var s qwenStream
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var line struct {
			Type    string `json:"type"`
			Subtype string `json:"subtype"`
			Result  string `json:"result"`
			IsError bool   `json:"is_error"`
			Error   *struct {
				Message string `json:"message"`
			} `json:"error"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		switch line.Type {
		case "user":
			var blocks []json.RawMessage
			_ = json.Unmarshal(line.Message.Content, &blocks)
			for _, raw := range blocks {
				var bl model.Block
				if json.Unmarshal(raw, &bl) == nil && bl.Type == "tool_result" && bl.ToolUseID == model.ChatCallID {
					s.toolResult = raw
					s.text, _ = bl.ToolResultText()
					s.isError = bl.IsError
				}
			}
		case "result":
			s.answer = line.Result
			if line.IsError || (line.Subtype != "" && line.Subtype != "success") {
				s.errText = line.Subtype
				if line.Error != nil {
					s.errText += " " + line.Error.Message
				}
			}
		}
	}
	return s
}

func qwenVersion(ctx context.Context, bin string) string {
	if v := npmVersion(bin, "@qwen-code/qwen-code"); v != "" {
		return v
	}
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
