package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/model"
	"github.com/toolscore/toolscore/record"
)

func init() {
	// Its name, package, pin, image and docs are its folder's (internal/client/clients/gemini-cli).
	client.Register(client.AgentFolder("gemini-cli", func(ctx context.Context, r client.Request, _ string) (*record.Observation, error) {
		return GeminiCLI(ctx, r)
	}))
}

// GeminiCLI runs Gemini CLI headless (gemini -p, stream-json, yolo approval) with a fresh home
// whose ~/.gemini/settings.json holds only the scenario's MCP server (trusted), no built-in
// tools, telemetry, usage statistics, auto-update and checkpointing off, against the scripted
// Gemini API on 127.0.0.1 (GOOGLE_GEMINI_BASE_URL). The CLI is TOOLSCORE_GEMINI (default:
// gemini on PATH). Its files land in ./gemini-cli/ of the run's directory: model-requests.jsonl,
// stream.jsonl (the CLI's own record), stderr.txt, and the home it ran with.
func GeminiCLI(ctx context.Context, r client.Request) (*record.Observation, error) {
	a, err := prepare(r, "gemini-cli", "TOOLSCORE_GEMINI", "gemini", model.Gemini, "home/.gemini", "work")
	if err != nil {
		return nil, err
	}
	defer a.close()
	bin, dir, home, m := a.bin, a.dir, a.home, a.model
	work := filepath.Join(dir, "work")

	settings := geminiSettings(r)
	if err := writeJSON(filepath.Join(home, ".gemini", "settings.json"), settings); err != nil {
		return nil, err
	}
	prompt := r.Prompt
	if prompt == "" {
		prompt = defaultPrompt(r)
	}
	args := []string{"-p", prompt, "--output-format", "stream-json", "--approval-mode", "yolo",
		"--allowed-mcp-server-names", ServerName}
	if r.Model != "" {
		args = append(args, "--model", r.Model)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = work
	cmd.Env = append(cliEnv("GEMINI_", "GOOGLE_", "ANTHROPIC_", "CLAUDE_"), "HOME="+home,
		"GOOGLE_GEMINI_BASE_URL="+m.URL, "GEMINI_API_KEY="+placeholderKey,
		"GEMINI_CLI_NO_RELAUNCH=true", "GEMINI_TELEMETRY_ENABLED=false", "NO_COLOR=1", "CI=1")
	run, err := runCLI(ctx, cmd, dir, "stream.jsonl")
	if err != nil {
		return nil, err
	}
	exit := run.exit

	stream := parseGeminiStream(run.stdout)
	obs := &record.Observation{Client: "gemini-cli", Library: "@google/gemini-cli " + geminiVersion(ctx, bin), Listed: true}
	reqs := m.Requests()
	view, called, asked := geminiView(reqs, r.Tool)
	view.Called = called
	if asked == "" {
		asked = stream.model // "auto" unless a model was named: the router picks
	}
	av := &record.AgentView{ModelView: view, Answer: stream.answer, Model: asked, ModelRequests: len(reqs), Exit: exit,
		Files: []string{"gemini-cli/model-requests.jsonl", "gemini-cli/stream.jsonl", "gemini-cli/stderr.txt", "gemini-cli/home/.gemini/settings.json"}}
	if stream.toolResult != nil {
		av.Stream = excerpt(stream.toolResult.output, 2000)
		if m := stream.toolResult.errMessage; m != "" {
			av.Stream = excerpt(strings.TrimSpace(av.Stream+"\nerror: "+m), 2000)
		}
		agrees := view.Block != nil && stream.agrees(view.Block)
		av.StreamAgrees = &agrees
	}
	if stream.errText != "" {
		av.Stream = strings.TrimSpace(av.Stream + "\nresult: " + stream.errText)
	}
	obs.Agent = av
	run.report("gemini-cli", len(reqs), true)
	return obs, nil
}

// geminiSettings is the home's settings.json: the scenario's server, trusted (no confirmation),
// and nothing else the CLI would otherwise bring or send.
func geminiSettings(r client.Request) map[string]any {
	server := map[string]any{"trust": true, "timeout": 60000}
	if r.URL != "" {
		server["httpUrl"] = r.URL // streamable HTTP (url alone would be the older SSE transport)
	} else {
		server["command"], server["args"] = r.Server[0], r.Server[1:]
	}
	return map[string]any{
		"mcpServers": map[string]any{ServerName: server},
		"mcp":        map[string]any{"allowed": []string{ServerName}},
		// tools.core is an allowlist over every tool, MCP ones included (an empty list leaves
		// none): naming only the scenario's tool leaves the built-ins out.
		"tools":     map[string]any{"core": []string{geminiToolName(r.Tool)}, "useRipgrep": false},
		"general":   map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false, "checkpointing": map[string]any{"enabled": false}},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false, "logPrompts": false},
		"security":  map[string]any{"folderTrust": map[string]any{"enabled": false}, "auth": map[string]any{"selectedType": "gemini-api-key"}},
		"ide":       map[string]any{"enabled": false},
		"context":   map[string]any{"discoveryMaxDirs": 1},
		"advanced":  map[string]any{"ignoreLocalEnv": true},
		"ui":        map[string]any{"hideBanner": true, "hideTips": true},
	}
}

// geminiToolName is the name Gemini CLI gives an MCP tool of the scenario's server:
// mcp_<server>_<tool>, mended as model.GeminiName says (a long one cut short).
func geminiToolName(tool string) string {
	return model.GeminiName("mcp_"+ServerName+"_", tool)
}

