package runner_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/internal/backend/local"
	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/runner"
	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/sweep"
	"github.com/toolscore/toolscore/tally"
)

// TestMain re-enters: the runs of the tests here start this test binary on the local backend
// as toolscore (its proxy, its client adapters, its ledger server), which sweep.Reenter runs,
// so the runner is tested with real processes and no toolscore binary built.
func TestMain(m *testing.M) {
	sweep.Reenter()
	// A race-instrumented process sleeps 1 s at exit by default; every run starts three.
	os.Setenv("GORACE", "atexit_sleep_ms=0 "+os.Getenv("GORACE"))
	os.Exit(m.Run())
}

// TestHTTPTransportLocal runs the built-in Go clients on both transports through the real proxy
// on the local backend (the command line the runner's http source gives the proxy, once it listens): on http
// each client's outcome is its outcome on stdio, every http run has a transcript whose records
// the graders read as on stdio, and the keys tell the transports apart.
func TestHTTPTransportLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("60 cells of real processes (about 2 minutes under load): not with -short")
	}
	self, _ := os.Executable()
	sc, err := scenario.Load("http.yaml", []byte(`name: http
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [clean, corrupt, rpc-error, wrong-container, truncate]
schema_modes: [published]
protocols: [2026-07-28, 2025-11-25]
transports: [stdio, http]
clients: [raw, go-sdk/list-then-call, mcp-go/call]
runs: 1
`), scenario.Known{Faults: fault.Names(), Clients: client.Names(), Builtins: sweep.Builtins, HTTPBuiltins: []string{"ledger"}})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	res, err := runner.Run(context.Background(), runner.Options{Plan: runner.Plan{Scenario: sc}, Backend: local.Backend{Binary: self}, Out: out, Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	stdio := map[string]string{}
	for _, c := range res.Cells {
		if c.Transport == "stdio" {
			stdio[c.Client+"|"+c.Fault+"|"+c.Protocol] = c.Counts()
		}
	}
	if len(res.Cells) != 2*2*5*3 || len(stdio) != 2*5*3 {
		t.Fatalf("%d cells, %d on stdio; want 60 and 30", len(res.Cells), len(stdio))
	}
	for _, c := range res.Cells {
		if c.Transport != "http" {
			continue
		}
		if !strings.HasPrefix(c.Key(), c.Client+"|"+c.Fault+"|published|http") {
			t.Errorf("http cell keyed %s", c.Key())
		}
		if want := stdio[c.Client+"|"+c.Fault+"|"+c.Protocol]; c.Counts() != want {
			t.Errorf("%s: %s on http, %s on stdio (evidence: %v)", c.Coordinates(), c.Counts(), want, c.Examples)
		}
		if len(c.Negotiated) != 1 || c.Negotiated["none"] != 0 {
			t.Errorf("%s: negotiated %v, want the handshake recorded", c.Coordinates(), c.Negotiated)
		}
		for _, ex := range c.Examples {
			tee, err := os.ReadFile(filepath.Join(out, ex.Tee))
			if err != nil || !strings.Contains(string(tee), `"event":"server-exit"`) {
				t.Errorf("%s: transcript %s without the server's exit (%v)", c.Coordinates(), ex.Tee, err)
			}
		}
	}
}

// TestJobsMadeLazily: a sweep of a billion runs, interrupted after its first, allocates no more
// than a few runs' worth: the runs are made as workers free up, never listed up front (a list of
// a billion jobs would take hundreds of GB).
func TestJobsMadeLazily(t *testing.T) {
	sc, err := scenario.Load("lazy.yaml", []byte("name: lazy\nserver: {builtin: ledger}\ntool: get_account_balance\narguments: {account_id: ACC-4471}\nfaults: [clean]\nschema_modes: [hidden]\nclients: [raw]\n"), scenario.Known{})
	if err != nil {
		t.Fatal(err)
	}
	sc.Runs = 1_000_000_000
	self, _ := os.Executable()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := runner.Run(ctx, runner.Options{
		Plan:     runner.Plan{Scenario: sc},
		Backend:  local.Backend{Binary: self},
		Out:      t.TempDir(),
		Parallel: 2,
		Progress: cancelAfterFirst{cancel},
	})
	runtime.ReadMemStats(&after)
	if err != nil || !res.Interrupted || res.Cells[0].Runs < 1 || res.Cells[0].Planned != sc.Runs {
		t.Fatalf("err %v, interrupted %v, cell %+v", err, res.Interrupted, res.Cells[0])
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("an interrupted sweep of %d planned runs (%d finished) allocated %d MiB", sc.Runs, res.Cells[0].Runs, alloc>>20)
	} else {
		t.Logf("%d runs finished, %d KiB allocated", res.Cells[0].Runs, alloc>>10)
	}
}

// cancelAfterFirst interrupts the sweep as its first run ends.
type cancelAfterFirst struct{ cancel context.CancelFunc }

func (cancelAfterFirst) Started(int, int)                                                {}
func (cancelAfterFirst) RunStarted(scenario.Cell, int)                                   {}
func (p cancelAfterFirst) RunDone(scenario.Cell, int, record.Outcome, bool, *tally.Cell) { p.cancel() }
func (cancelAfterFirst) AloneStarted(int, time.Duration)                                 {}
func (cancelAfterFirst) AloneDone(*tally.Cell, record.Outcome)                           {}

// TestToolFaultedAlone: a session through a two-tool cell's own proxy (the command the run plan
// gives it) that calls both tools gets the other tool's answer byte for byte as the server sent
// it, and only the cell's tool's answer faulted.
func TestToolFaultedAlone(t *testing.T) {
	manifest := `name: two
server: {builtin: ledger}
tools:
  - {name: get_account_balance, arguments: {account_id: ACC-4471}}
  - list_accounts
faults: [corrupt]
schema_modes: [as-is]
clients: [go-sdk/call]
runs: 1
`
	sc, err := scenario.Load("two.yaml", []byte(manifest), scenario.Known{Faults: fault.Names(), FaultOptions: fault.Check})
	if err != nil {
		t.Fatal(err)
	}
	o := runner.Options{Plan: runner.Plan{Scenario: sc}, Backend: local.Backend{Binary: os.Args[0]}}
	direct := calls(t, []string{os.Args[0], "ledger"})
	for j := range o.Jobs() {
		dir := t.TempDir()
		_, req := o.Spec(j, dir)
		got := calls(t, req.Server)
		for tool, answer := range got {
			if (tool == j.Cell.Tool.Name) == (answer == direct[tool]) {
				t.Errorf("cell of %s: %s answered %s, directly %s", j.Cell.Tool.Name, tool, answer, direct[tool])
			}
		}
		tee, err := transcript.Read(filepath.Join(dir, "tee.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		faulted := 0
		for _, e := range tee {
			if e.Dir == transcript.ServerToClient && e.Fault == "corrupt" {
				faulted++
				if strings.Contains(string(e.Wire), `"accounts"`) != (j.Cell.Tool.Name == "list_accounts") {
					t.Errorf("cell of %s: the fault was applied to %s", j.Cell.Tool.Name, e.Wire)
				}
			}
		}
		if faulted != 1 {
			t.Errorf("cell of %s: %d answers faulted; want 1", j.Cell.Tool.Name, faulted)
		}
	}
}

// calls starts command as an MCP server, calls both ledger tools with the go-sdk client and
// returns each tool's result as JSON.
func calls(t *testing.T, command []string) map[string]string {
	t.Helper()
	ctx := context.Background()
	cmd := exec.Command(command[0], command[1:]...)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	out := map[string]string{}
	for tool, args := range map[string]map[string]any{"get_account_balance": {"account_id": "ACC-4471"}, "list_accounts": {}} {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(r)
		out[tool] = string(b)
	}
	return out
}
