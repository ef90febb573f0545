package grade

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolscore/toolscore/record"
)

// TestNotReady: an agent that never called the tool and never offered it to its model, having
// asked the model before the server listed its tools (codex under load, while its MCP server
// still started), is not-ready: the server's unreadiness, not the client's. Asked after the
// listing, or with the tool offered, it is the client's own no-call.
func TestNotReady(t *testing.T) {
	listed := time.Unix(1, 0) // transcript() answers tools/list at 1 s
	for _, c := range []struct {
		name    string
		asked   []time.Time // the agent's requests to its model, in order
		offered bool
		calls   int // entries of transcript() kept: 2 lists, 0 lists nothing
		want    record.Outcome
	}{
		{"asked before the listing", at(listed.Add(-700 * time.Millisecond)), false, 2, record.NotReady},
		{"asked twice, both before the listing", at(listed.Add(-900*time.Millisecond), listed.Add(-700*time.Millisecond)), false, 2, record.NotReady},
		{"asked with the server never listing", at(listed), false, 0, record.NotReady},
		{"asked after the listing", at(listed.Add(time.Second)), false, 2, record.NoCall},
		// opencode asks its model for a title, with no tool, before its MCP servers are up, then
		// asks again once they are: the second request is where the tool could have been.
		{"a title first, then asked after the listing", at(listed.Add(-time.Second), listed.Add(time.Second)), false, 2, record.NoCall},
		{"offered the tool, did not call it", at(listed.Add(-time.Second)), true, 2, record.NoCall},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, "codex"), 0o755)
			var reqs []byte
			for _, t := range c.asked {
				// A line as model.Request writes it: its time first.
				req, _ := json.Marshal(struct {
					Time         time.Time `json:"time"`
					Method, Path string
				}{t, "POST", "/v1/responses"})
				reqs = append(append(reqs, req...), '\n')
			}
			os.WriteFile(filepath.Join(dir, "codex", "model-requests.jsonl"), reqs, 0o644)
			view := record.ModelView{Kind: record.ViewNone}
			if c.offered {
				view.ToolDef = json.RawMessage(`{"name":"get_account_balance"}`)
			}
			obs, _ := json.Marshal(record.Observation{Client: "codex", Library: "@openai/codex 0.1", Listed: true,
				Agent: &record.AgentView{ModelView: view, Answer: "I cannot see that tool.", Files: []string{"codex/model-requests.jsonl", "codex/events.jsonl"}}})
			stdout := filepath.Join(dir, "stdout")
			os.WriteFile(stdout, append(obs, '\n'), 0o644)
			tr := entries("", nil, false)[:c.calls]
			g := Agent(Run{Stdout: stdout}, tr, []string{"40718.77"})
			if g.Outcome != c.want {
				t.Errorf("graded %s (%s); want %s", g.Outcome, g.Evidence, c.want)
			}
			if c.want == record.NotReady && g.Evidence == "" {
				t.Error("no evidence")
			}
		})
	}
}

func at(t ...time.Time) []time.Time { return t }
