package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/tally"
)

// TestLedgerScenario runs the embedded balance study with the three built-in clients on the
// local backend, through real proxies around real ledgers, and checks every count.
//
// What running them showed: the bare client passes on every fault's bytes (it reports the wire,
// so only rpc-error is not "passed"); go-sdk v1.8.0 and mcp-go v1.2.1 do the same on both
// paths: neither validates a tools/call result, with or without a published outputSchema, and
// both raise the JSON-RPC error. So for the Go clients publishing the schema changes nothing;
// the TypeScript and Python SDKs (docker_test.go) are where the columns differ.
func TestLedgerScenario(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command(os.Args[0], "run", "--backend", "local", "--clients", "raw,go-sdk/call,go-sdk/list-then-call,mcp-go/call,mcp-go/list-then-call", "--out", out, "--parallel", "2")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if code := exitCode(err); code != 0 {
		t.Fatalf("toolscore run exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	var res tally.Results
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	// The five Go clients, narrowed to (the others run from the install cache, proven against
	// docker in TestDockerMatchesLocalInstalled).
	if res.Scenario != "ledger balance" || len(res.Cells) != 5*11*2*2 || len(res.Unavailable) != 0 {
		t.Fatalf("scenario %q with %d cells and %d unavailable clients, want ledger balance with 220 and 0", res.Scenario, len(res.Cells), len(res.Unavailable))
	}
	for _, c := range res.Cells {
		want := "passed"
		if c.Fault == "rpc-error" {
			want = "rpc-error"
		}
		if c.Runs != 3 || c.Outcome[want] != 3 {
			t.Errorf("%s: %s, want %s 3/3", c.Coordinates(), c.Counts(), want)
		}
		// The Go SDKs open a 2026-07-28 session where the server offers one and fall back to
		// initialize 2025-11-25 where it does not; the bare client always sends initialize.
		negotiated := c.Protocol
		if c.Client == "raw" {
			negotiated = "2025-11-25"
		}
		if c.Negotiated[negotiated] != 3 {
			t.Errorf("%s: negotiated %v, want %s 3/3", c.Coordinates(), c.Negotiated, negotiated)
		}
		if c.Transport != "stdio" || c.Library == "" {
			t.Errorf("%s × %s × %s: transport %q library %q", c.Client, c.Fault, c.Schema, c.Transport, c.Library)
		}
	}
	for _, e := range res.Expectations {
		if !e.Held {
			t.Errorf("expect at line %d did not hold: %v", e.Line, e.Misses)
		}
	}
	// runs.jsonl has every run, each with its transcript on disk.
	f, err := os.Open(filepath.Join(out, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r struct {
			Outcome string `json:"outcome"`
			Wire    string `json:"wire"`
			Tee     string `json:"tee"`
			Fault   string `json:"fault"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(out, r.Tee)); err != nil || r.Wire == "" {
			t.Errorf("run of %s: transcript %v, wire %q", r.Fault, err, r.Wire)
		}
		n++
	}
	if n != 660 {
		t.Errorf("runs.jsonl has %d runs, want 660", n)
	}
	if !strings.Contains(stdout.String(), "passed 3/3") {
		t.Errorf("the terminal report lacks the counts:\n%s", stdout.String())
	}
}
