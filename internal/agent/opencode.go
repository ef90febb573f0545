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

// opencodeProvider is the provider id opencode's config gives the scripted model; the model is
// model.ScriptedChatModel under it.
const opencodeProvider = "toolscore"

func init() {
	// Their names, packages, pins, images and docs are their folders' (internal/client/clients/
	// opencode and kilo-cli).
	client.Register(client.AgentFolder("opencode", func(ctx context.Context, r client.Request, _ string) (*record.Observation, error) {
		return OpenCode(ctx, r, openCode)
	}))
	client.Register(client.AgentFolder("kilo-cli", func(ctx context.Context, r client.Request, _ string) (*record.Observation, error) {
		return OpenCode(ctx, r, kiloCLI)
	}))
}

// OpenCodeCLI is opencode or a CLI forked from it that keeps its headless run, its config and
// its event stream, with its own names: the agent, its npm package, the variable naming the CLI
// and its program's name, the prefix of its environment variables (OPENCODE_CONFIG, KILO_CONFIG),
// its config's $schema, and variables of its own that turn off what opencode does not have.
type OpenCodeCLI struct {
	Agent, Package, BinEnv, Bin, EnvPrefix, Schema string
	Extra                                          []string
}

var (
	openCode = OpenCodeCLI{Agent: "opencode", Package: "opencode-ai", BinEnv: "TOOLSCORE_OPENCODE", Bin: "opencode",
		EnvPrefix: "OPENCODE_", Schema: "https://opencode.ai/config.json"}
	// Kilo Code's CLI 7.x is an opencode fork: its environment variables are KILO_ (strings of
	// the kilo executable of 7.7.7), its session ingest, telemetry, codebase indexing and presence
	// are its own.
	kiloCLI = OpenCodeCLI{Agent: "kilo-cli", Package: "@kilocode/cli", BinEnv: "TOOLSCORE_KILO", Bin: "kilo", EnvPrefix: "KILO_",
		Extra: []string{"KILO_DISABLE_SESSION_INGEST=1", "KILO_TELEMETRY_LEVEL=off", "KILO_DISABLE_CODEBASE_INDEXING=1",
			"KILO_DISABLE_PRESENCE=1", "KILO_DISABLE_CLAUDE_CODE_PROMPT=1", "KILO_DISABLE_CLAUDE_CODE_SKILLS=1"}}
)

// OpenCode runs opencode (or a fork, oc) headless (run --format json) with a fresh home and XDG
// dirs, a config (OPENCODE_CONFIG) holding only an OpenAI-compatible provider on the scripted
// Chat Completions API on 127.0.0.1 and the scenario's MCP server as a local entry, its tool
// allowed, every built-in tool off; model fetching, auto-update, sharing, default plugins and
// LSP downloads off. The CLI is oc.BinEnv (default: oc.Bin on PATH). Its files land in ./AGENT/
// of the run's directory: model-requests.jsonl, events.jsonl (the CLI's own record),
// stderr.txt, opencode.json, and the home it ran with.
func OpenCode(ctx context.Context, r client.Request, oc OpenCodeCLI) (*record.Observation, error) {
	a, err := prepare(r, oc.Agent, oc.BinEnv, oc.Bin, model.Chat, "work", "home/.config", "home/.local/share", "home/.cache", "home/.local/state")
	if err != nil {
		return nil, err
	}
	defer a.close()
	bin, dir, home, m := a.bin, a.dir, a.home, a.model
	work := filepath.Join(dir, "work")

	mdl := r.Model
	if mdl == "" {
		mdl = model.ScriptedChatModel
	}
	cfgPath := filepath.Join(dir, "opencode.json")
	if err := writeJSON(cfgPath, opencodeConfig(r, oc.Schema, m.URL+"/v1", mdl)); err != nil {
		return nil, err
	}
	prompt := r.Prompt
	if prompt == "" {
		prompt = defaultPrompt(r)
	}
	args := []string{"run", "--format", "json", "--pure", "--model", opencodeProvider + "/" + mdl, "--dir", work, prompt}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = work
	e := oc.EnvPrefix
	cmd.Env = append(cliEnv(e, "OPENCODE_", "OPENAI_", "ANTHROPIC_", "XDG_"), "HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		e+"CONFIG="+cfgPath, e+"DISABLE_PROJECT_CONFIG=1", e+"DISABLE_MODELS_FETCH=1",
		e+"DISABLE_AUTOUPDATE=1", e+"DISABLE_SHARE=1", e+"DISABLE_DEFAULT_PLUGINS=1",
		e+"DISABLE_LSP_DOWNLOAD=1", e+"DISABLE_CLAUDE_CODE=1", e+"DISABLE_EXTERNAL_SKILLS=1",
		e+"DISABLE_AUTOCOMPACT=1", "NO_COLOR=1", "CI=1",
		// opencode installs @opencode-ai/plugin into every config dir it reads, in the background, and
		// waits for it before it exits: offline, npm fails at once instead of retrying a registry
		// the cell cannot reach.
		"npm_config_offline=true", "npm_config_fetch_retries=0", "npm_config_fetch_timeout=1000")
	cmd.Env = append(cmd.Env, oc.Extra...)
	run, err := runCLI(ctx, cmd, dir, "events.jsonl")
	if err != nil {
		return nil, err
	}
	reqs := m.Requests()
	stream := parseOpencodeEvents(run.stdout)
	view, called, asked := chatView(reqs, r.Tool, func(text string) bool {
		return stream.isError && strings.TrimSpace(stream.text) == strings.TrimSpace(text)
	})
	view.Called = called
	obs := &record.Observation{Client: oc.Agent, Library: oc.Package + " " + opencodeVersion(ctx, bin, oc.Package), Listed: true}
	av := &record.AgentView{ModelView: view, Answer: stream.answer, Model: asked, ModelRequests: len(reqs), Exit: run.exit,
		Files: []string{oc.Agent + "/model-requests.jsonl", oc.Agent + "/events.jsonl", oc.Agent + "/stderr.txt", oc.Agent + "/opencode.json"}}
	if stream.tool != nil {
		av.Stream = excerpt(string(stream.tool), 2000)
		agrees := view.Block != nil && strings.TrimSpace(stream.text) == strings.TrimSpace(view.Excerpt)
		av.StreamAgrees = &agrees
	}
	if stream.errText != "" {
		av.Stream = strings.TrimSpace(av.Stream + "\nerror: " + stream.errText)
	}
	obs.Agent = av
	run.report(oc.Agent, len(reqs), view.Block != nil)
	return obs, nil
}

