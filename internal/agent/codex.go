package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/model"
	"github.com/toolscore/toolscore/record"
)

// codexKeyEnv is the variable the provider entry names for its API key (the placeholder).
const codexKeyEnv = "TOOLSCORE_CODEX_API_KEY"

// scriptedCodexModel is the model Codex is told it talks to when the scripted model plays it:
// the newest of its catalogue whose tools are function tools the model calls directly.
// Codex 0.171.0's default and every newer model in its catalogue are "code_mode_only": their
// only tool is a JavaScript exec that calls MCP tools from code, so what reaches the model is
// whatever that code prints, not the client layer's rendering of the result.
const scriptedCodexModel = "gpt-5.5"

func init() {
	// Its name, package, pin, image and docs are its folder's (internal/client/clients/codex).
	client.Register(client.AgentFolder("codex", func(ctx context.Context, r client.Request, _ string) (*record.Observation, error) {
		return Codex(ctx, r)
	}))
}

// Codex runs the Codex CLI headless (codex exec --json) with a fresh home and CODEX_HOME
// holding only the scenario's MCP server (its tools approved), a model provider pointed at the
// scripted Responses API on 127.0.0.1, built-in tools, analytics, feedback and update checks
// off. The CLI is TOOLSCORE_CODEX (default: codex on PATH). Its files land in ./codex/ of the
// run's directory: model-requests.jsonl (every request the model got), events.jsonl (the CLI's
// own --json record), stderr.txt, config.toml, and the home it ran with.
func Codex(ctx context.Context, r client.Request) (*record.Observation, error) {
	a, err := prepare(r, "codex", "TOOLSCORE_CODEX", "codex", model.OpenAI, "home/.codex", "work")
	if err != nil {
		return nil, err
	}
	defer a.close()
	bin, dir, home, m := a.bin, a.dir, a.home, a.model
	codexHome := filepath.Join(home, ".codex")
	work := filepath.Join(dir, "work")

	mdl := r.Model
	if mdl == "" {
		mdl = scriptedCodexModel
	}
	config := codexConfig(mdl, m.URL+"/v1", r)
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o600); err != nil {
		return nil, err
	}
	_ = os.WriteFile(filepath.Join(dir, "config.toml"), []byte(config), 0o644)
	prompt := r.Prompt
	if prompt == "" {
		prompt = defaultPrompt(r)
	}
	args := []string{"exec", "--json", "--skip-git-repo-check", "--ephemeral", "--ignore-rules",
		"--color", "never", "--sandbox", "read-only", "-C", work}
	args = append(args, "--model", mdl, "--", prompt)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = work
	cmd.Env = append(cliEnv("OPENAI_", "CODEX_"), "HOME="+home, "CODEX_HOME="+codexHome, codexKeyEnv+"="+placeholderKey,
		"NO_COLOR=1", "RUST_LOG=warn",
		// No backtrace in the error text Codex gives the model when a call fails.
		"RUST_BACKTRACE=0", "RUST_LIB_BACKTRACE=0")
	cmd.Stdin = nil
	run, err := runCLI(ctx, cmd, dir, "events.jsonl")
	if err != nil {
		return nil, err
	}
	exit := run.exit

	stream := parseCodexEvents(run.stdout)
	reqs := m.Requests()
	view, called := responsesView(reqs, r.Tool)
	view.Called = called
	obs := &record.Observation{Client: "codex", Library: "@openai/codex " + codexVersion(ctx, bin), Listed: true}
	av := &record.AgentView{ModelView: view, Answer: stream.answer, Model: requestedModel(reqs), ModelRequests: len(reqs), Exit: exit,
		Files: []string{"codex/model-requests.jsonl", "codex/events.jsonl", "codex/stderr.txt", "codex/config.toml"}}
	if stream.tool != nil {
		av.Stream = excerpt(string(stream.tool.raw), 2000)
		agrees := view.Block != nil && stream.tool.agrees(view)
		av.StreamAgrees = &agrees
	}
	if stream.errText != "" {
		av.Stream = strings.TrimSpace(av.Stream + "\nerror: " + stream.errText)
	}
	obs.Agent = av
	run.report("codex", len(reqs), view.Block != nil)
	return obs, nil
}

// codexConfig is the whole config.toml: the provider, the scenario's server with its tools
// approved, and everything else Codex would reach for turned off.
func codexConfig(mdl, baseURL string, r client.Request) string {
	var b strings.Builder
	q := tomlString
	fmt.Fprintf(&b, "model = %s\nmodel_provider = \"toolscore\"\n", q(mdl))
	b.WriteString(`approval_policy = "never"
sandbox_mode = "read-only"
check_for_update_on_startup = false
web_search = "disabled"
hide_agent_reasoning = true

[model_providers.toolscore]
name = "toolscore"
`)
	fmt.Fprintf(&b, "base_url = %s\nenv_key = %s\n", q(baseURL), q(codexKeyEnv))
	b.WriteString(`wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false

[history]
persistence = "none"

[features]
shell_tool = false
unified_exec = false
view_image = false
goals = false
apps = false
plugins = false
remote_plugin = false
skill_search = false
tool_suggest = false
image_generation = false
browser_use = false
computer_use = false
hooks = false
memories = false

[agents]
enabled = false

[otel]
exporter = "none"
log_user_prompt = false

`)
	fmt.Fprintf(&b, "[mcp_servers.%s]\n", ServerName)
	if r.URL != "" {
		// A url entry is a streamable HTTP server.
		fmt.Fprintf(&b, "url = %s\n", q(r.URL))
	} else {
		fmt.Fprintf(&b, "command = %s\nargs = [", q(r.Server[0]))
		for i, a := range r.Server[1:] {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(q(a))
		}
		b.WriteString("]\n")
	}
	b.WriteString("startup_timeout_sec = 30\ntool_timeout_sec = 60\ndefault_tools_approval_mode = \"approve\"\n")
	return b.String()
}