// geminiView finds the tool result the model got: the functionResponse answering the scripted
// call in the first generateContent request that carries it; the declaration is taken from the
// request that made the call, and so is the model asked (the router's pick, in the request's
// path). The model reads the response object: Gemini CLI puts the tool's
// text parts under "output" and a failure under "error" (kind error).
func geminiView(reqs []model.Request, tool string) (view record.ModelView, called, asked string) {
	var def json.RawMessage
	for _, q := range reqs {
		if !strings.Contains(q.Path, "generateContent") && !strings.Contains(q.Path, "GenerateContent") {
			continue
		}
		var gr model.GeminiRequest
		if json.Unmarshal(q.Body, &gr) != nil {
			continue
		}
		if gr.WantsJSON() {
			continue
		}
		if def == nil {
			if n := model.Exposed(gr.ToolNames(), tool); n != "" {
				def, called = gr.ToolDef(n), n
				asked = pathModel(q.Path)
			}
		}
		p := gr.FindFunctionResponse(model.GeminiCallID)
		if p == nil {
			continue
		}
		text, isError := p.FunctionResponse.Output()
		// The excerpt is the tool's text without the CLI's <untrusted_context> framing (so it
		// compares with the wire); the block keeps the framing, as the model got it.
		parts := untrusted(text)
		kind := Classify(isError, parts)
		return record.ModelView{Kind: kind, Excerpt: excerpt(strings.Join(parts, "\n"), 2000), IsError: isError, Block: p.Raw, ToolDef: def,
			SchemaSent: bytes.Contains(def, []byte("outputSchema")) || bytes.Contains(def, []byte("output_schema"))}, called, asked
	}
	return record.ModelView{Kind: record.ViewNone, ToolDef: def}, called, asked
}

// pathModel is the model named in a request's path (/v1beta/models/<model>:<method>).
func pathModel(path string) string {
	_, rest, ok := strings.Cut(path, "/models/")
	if !ok {
		return ""
	}
	m, _, _ := strings.Cut(rest, ":")
	return m
}

// untrusted takes off the wrappers Gemini CLI puts around each text part of an MCP tool's
// result (<untrusted_context>\n…\n</untrusted_context>, a closing tag inside escaped, the
// parts joined by newlines), giving back the parts as the tool sent them. Text that is not
// wrapped so is one part, as it is.
func untrusted(s string) []string {
	m := wrapped.FindAllStringSubmatchIndex(s, -1)
	if m == nil {
		return []string{s}
	}
	var parts []string
	end := 0
	for _, ix := range m {
		if strings.TrimSpace(s[end:ix[0]]) != "" {
			return []string{s} // something outside the wrappers: not the CLI's framing alone
		}
		parts = append(parts, strings.ReplaceAll(s[ix[2]:ix[3]], "&lt;/untrusted_context&gt;", "</untrusted_context>"))
		end = ix[1]
	}
	if strings.TrimSpace(s[end:]) != "" {
		return []string{s}
	}
	return parts
}

var wrapped = regexp.MustCompile(`(?s)<untrusted_context>\n(.*?)\n</untrusted_context>`)

type geminiToolResult struct {
	status, output, errMessage string
	isError                    bool
}

type geminiStream struct {
	model, answer, errText string
	toolResult             *geminiToolResult
}

// agrees says whether the CLI's own record of the tool result says what the model got in the
// functionResponse block: the same status, and the same text (for a failure, the error's
// message is the text the model got; for a success, the output is the tool's text without the
// framing).
func (s geminiStream) agrees(block json.RawMessage) bool {
	t := s.toolResult
	var p model.GeminiPart
	if t == nil || json.Unmarshal(block, &p) != nil || p.FunctionResponse == nil {
		return false
	}
	text, isError := p.FunctionResponse.Output()
	if isError != t.isError {
		return false
	}
	if isError {
		return t.errMessage == text
	}
	return strings.TrimSpace(t.output) == strings.TrimSpace(strings.Join(untrusted(text), "\n"))
}

// parseGeminiStream reads Gemini CLI's stream-json: init (model), the assistant's messages
// (the answer, in deltas), the tool_result of the scripted call, and the final result.
func parseGeminiStream(b []byte) geminiStream {
	var s geminiStream
	var answer strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var line struct {
			Type     string `json:"type"`
			Model    string `json:"model"`
			Role     string `json:"role"`
			Content  string `json:"content"`
			Delta    bool   `json:"delta"`
			ToolID   string `json:"tool_id"`
			Status   string `json:"status"`
			Output   string `json:"output"`
			Severity string `json:"severity"`
			Message  string `json:"message"`
			Error    *struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		switch line.Type {
		case "init":
			s.model = line.Model
		case "message":
			if line.Role == "assistant" {
				answer.WriteString(line.Content)
			}
		case "tool_result":
			// The CLI's tool id is <name>__<the model's call id>.
			if line.ToolID == model.GeminiCallID || strings.HasSuffix(line.ToolID, "__"+model.GeminiCallID) || s.toolResult == nil {
				t := &geminiToolResult{status: line.Status, output: line.Output, isError: line.Status == "error"}
				if line.Error != nil {
					t.errMessage = line.Error.Message
				}
				s.toolResult = t
			}
		case "error": // {severity, message}: a blocked or failed turn, or a warning
			if line.Message != "" {
				s.errText = strings.TrimSpace(s.errText + " " + line.Severity + ": " + line.Message)
			}
		case "result":
			if line.Status != "" && line.Status != "success" {
				msg := line.Status
				if line.Error != nil {
					msg += " " + line.Error.Message
				}
				s.errText = strings.TrimSpace(s.errText + " " + msg)
			}
		}
	}
	s.answer = answer.String()
	return s
}

// geminiVersion is the version of the CLI's package, else what --version says (which costs a
// second and a half).
func geminiVersion(ctx context.Context, bin string) string {
	if v := npmVersion(bin, "@google/gemini-cli"); v != "" {
		return v
	}
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