// opencodeConfig is the whole opencode.json.
func opencodeConfig(r client.Request, schema, baseURL, mdl string) map[string]any {
	server := map[string]any{"enabled": true, "timeout": 60000}
	if r.URL != "" {
		server["type"], server["url"] = "remote", r.URL
	} else {
		server["type"], server["command"] = "local", r.Server
		// The proxy takes its server's variables from the environment it is started with.
		env := map[string]string{}
		for _, kv := range os.Environ() {
			if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "TOOLSCORE_") && !strings.HasPrefix(k, "TOOLSCORE_MODEL") {
				env[k] = v
			}
		}
		server["environment"] = env
	}
	cfg := map[string]any{
		"autoupdate": false,
		"share":      "disabled",
		"snapshot":   false,
		"model":      opencodeProvider + "/" + mdl,
		"provider": map[string]any{opencodeProvider: map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "toolscore scripted model",
			"options": map[string]any{"baseURL": baseURL, "apiKey": placeholderKey},
			"models":  map[string]any{mdl: map[string]any{"name": mdl, "tool_call": true}},
		}},
		"enabled_providers": []string{opencodeProvider},
		"mcp":               map[string]any{ServerName: server},
		"permission":        map[string]any{"*": "deny", model.SanitizedName(ServerName+"_", r.Tool): "allow"},
		"tools":             map[string]any{"*": false, ServerName + "_*": true},
		"lsp":               false, "formatter": false,
	}
	if schema != "" {
		cfg["$schema"] = schema
	}
	return cfg
}

type opencodeStream struct {
	answer, errText, text string
	isError               bool
	tool                  json.RawMessage
}

// parseOpencodeEvents reads opencode run --format json: the tool_use part of the scripted
// call (its state's output or error), the text parts (the answer), and errors.
func parseOpencodeEvents(b []byte) opencodeStream {
	var s opencodeStream
	var answer []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var line struct {
			Type string `json:"type"`
			Part struct {
				Type   string `json:"type"`
				Text   string `json:"text"`
				CallID string `json:"callID"`
				State  struct {
					Status string `json:"status"`
					Output string `json:"output"`
					Error  string `json:"error"`
				} `json:"state"`
			} `json:"part"`
			Error json.RawMessage `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		switch line.Type {
		case "tool_use":
			if line.Part.CallID == model.ChatCallID || s.tool == nil {
				s.tool = append(json.RawMessage(nil), sc.Bytes()...)
				s.isError = line.Part.State.Status == "error"
				s.text = line.Part.State.Output
				if s.isError {
					s.text = line.Part.State.Error
				}
			}
		case "text":
			answer = append(answer, line.Part.Text)
		case "error":
			s.errText = strings.TrimSpace(s.errText + " " + string(line.Error))
		}
	}
	s.answer = strings.Join(answer, "\n")
	return s
}

func opencodeVersion(ctx context.Context, bin, pkg string) string {
	if v := npmVersion(bin, pkg); v != "" {
		return v
	}
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
