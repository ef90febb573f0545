package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/client"
)

// definedDir holds the manifest of clients of its own and their adapters, written for these
// tests as a user would write them: harness/sdk.py (Python, MCP by hand) and harness/agent.mjs
// (Node, an agent against the scripted model).
var definedDir = filepath.Join("testdata", "defined")

func needRuntimes(t *testing.T) {
	t.Helper()
	for _, p := range []string{"python3", "node"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not on PATH: the test's adapters need it", p)
		}
	}
}

// copyHarness copies the test's adapters into a folder of their own, with the file their
// install step would leave, as an install does.
func copyHarness(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(definedDir)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "installed.txt"), []byte("ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestDefinedAgentCheckClient runs the Node agent as a run starts a manifest's own agent
// (toolscore agent defined -- node harness/agent.mjs) under check-client: the scripted model
// reached at TOOLSCORE_MODEL_URL calls the tool it offered, the adapter shows the model the JSON
// of structuredContent (harness/agent.mjs, shown()), and the model's answer carries the value.
func TestDefinedAgentCheckClient(t *testing.T) {
	needRuntimes(t)
	dir := copyHarness(t)
	stdout, stderr, code := toolscore(t, dir, "check-client", "--agent", "--", os.Args[0], "agent", "defined", "--", "node", "harness/agent.mjs")
	want := "clean, hidden: the model got structured, its answer truth, graded passed (client acme-agent, library acme-agent 0.1.0)\n" +
		"type-swap, published: the model got structured, its answer truth, graded passed (client acme-agent, library acme-agent 0.1.0)\n" +
		"the client contract holds\n"
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stdout:\n%s\nwant:\n%s\nstderr:\n%s", code, stdout, want, stderr)
	}
}

// TestDefinedAgentViewIsToolscores: what the model was shown is read from the model's requests,
// never taken from the adapter: one that claims a structured view without asking the model
// anything is seen to have shown it nothing. An adapter that exits non-zero, or prints no
// observation, prints nothing on stdout and fails (the run is crashed), its stderr passed on.
func TestDefinedAgentViewIsToolscores(t *testing.T) {
	env := []string{client.EnvServer + `=["true"]`, client.EnvTool + "=get_account_balance"}
	run := func(script string) (string, string, int) {
		cmd := exec.Command(os.Args[0], "agent", "defined", "--", "sh", "-c", script)
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), env...)
		var o, e strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		return o.String(), e.String(), exitCode(err)
	}
	stdout, stderr, code := run(`echo '{"client":"liar","library":"liar 1","agent":{"answer":"40718.77","model_view":{"kind":"structured","excerpt":"{}"}}}'`)
	var obs client.Observation
	if code != 0 || json.Unmarshal([]byte(stdout), &obs) != nil || obs.Agent == nil {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	if obs.Client != "liar" || obs.Agent.Answer != "40718.77" || obs.Agent.ModelView.Kind != client.ViewNone || obs.Agent.ModelView.Excerpt != "" || obs.Agent.ModelRequests != 0 {
		t.Errorf("observation %+v, agent %+v: want the liar's answer with the model's own view (none, no requests)", obs, obs.Agent)
	}
	for _, c := range []struct{ script, stderr string }{
		{"echo cannot reach the model >&2; exit 3", "cannot reach the model"},
		{"echo no line >&2", "no line"},
	} {
		stdout, stderr, code := run(c.script)
		if code == 0 || stdout != "" || !strings.Contains(stderr, c.stderr) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want a failure, nothing on stdout, %q on stderr", c.script, code, stdout, stderr, c.stderr)
		}
	}
}

// TestDefinedClientBroken: a copy of the Python adapter that raises without a message gets
// check-client's precise complaint on the run where it raises (type-swap published: its schema
// check fails), and holds on the clean run.
func TestDefinedClientBroken(t *testing.T) {
	needRuntimes(t)
	dir := copyHarness(t)
	adapter := filepath.Join(dir, "harness", "sdk.py")
	b, err := os.ReadFile(adapter)
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(b), `{"class": "SchemaError", "message": problem}`, `{"class": "SchemaError"}`, 1)
	if broken == string(b) {
		t.Fatal("the adapter no longer raises SchemaError with a message: update the test")
	}
	if err := os.WriteFile(adapter, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := toolscore(t, dir, "check-client", "--", "python3", "harness/sdk.py")
	want := "clean, hidden: returned, graded passed (client acme-harness, library acme-harness 0.1.0)\n" +
		`type-swap, published: "raised" without "message"` + "\n" +
		"the client contract does not hold\n"
	if code != 1 || stdout != want {
		t.Errorf("exit %d, stdout:\n%s\nwant:\n%s\nstderr:\n%s", code, stdout, want, stderr)
	}
}
