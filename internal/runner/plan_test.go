package runner

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/fault"
	_ "github.com/toolscore/toolscore/internal/agent" // the agents are clients of the ledger scenario
	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/backend/docker"
	"github.com/toolscore/toolscore/internal/backend/local"
	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/scenarios"
)

var update = flag.Bool("update", false, "rewrite testdata/plan.golden")

// TestPlanGolden: every job of a few sweeps (cells of the embedded ledger scenario on both
// backends, sharded with an unavailable client; a command server with its own environment, an
// output schema, a real model and every fault setting) runs the command and environment, with
// the proxy's command line inside, and gets the input files that the runner gave it before the
// plan was a function of its own (testdata/plan.golden was recorded from that runner's
// backend.Spec). The http cells that follow (the ledger, before and once the proxy listens; a
// command server serving HTTP; a url server with its network and Authorization) run toolscore
// cell serving the proxy, with no server command for the adapter.
func TestPlanGolden(t *testing.T) {
	t.Setenv("PLAN_TEST_TOKEN", "tok-123")
	t.Setenv("PLAN_TEST_KEY", "key-456")
	known := scenario.Known{Faults: fault.Names(), Clients: client.Names(), Builtins: []string{"ledger"}}
	ledger, err := scenario.Load(scenarios.LedgerPath, scenarios.Ledger, known)
	if err != nil {
		t.Fatal(err)
	}
	if err := ledger.Filter([]string{"raw", "ts-sdk/call", "claude-code"}, []string{"clean", "corrupt-plausible", "latency"}, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	ledger.Runs = 2
	text, err := os.ReadFile("testdata/plan-command.yaml")
	if err != nil {
		t.Fatal(err)
	}
	command, err := scenario.Load("testdata/plan-command.yaml", text, known)
	if err != nil {
		t.Fatal(err)
	}
	serverEnv, _, err := command.ServerEnv(os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	load := func(path string) *scenario.Scenario {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := scenario.Load(path, text, known)
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	// The embedded ledger on http: the proxy listening, and before it did, the ledger alone.
	ledgerHTTP, err := scenario.Load(scenarios.LedgerPath, scenarios.Ledger, known)
	if err != nil {
		t.Fatal(err)
	}
	if err := ledgerHTTP.Filter([]string{"raw", "claude-code"}, []string{"corrupt"}, []string{"hidden"}, []string{"2026-07-28"}, nil); err != nil {
		t.Fatal(err)
	}
	ledgerHTTP.Transports, ledgerHTTP.Runs = []scenario.Transport{scenario.TransportHTTP}, 1
	httpCommand, remote := load("testdata/plan-http.yaml"), load("testdata/plan-url.yaml")
	httpEnv, _, err := httpCommand.ServerEnv(os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PLAN_TEST_AUTH", "Bearer auth-789")
	auth, err := remote.Auth(os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	onHost := local.Backend{Binary: "/usr/local/bin/toolscore"}
	var got []string
	for _, c := range []struct {
		name string
		o    Options
	}{
		{"ledger docker", Options{Plan: Plan{Scenario: ledger}, Backend: &docker.Backend{}}},
		{"ledger local shard 2/3, ts-sdk unavailable", Options{
			Plan:    Plan{Scenario: ledger, Shard: 2, Shards: 3, Unavailable: map[string]string{"ts-sdk/call": "no image"}},
			Backend: onHost,
		}},
		{"command docker", Options{Plan: Plan{Scenario: command}, Backend: &docker.Backend{}, ServerEnv: serverEnv}},
		{"command local", Options{Plan: Plan{Scenario: command}, Backend: onHost, ServerEnv: serverEnv}},
		{"ledger http docker", Options{Plan: Plan{Scenario: ledgerHTTP}, Backend: &docker.Backend{}}},
		{"http command local", Options{Plan: Plan{Scenario: httpCommand}, Backend: onHost, ServerEnv: httpEnv}},
		{"url docker", Options{Plan: Plan{Scenario: remote}, Backend: &docker.Backend{}, Auth: auth}},
	} {
		got = append(got, "# "+c.name)
		out := t.TempDir()
		for j := range c.o.Jobs() {
			dir := filepath.Join(out, j.Dir())
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := c.o.WriteInputs(dir); err != nil {
				t.Fatal(err)
			}
			s, _ := c.o.Spec(j, dir)
			got = append(got, planLine(t, out, s))
		}
	}
	if *update {
		if err := os.WriteFile("testdata/plan.golden", []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile("testdata/plan.golden")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	for i := range max(len(got), len(want)) {
		if i >= len(got) || i >= len(want) || got[i] != want[i] {
			g, w := "(none)", "(none)"
			if i < len(got) {
				g = got[i]
			}
			if i < len(want) {
				w = want[i]
			}
			t.Fatalf("job line %d of %d:\n got  %s\n want %s", i+1, len(want), g, w)
		}
	}
}

// planLine is one job as the golden file holds it: its spec, with the output directory written
// $OUT, and the names of the files in its directory when it starts.
func planLine(t *testing.T, out string, s backend.Spec) string {
	rel, err := filepath.Rel(out, s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	env := make([]string, len(s.Env))
	for i, kv := range s.Env {
		env[i] = strings.ReplaceAll(kv, out, "$OUT")
	}
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		files = append(files, e.Name())
	}
	command := make([]string, len(s.Command))
	for i, a := range s.Command {
		command[i] = strings.ReplaceAll(a, out, "$OUT")
	}
	line, err := json.Marshal(map[string]any{"dir": rel, "cell": s.Cell, "client": s.Client, "run": s.Run, "command": command,
		"env": env, "timeout": s.Timeout.String(), "network": s.Network, "files": files})
	if err != nil {
		t.Fatal(err)
	}
	return string(line)
}
