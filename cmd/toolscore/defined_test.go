package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/record"
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
	var obs record.Observation
	if code != 0 || json.Unmarshal([]byte(stdout), &obs) != nil || obs.Agent == nil {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	if obs.Client != "liar" || obs.Agent.Answer != "40718.77" || obs.Agent.ModelView.Kind != record.ViewNone || obs.Agent.ModelView.Excerpt != "" || obs.Agent.ModelRequests != 0 {
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

// definedWant is what each cell of testdata/defined/defined.yaml must count, one run each, as
// the adapters' code decides it: the outcome, and for the agent the model's view and answer.
//
//   - acme-harness (harness/sdk.py) lists the tools first; with the schema hidden it has none
//     and returns the result as it came (sdk.py:49, passed); published, it checks
//     structuredContent (sdk.py:45) and raises SchemaError (sdk.py:47, threw) for type-swap
//     (balance_minor a string), empty (no structuredContent) and wrong-container (an array).
//   - acme-agent (harness/agent.mjs) shows the model the JSON of structuredContent whatever the
//     schema (agent.mjs, shown()): structured, and the scripted model's answer echoes
//     4071877, the truth, for clean, type-swap (the same digits as a string) and
//     wrong-container (the record inside an array); empty has neither structuredContent nor
//     text, so the model is shown nothing (none) and answers without a value, flagged.
//   - raw passes everything, the control.
func definedWant(client, fault, schema string) (outcome, view, answer string) {
	switch client {
	case "acme-harness":
		if schema == "published" && fault != "clean" {
			return "threw", "", ""
		}
	case "acme-agent":
		if fault == "empty" {
			return "passed", "none", "no-value"
		}
		return "passed", "structured", "truth"
	}
	return "passed", "", ""
}

// TestDefinedAdapterLinesCited holds definedWant's citations of harness/sdk.py to its lines.
func TestDefinedAdapterLinesCited(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(definedDir, "harness", "sdk.py"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for line, want := range map[int]string{
		44: "if schema is not None and not result.get(\"isError\"):",
		45: "problem = check(result, schema)",
		47: `out["raised"] = {"class": "SchemaError", "message": problem}`,
		49: `out["returned"] = result`,
	} {
		if !strings.Contains(lines[line-1], want) {
			t.Errorf("harness/sdk.py:%d is %q; definedWant cites it as %q", line, lines[line-1], want)
		}
	}
}

// checkDefinedCells checks every cell of a sweep of defined.yaml against definedWant.
func checkDefinedCells(t *testing.T, out string) {
	t.Helper()
	res := readResultsDir(t, out)
	if len(res.Unavailable) > 0 || len(res.Cells) != 3*4*2 {
		t.Fatalf("%d cells, unavailable %v; want 24 and none", len(res.Cells), res.Unavailable)
	}
	for _, c := range res.Cells {
		outcome, view, answer := definedWant(c.Client, c.Fault, c.Schema)
		if c.Runs != 1 || c.Outcome[outcome] != 1 {
			t.Errorf("%s: %s, want %s 1/1 (evidence: %v)", c.Coordinates(), c.Counts(), outcome, c.Examples)
		}
		if view != "" && (c.ModelView[view] != 1 || c.Answer[answer] != 1) {
			t.Errorf("%s: the model saw %v and answered %v; want %s and %s", c.Coordinates(), c.ModelView, c.Answer, view, answer)
		}
	}
	for client, library := range map[string]string{"acme-harness": "acme-harness 0.1.0", "acme-agent": "acme-agent 0.1.0"} {
		for _, c := range res.Cells {
			if c.Client == client && c.Library != library {
				t.Errorf("%s ran %q, want %q", c.Coordinates(), c.Library, library)
			}
		}
	}
}

// TestDefinedClientsLocal sweeps the manifest's own clients on the local backend: each installed
// into the install cache from the manifest's folder (the Python one's install step leaves the
// file it checks for, else it exits), each cell counting what the adapter's code decides.
func TestDefinedClientsLocal(t *testing.T) {
	needRuntimes(t)
	t.Setenv("TOOLSCORE_CACHE", t.TempDir())
	out := t.TempDir()
	_, stderr, code := toolscore(t, ".", "run", filepath.Join(definedDir, "defined.yaml"), "--backend", "local", "--out", out)
	if code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	for _, want := range []string{"installing acme-harness into ", "installing acme-agent into "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the log does not say %q:\n%s", want, stderr)
		}
	}
	checkDefinedCells(t, out)
	// repro takes its runs as any client's: the agent's excerpt carries the prompt it was given.
	repro := filepath.Join(t.TempDir(), "repro")
	if _, stderr, code := toolscore(t, ".", "repro", out, "acme-agent × empty × published", "--scenario", filepath.Join(definedDir, "defined.yaml"), "--out", repro); code != 0 {
		t.Fatalf("repro exited %d: %s", code, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(repro, "cell.json")); err != nil || !strings.Contains(string(b), `"prompt": "What is the balance of account ACC-4471?"`) {
		t.Errorf("the repro's cell.json lacks the agent's prompt (%v):\n%s", err, b)
	}
}

// TestDefinedClientsOnDocker sweeps the same manifest on the docker backend: each defined
// client in a cell image built from its runtime's base with the manifest's folder at
// /opt/client and its install step run there, with the same counts as on the local backend.
func TestDefinedClientsOnDocker(t *testing.T) {
	engine(t)
	out := t.TempDir()
	code, _, stderr := runStatic(t, filepath.Join(definedDir, "defined.yaml"), "--backend", "docker", "--parallel", "2", "--out", out)
	if code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	checkDefinedCells(t, out)
}

// TestDefinedClientsBadInput: a defined client the manifest gets wrong stops the sweep with exit
// 2 and the manifest's file:line:col, before anything runs: a name a built-in takes, a command
// file that is not there, an unknown runtime (at load), and an install step that fails (when
// the sweep installs, with the step's last lines of output).
func TestDefinedClientsBadInput(t *testing.T) {
	t.Setenv("TOOLSCORE_CACHE", t.TempDir())
	head := "name: bad\nserver: {builtin: ledger}\ntool: get_account_balance\narguments: {account_id: ACC-4471}\nfaults: [clean]\nschema_modes: [hidden]\nclients:\n"
	for _, c := range []struct {
		name, clients, want string
	}{
		{"shadows a built-in", "  - name: raw\n    runtime: python\n    command: [python3, ./adapter.sh]\n",
			"m.yaml:8:11: clients[0].name: shadows the built-in client raw; pick another name"},
		{"command file missing", "  - name: acme\n    runtime: python\n    command: [python3, harness/nope.py]\n",
			"m.yaml:10:24: clients[0].command[1]: harness/nope.py does not exist in the manifest's folder (a path in command is from there)"},
		{"unknown runtime", "  - name: acme\n    runtime: ruby\n    command: [ruby, ./adapter.sh]\n",
			`m.yaml:9:14: clients[0].runtime: unknown runtime "ruby" (known: node, python, binary)`},
		{"install fails", "  - name: acme\n    runtime: binary\n    command: [./adapter.sh]\n    install: [echo ok, 'echo fetching the package; echo no such package >&2; exit 3']\n",
			"m.yaml:11:5: clients[0].install: installing acme: install step \"echo fetching the package; echo no such package >&2; exit 3\" failed: exit status 3; its last output:\nfetching the package\nno such package\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "adapter.sh"), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "m.yaml"), []byte(head+c.clients), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			_, stderr, code := toolscore(t, dir, "run", "m.yaml", "--backend", "local", "--out", out)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant 2 and:\n%s", code, stderr, c.want)
			}
			if _, err := os.Stat(filepath.Join(out, "runs.jsonl")); err == nil {
				t.Errorf("a run was recorded")
			}
		})
	}
}