// tomlString is s as a TOML basic string (strconv.Quote's \x escapes are not TOML).
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// responsesView finds the tool output the model got: in the first Responses request that
// carries the scripted call's function_call_output; the tool's definition and the name it was
// called by are taken from the requests before.
func responsesView(reqs []model.Request, tool string) (record.ModelView, string) {
	var def json.RawMessage
	var called string
	for _, q := range reqs {
		if q.Path != "/v1/responses" {
			continue
		}
		var rr model.ResponsesRequest
		if json.Unmarshal(q.Body, &rr) != nil {
			continue
		}
		if c := rr.FindCall(model.ResponsesCallID); c != nil {
			called = model.Qualified(c.Namespace, c.Name)
		}
		out := rr.FindCallOutput(model.ResponsesCallID)
		if out == nil {
			if n := model.Exposed(rr.ToolNames(), tool); def == nil && n != "" {
				def = rr.ToolDef(n)
			}
			continue
		}
		parts := out.Body()
		text := strings.Join(parts, "\n")
		isErr := codexMarksError(text)
		kind := Classify(isErr, parts)
		return record.ModelView{Kind: kind, Excerpt: excerpt(text, 2000), IsError: isErr, Block: out.Raw, ToolDef: def,
			SchemaSent: bytes.Contains(def, []byte("outputSchema")) || bytes.Contains(def, []byte("output_schema"))}, called
	}
	return record.ModelView{Kind: record.ViewNone, ToolDef: def}, called
}

// requestedModel is the model the agent asked the Responses API for.
func requestedModel(reqs []model.Request) string {
	for _, q := range reqs {
		var rr model.ResponsesRequest
		if q.Path == "/v1/responses" && json.Unmarshal(q.Body, &rr) == nil && rr.Model != "" {
			return rr.Model
		}
	}
	return ""
}

// codexMarksError says whether Codex told the model the call failed. The Responses API has no
// error flag on an output, and Codex sets none: an isError result reaches the model as its
// bare text; only a call that failed in Codex (a JSON-RPC error, a timeout) is its own message.
func codexMarksError(text string) bool {
	return strings.HasPrefix(strings.TrimSpace(text), "tool call error:")
}

// codexTool is the MCP tool call item of Codex's --json record.
type codexTool struct {
	raw    json.RawMessage
	result json.RawMessage
	err    string
	status string
}

// agrees says whether Codex's own record of the result is what the model got: its error
// message, the JSON of its structured_content, or its text blocks.
func (c *codexTool) agrees(v record.ModelView) bool {
	var out model.Item
	if json.Unmarshal(v.Block, &out) != nil {
		return false
	}
	got := strings.TrimSpace(strings.Join(out.Body(), "\n"))
	if c.err != "" {
		return got == strings.TrimSpace(c.err)
	}
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Structured json.RawMessage `json:"structured_content"`
	}
	if json.Unmarshal(c.result, &res) != nil {
		return false
	}
	if len(res.Structured) > 0 && string(res.Structured) != "null" {
		var a, b any
		return json.Unmarshal(res.Structured, &a) == nil && json.Unmarshal([]byte(got), &b) == nil && reflect.DeepEqual(a, b)
	}
	var texts []string
	for _, ct := range res.Content {
		if ct.Type == "text" {
			texts = append(texts, ct.Text)
		}
	}
	return got == strings.TrimSpace(strings.Join(texts, "\n"))
}

type codexStream struct {
	answer, errText string
	tool            *codexTool
}

// parseCodexEvents reads codex exec --json: the mcp_tool_call item (its result or error), the
// last agent_message, and any error or failed turn.
func parseCodexEvents(b []byte) codexStream {
	var s codexStream
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var line struct {
			Type    string          `json:"type"`
			Message string          `json:"message"`
			Item    json.RawMessage `json:"item"`
			Error   struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		switch line.Type {
		case "item.completed":
			var it struct {
				Type   string          `json:"type"`
				Text   string          `json:"text"`
				Server string          `json:"server"`
				Status string          `json:"status"`
				Result json.RawMessage `json:"result"`
				Error  *struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			if json.Unmarshal(line.Item, &it) != nil {
				continue
			}
			switch it.Type {
			case "agent_message":
				s.answer = it.Text
			case "mcp_tool_call":
				t := &codexTool{raw: line.Item, result: it.Result, status: it.Status}
				if it.Error != nil {
					t.err = it.Error.Message
				}
				s.tool = t
			}
		case "error":
			s.errText = strings.TrimSpace(s.errText + " " + line.Message)
		case "turn.failed":
			s.errText = strings.TrimSpace(s.errText + " " + line.Error.Message)
		}
	}
	return s
}

func codexVersion(ctx context.Context, bin string) string {
	// The package's own record first: --version goes through the node launcher (100-160 ms a run).
	if v := npmVersion(bin, "@openai/codex"); v != "" {
		return v
	}
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(out))
	if len(f) == 0 {
		return "unknown"
	}
	return f[len(f)-1]
}
