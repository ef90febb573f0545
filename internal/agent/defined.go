package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/model"
	"github.com/toolscore/toolscore/record"
)

// DefinedName is how the runner starts an agent a manifest defines: toolscore agent defined --
// CMD... (client.DefinedAgentArgv), so the agent gets toolscore's scripted model.
const DefinedName = "defined"

// Defined runs the adapter argv of an agent a manifest defines against the scripted Anthropic
// model on 127.0.0.1, whose base URL it gets as TOOLSCORE_MODEL_URL beside the contract's
// variables. The observation is the adapter's client, library and answer, with what the model
// was shown read from the model's own requests (not the adapter's word). Its files land in
// ./defined/ of the run's directory: model-requests.jsonl, stdout.txt and stderr.txt. An
// adapter that exits non-zero or prints no observation is an error (the run is crashed), its
// last lines of stderr on stderr.
func Defined(ctx context.Context, r client.Request, argv []string) (*record.Observation, error) {
	if len(argv) == 0 {
		return nil, errors.New("no adapter command after --")
	}
	a, err := prepare(r, DefinedName, "", argv[0], model.Anthropic)
	if err != nil {
		return nil, err
	}
	defer a.close()
	prompt := r.Prompt
	if prompt == "" {
		prompt = defaultPrompt(r)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = a.dir
	for _, kv := range os.Environ() {
		// The adapter's model is the scripted one, whatever else the environment says.
		if k, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(k, "TOOLSCORE_MODEL") && k != client.EnvPrompt {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, client.EnvModelURL+"="+a.model.URL, client.EnvPrompt+"="+prompt)
	run, err := runCLI(ctx, cmd, a.dir, "stdout.txt")
	if err != nil {
		return nil, err
	}
	reqs := a.model.Requests()
	run.report(DefinedName, len(reqs), true)
	if run.exit != 0 {
		return nil, fmt.Errorf("the agent's adapter exited %d", run.exit)
	}
	obs, err := client.ReadObservation(filepath.Join(a.dir, "stdout.txt"), nil)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s\n", lastLines(run.stderr, 10))
		return nil, err
	}
	if obs.Agent == nil {
		return nil, errors.New(`the agent's adapter printed no "agent" (with its "answer"): its client is declared agent: true, but it printed an SDK client's observation`)
	}
	exposed := calledName(reqs, r.Tool)
	view := anthropicView(reqs, exposed)
	if view.Block != nil {
		view.Called = exposed
	}
	obs.Agent = &record.AgentView{ModelView: view, Answer: obs.Agent.Answer, Model: messagesModel(reqs), ModelRequests: len(reqs),
		Files: []string{"defined/model-requests.jsonl", "defined/stdout.txt", "defined/stderr.txt"}}
	return obs, nil
}

// calledName is the name the adapter exposed tool under, as the model's requests show it: the
// name of the scripted call it sent back, else the offered tool that is tool or ends __tool.
func calledName(reqs []model.Request, tool string) string {
	var offered []string
	for _, q := range reqs {
		var mr model.MessagesRequest
		if !strings.HasPrefix(q.Path, "/v1/messages") || strings.HasPrefix(q.Path, "/v1/messages/") || json.Unmarshal(q.Body, &mr) != nil {
			continue
		}
		for _, m := range mr.Messages {
			for _, b := range m.Blocks() {
				if b.Type == "tool_use" && b.ID == model.CallID && b.Name != "" {
					return b.Name
				}
			}
		}
		callable, _ := mr.ToolNames()
		offered = append(offered, callable...)
	}
	for _, n := range offered {
		if n == tool {
			return n
		}
	}
	for _, n := range offered {
		if strings.HasSuffix(n, "__"+tool) || strings.HasSuffix(n, "."+tool) || strings.HasSuffix(n, "/"+tool) {
			return n
		}
	}
	return tool
}

// messagesModel is the model the adapter asked for in its first Messages request.
func messagesModel(reqs []model.Request) string {
	for _, q := range reqs {
		var mr model.MessagesRequest
		if strings.HasPrefix(q.Path, "/v1/messages") && !strings.HasPrefix(q.Path, "/v1/messages/") && json.Unmarshal(q.Body, &mr) == nil {
			return mr.Model
		}
	}
	return ""
}
