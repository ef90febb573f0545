package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenarios"
)

// TestBisectOnDocker bisects the TypeScript SDK over a real range on the docker backend: the
// type-swap cell with the schema published, recorded live at 1.11.3 (which passes the wrong
// type on) and replayed to 1.11.4 and 1.11.5. @modelcontextprotocol/sdk 1.11.4 is the first
// version in the registry's order to validate structuredContent against the published
// outputSchema (it throws "Structured content does not match the tool's output schema"), and a
// live sweep of both versions confirms it.
func TestBisectOnDocker(t *testing.T) {
	engine(t)
	work := t.TempDir()
	bisectFinds(t, []string{"--client", "ts-sdk/list-then-call", "--good", "1.11.3", "--bad", "1.11.5", "--cell", "type-swap/published/2025-11-25", "--work", work},
		"first version whose outcome differs from 1.11.3's: ts-sdk/list-then-call 1.11.4",
		"  1.11.4: threw (McpError: MCP error -32602: Structured content does not match the tool's output schema",
		"  1.11.3 (the version before): passed")
	if _, err := os.Stat(filepath.Join(work, "1.11.4", "runs")); err != nil {
		t.Errorf("no output directory for 1.11.4: %v", err)
	}

	// The live sweep at both versions says the same.
	m := string(scenarios.Ledger)
	m = m[:strings.Index(m, "clients:")] + "clients:\n  - {name: ts-sdk/list-then-call, version: 1.11.3}\n  - {name: ts-sdk/list-then-call, version: 1.11.4}\nruns: 1\ntimeout: 20s\n"
	manifest := filepath.Join(t.TempDir(), "versions.yaml")
	writeFile(t, manifest, m)
	liveSweepGives(t, manifest, map[string]string{"ts-sdk/list-then-call@1.11.3": "passed", "ts-sdk/list-then-call@1.11.4": "threw"},
		"--faults", "type-swap", "--schema", "published", "--protocols", "2025-11-25")
}

// liveSweepGives sweeps manifest live on the docker backend, one cell per client, and checks
// each cell's one run has the outcome want names for its client.
func liveSweepGives(t *testing.T, manifest string, want map[string]string, args ...string) {
	t.Helper()
	live := t.TempDir()
	if code, _, stderr := runStatic(t, append([]string{manifest, "--backend", "docker", "--out", live}, args...)...); code != 0 {
		t.Fatalf("the live sweep exited %d:\n%s", code, stderr)
	}
	res := readResultsDir(t, live)
	for _, c := range res.Cells {
		if c.Outcome[want[c.Client]] != 1 {
			t.Errorf("%s live: %s, want %s 1/1", c.Coordinates(), c.Counts(), want[c.Client])
		}
	}
	if len(res.Cells) != len(want) || res.Backend != "docker" {
		t.Errorf("%d cells on %s, want %d on docker", len(res.Cells), res.Backend, len(want))
	}
}

// TestBisectGoOnDocker bisects a Go client, built for each version, over a real range on the
// docker backend: mcp-go's sse-cut cell over streamable HTTP with a 2025-era session, recorded
// live at v1.0.0 (which gives up on the cut stream: "unexpected nil response") and replayed to
// v1.1.0, v1.1.1 and v1.2.0. v1.2.0 is the first to resume the stream from the event id it was
// primed with: against v1.0.0's recording that is a divergence (the recording holds no resumed
// stream), and a live sweep of v1.1.1 and v1.2.0 confirms the change (threw, then passed).
func TestBisectGoOnDocker(t *testing.T) {
	engine(t)
	// Mostly image builds and package installs, which leave the CPU idle: it runs beside
	// other tests, its leftovers told apart by the sweeps it started.
	work := t.TempDir()
	bisectFinds(t, []string{"--client", "mcp-go/call", "--good", "1.0.0", "--bad", "v1.2.0", "--cell", "sse-cut/published/2025-11-25/http",
		"--work", work, filepath.Join("..", "..", "scenarios", "http.yaml")},
		"first version whose outcome differs from v1.0.0's: mcp-go/call v1.2.0",
		`  v1.2.0: diverged (the client left the recording: expected no resumed stream (the recorded client resumed none after this point); got a GET resuming a stream from event id "`,
		"  v1.1.1 (the version before): threw (*transport.Error: transport error: unexpected nil response)")
	for _, v := range []string{"v1.0.0", "v1.1.0", "v1.1.1", "v1.2.0"} {
		recs := record.RunsIn(filepath.Join(work, v))
		if len(recs) != 1 || recs[0].Observation != nil && recs[0].Observation.Library != "github.com/mark3labs/mcp-go "+v {
			t.Errorf("%s: %d runs, the first with %+v; want one, of mcp-go %s", v, len(recs), recs, v)
		}
	}

	// The live sweep at both versions, in containers, says the same.
	manifest := versionsManifest(t, "{name: mcp-go/call, version: v1.1.1}", "{name: mcp-go/call, version: v1.2.0}")
	liveSweepGives(t, manifest, map[string]string{"mcp-go/call@v1.1.1": "threw", "mcp-go/call@v1.2.0": "passed"}, "--faults", "sse-cut")
}