// TestDefinedClientInstallFailsOnDocker: on docker a defined client's install steps run in the
// build of its cell image; one that fails stops the sweep the same way, exit 2 at the
// manifest's install with the step's last lines of output, nothing run.
func TestDefinedClientInstallFailsOnDocker(t *testing.T) {
	engine(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "adapter.sh"), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := "name: bad\nserver: {builtin: ledger}\ntool: get_account_balance\narguments: {account_id: ACC-4471}\nfaults: [clean]\nschema_modes: [hidden]\nclients:\n" +
		"  - name: acme\n    runtime: python\n    command: [sh, ./adapter.sh]\n    install: [echo ok, 'echo fetching the package; echo no such package >&2; exit 3']\n"
	path := filepath.Join(dir, "m.yaml")
	if err := os.WriteFile(path, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, _, stderr := runStatic(t, path, "--backend", "docker", "--out", out)
	want := path + `:11:5: clients[0].install: installing acme: install step "echo fetching the package; echo no such package >&2; exit 3" failed: `
	if code != 2 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "\nfetching the package") || !strings.Contains(stderr, "\nno such package") {
		t.Errorf("exit %d, stderr:\n%s\nwant 2 and:\n%s... with the step's output", code, stderr, want)
	}
	if _, err := os.Stat(filepath.Join(out, "runs.jsonl")); err == nil {
		t.Errorf("a run was recorded")
	}
}

// TestDefinedClientsListed: toolscore clients lists a manifest's own clients as its own, with
// their adapter's command, installed on the local backend by the first sweep.
func TestDefinedClientsListed(t *testing.T) {
	needRuntimes(t)
	t.Setenv("TOOLSCORE_CACHE", t.TempDir())
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "no-docker.sock"))
	stdout, stderr, code := toolscore(t, ".", "clients", filepath.Join(definedDir, "defined.yaml"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		`(?m)^acme-harness\s+manifest\s+SDK client\s+its own: python3 \./harness/sdk\.py\s+yes \(the first sweep installs it\)`,
		`(?m)^acme-agent\s+manifest\s+agent\s+its own: node \./harness/agent\.mjs\s+yes \(the first sweep installs it\)`,
	} {
		if !regexp.MustCompile(want).MatchString(stdout) {
			t.Errorf("toolscore clients does not match %s:\n%s", want, stdout)
		}
	}
}
