package agent

import (
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
	// Its name, package, pin, image and docs are its folder's (internal/client/clients/continue-cli).
	client.Register(client.AgentFolder("continue-cli", func(ctx context.Context, r client.Request, _ string) (*record.Observation, error) {
		return ContinueCLI(ctx, r)
	}))
}

// ContinueCLI runs Continue's CLI headless (cn -p, --auto: every tool allowed) with a fresh
// home and CONTINUE_GLOBAL_DIR, and a config (--config) holding only an OpenAI provider on the
// scripted Chat Completions API on 127.0.0.1 and the scenario's MCP server; telemetry off. The
// CLI is TOOLSCORE_CONTINUE (default: cn on PATH). Its files land in ./continue-cli/ of the
// run's directory: model-requests.jsonl, stdout.txt (its answer), stderr.txt, config.yaml,
// and the home it ran with (its session record under home/.continue/sessions).
func ContinueCLI(ctx context.Context, r client.Request) (*record.Observation, error) {
	a, err := prepare(r, "continue-cli", "TOOLSCORE_CONTINUE", "cn", model.Chat, "work", "home/.continue")
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
	// JSON is YAML: the config is written as JSON under the .yaml name its loader expects.
	cfgPath := filepath.Join(dir, "config.yaml")
	if err := writeJSON(cfgPath, continueConfig(r, m.URL+"/v1", mdl)); err != nil {
		return nil, err
	}
	prompt := r.Prompt
	if prompt == "" {
		prompt = defaultPrompt(r)
	}
	cmd := exec.CommandContext(ctx, bin, "-p", prompt, "--config", cfgPath, "--auto")
	cmd.Dir = work
	cmd.Env = append(cliEnv("CONTINUE_", "OPENAI_", "ANTHROPIC_"), "HOME="+home,
		"CONTINUE_GLOBAL_DIR="+filepath.Join(home, ".continue"), "CONTINUE_CLI_ENABLE_TELEMETRY=0",
		"CONTINUE_USER_ID=toolscore", "NO_COLOR=1", "CI=1")
	run, err := runCLI(ctx, cmd, dir, "stdout.txt")
	if err != nil {
		return nil, err
	}
	reqs := m.Requests()
	sess := readContinueSession(filepath.Join(home, ".continue", "sessions"))
	// The Chat Completions API has no error flag: Continue tells the model a call failed only by
	// the text it sends instead of the result (the thrown error's message, its session marking
	// the call "errored"). An isError result is not such a failure: it is sent as any result is.
	view, called, asked := chatView(reqs, r.Tool, func(text string) bool {
		return sess.status == "errored" && strings.TrimSpace(sess.text) == strings.TrimSpace(text)
	})
	view = continueStructured(view)
	view.Called = called
	obs := &record.Observation{Client: "continue-cli", Library: "@continuedev/cli " + npmVersionOr(ctx, bin, "@continuedev/cli"), Listed: true}
	av := &record.AgentView{ModelView: view, Answer: strings.TrimSpace(string(run.stdout)), Model: asked, ModelRequests: len(reqs), Exit: run.exit,
		Files: []string{"continue-cli/model-requests.jsonl", "continue-cli/stdout.txt", "continue-cli/stderr.txt", "continue-cli/config.yaml", "continue-cli/home/.continue/sessions"}}
	if sess.raw != nil {
		av.Stream = excerpt(string(sess.raw), 2000)
		agrees := view.Block != nil && strings.TrimSpace(sess.text) == strings.TrimSpace(continueText(view))
		av.StreamAgrees = &agrees
	}
	obs.Agent = av
	run.report("continue-cli", len(reqs), view.Block != nil)
	return obs, nil
}

// continueConfig is the whole config: one model, one MCP server.
func continueConfig(r client.Request, baseURL, mdl string) map[string]any {
	server := map[string]any{"name": ServerName, "connectionTimeout": 60000}
	if r.URL != "" {
		server["type"], server["url"] = "streamable-http", r.URL
	} else {
		server["command"], server["args"] = r.Server[0], r.Server[1:]
		// The proxy takes its server's variables from the environment it is started with.
		env := map[string]string{}
		for _, kv := range os.Environ() {
			if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "TOOLSCORE_") && !strings.HasPrefix(k, "TOOLSCORE_MODEL") {
				env[k] = v
			}
		}
		server["env"] = env
	}
	return map[string]any{
		"name": "toolscore", "version": "1.0.0", "schema": "v1",
		"models": []any{map[string]any{"name": "toolscore scripted model", "provider": "openai", "model": mdl,
			"apiBase": baseURL, "apiKey": placeholderKey, "roles": []string{"chat"},
			"capabilities": []string{"tool_use"}}},
		"mcpServers": []any{server},
	}
}

// continueStructured reads the view as Continue builds it: the tool message is the JSON of the
// result's content array (`JSON.stringify(result?.content)`, src/tools/index.tsx:209 of
// 1.5.47), never structuredContent. The text blocks' text inside that JSON is what the model
// reads: the view is text unless the call failed, its excerpt those texts, and the block keeps
// the whole message as the model got it.
func continueStructured(v record.ModelView) record.ModelView {
	if v.Kind == record.ViewNone || v.IsError {
		return v
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal([]byte(continueText(v)), &blocks) != nil {
		return v
	}
	var texts []string
	for _, b := range blocks {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	v.Kind, v.Excerpt = Classify(false, texts), excerpt(strings.Join(texts, "\n"), 2000)
	return v
}

// continueText is the whole text of the tool message the view's block holds.
func continueText(v record.ModelView) string { return qwenText(v) }

type continueSession struct {
	raw          json.RawMessage
	text, status string
}

// readContinueSession finds, in the session files Continue writes, the tool call state of the
// scripted call: its status (done, errored) and the output it recorded.
func readContinueSession(dir string) continueSession {
	var s continueSession
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var sess struct {
			History []struct {
				ToolCallStates []json.RawMessage `json:"toolCallStates"`
			} `json:"history"`
		}
		if json.Unmarshal(b, &sess) != nil {
			continue
		}
		for _, h := range sess.History {
			for _, raw := range h.ToolCallStates {
				var st struct {
					ToolCallID string `json:"toolCallId"`
					Status     string `json:"status"`
					Output     []struct {
						Content string `json:"content"`
					} `json:"output"`
				}
				if json.Unmarshal(raw, &st) != nil || st.ToolCallID != model.ChatCallID {
					continue
				}
				s.raw, s.status = raw, st.Status
				var parts []string
				for _, o := range st.Output {
					parts = append(parts, o.Content)
				}
				s.text = strings.Join(parts, "\n")
			}
		}
	}
	return s
}

// npmVersionOr is the version of pkg that bin belongs to, else what bin --version prints.
func npmVersionOr(ctx context.Context, bin, pkg string) string {
	if v := npmVersion(bin, pkg); v != "" {
		return v
	}
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