// TestBisectPyPIOnDocker bisects the Python SDK from PyPI over a real range, where the change is
// in what the client asks of the server: mcp 1.23.0 offers protocol 2025-06-18, so the server
// primes no stream and the client waits on the cut one until it is stopped (hung); mcp 1.23.1
// offers 2025-11-25, is sent an event id first, and resumes the cut stream with Last-Event-ID
// (passed). Against 1.23.0's recording the server answers every version as it answered 1.23.0,
// so bisect finds no change there and says that live the bad version differs; with --live it
// runs each version against the server and finds 1.23.1.
func TestBisectPyPIOnDocker(t *testing.T) {
	engine(t)
	// Mostly image builds and package installs, which leave the CPU idle: it runs beside
	// other tests, its leftovers told apart by the sweeps it started.
	manifest, work := versionsManifest(t, "python-sdk/list-then-call"), t.TempDir()
	cmd := exec.Command(staticToolscore(t), "bisect", "--client", "python-sdk/list-then-call", "--good", "1.23.0", "--bad", "1.25.0",
		"--cell", "sse-cut/published", "--work", work, manifest)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	code, out, stderr := exitCode(cmd.Run()), o.String(), e.String()
	if code != 1 || !strings.HasPrefix(out, "python-sdk/list-then-call 1.23.0 and 1.25.0 both: hung") ||
		!strings.Contains(stderr, "toolscore bisect: live, 1.25.0 gives passed: the change is in what the server answers it, which 1.23.0's recording cannot show") {
		t.Errorf("bisect against the recording: exit %d\n%s\nwant exit 1, both hung, and the live hint\nstderr:\n%s%s", code, out, stderr, runsStderr(work))
	}

	bisectFinds(t, []string{"--live", "--client", "python-sdk/list-then-call", "--good", "1.23.0", "--bad", "1.25.0", "--cell", "sse-cut/published", "--work", t.TempDir(), manifest},
		"first version whose outcome differs from 1.23.0's: python-sdk/list-then-call 1.23.1",
		"  1.23.1: passed",
		"  1.23.0 (the version before): hung")
}

// TestBisectAgentOnDocker bisects an agent CLI from npm: Claude Code's type-swap cell with the
// schema published, under protocol 2026-07-28, recorded live at 2.1.291 (which opens with
// initialize at 2025-11-25, so the server answers a 2025-era session and Claude Code passes the
// wrong type to the model) and replayed to 2.1.292 and 2.1.293. 2.1.292 is the first to open
// with server/discover, which the recording lacks (diverged); a live sweep confirms the change:
// 2.1.292 negotiates 2026-07-28 and rejects the result that 2.1.291 passed on.
func TestBisectAgentOnDocker(t *testing.T) {
	engine(t)
	manifest := filepath.Join(t.TempDir(), "claude-code.yaml")
	writeFile(t, manifest, claudeTypeSwapManifest(`clients:
  - {name: claude-code, version: "2.1.291"}
  - {name: claude-code, version: "2.1.292"}
`))
	out := bisectFinds(t, []string{"--client", "claude-code", "--good", "2.1.291", "--bad", "2.1.293", "--cell", "type-swap/published/2026-07-28",
		"--work", t.TempDir(), manifest},
		"first version whose outcome differs from 2.1.291's: claude-code 2.1.292",
		"  2.1.292: diverged (the client left the recording: expected request #1 initialize ",
		"  2.1.291 (the version before): passed")
	if !strings.Contains(out, "; got server/discover)") {
		t.Errorf("2.1.292 diverged, but not by opening with server/discover:\n%s", out)
	}
	liveSweepGives(t, manifest, map[string]string{"claude-code@2.1.291": "passed", "claude-code@2.1.292": "rejected"})
}

// runsStderr is what each run bisect made in work said on stderr, for a failure's message: the
// outcome's evidence keeps only its last line.
func runsStderr(work string) string {
	var b strings.Builder
	dirs, _ := filepath.Glob(filepath.Join(work, "*"))
	for _, d := range dirs {
		for _, r := range record.RunsIn(d) {
			fmt.Fprintf(&b, "\nthe run in %s said on stderr:\n%s\n", filepath.Base(d), r.Stderr)
		}
	}
	return b.String()
}

// bisectFinds runs toolscore bisect and checks that it found a version: its three lines start
// as want says, and only the good version ran live (or every one, with --live). It returns
// what bisect printed.
func bisectFinds(t *testing.T, args []string, want ...string) string {
	t.Helper()
	cmd := exec.Command(staticToolscore(t), append([]string{"bisect"}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	work := args[slices.Index(args, "--work")+1]
	if err != nil {
		t.Fatalf("toolscore bisect: %v\n%s\n%s%s", err, out, stderr.String(), runsStderr(work))
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for i := range want {
		if len(lines) != len(want) || !strings.HasPrefix(lines[i], want[i]) {
			t.Fatalf("bisect printed:\n%s\nwant lines starting:\n%s\nstderr:\n%s%s", out, strings.Join(want, "\n"), stderr.String(), runsStderr(work))
		}
	}
	replayed := strings.Count(stderr.String(), ", against the recording: ")
	if live := strings.Count(stderr.String(), ", live: "); slices.Contains(args, "--live") != (replayed == 0) || !slices.Contains(args, "--live") && live != 1 {
		t.Errorf("%d live runs and %d against the recording, with %v:\n%s", live, replayed, args, stderr.String())
	}
	return string(out)
}

// claudeTypeSwapManifest is the manifest of Claude Code's type-swap cell with the schema
// published under protocol 2026-07-28, which bisect and history sweep, with its clients lines.
func claudeTypeSwapManifest(clients string) string {
	return `name: claude code versions
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
prompt: What is the balance of ledger account ACC-4471? Answer with the amount and currency.
truth: ["40718.77", "4071877"]
faults: [type-swap]
schema_modes: [published]
protocols: [2026-07-28]
` + clients + `runs: 1
timeout: 60s
`
}
