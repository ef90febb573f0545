package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/record"
)

// versionsManifest sweeps the ledger over streamable HTTP, a 2025-era session, with the clients
// at the versions named; a client that hangs is stopped after 10s.
func versionsManifest(t *testing.T, clients ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "go-versions.yaml")
	writeFile(t, path, `name: go versions
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
truth: ["40718.77", "4071877"]
faults: [clean, sse-cut]
schema_modes: [published]
protocols: [2025-11-25]
transports: [http]
clients:
  - `+strings.Join(clients, "\n  - ")+`
runs: 1
timeout: 10s
`)
	return path
}

// TestGoClientVersionPin: a version pin of a Go client is honoured, not ignored: toolscore
// builds its adapter against that version of the library, the run records it, and the
// outcomes are that version's. go-sdk v1.4.1 gives up on an SSE stream cut before the answer
// ("request terminated without response"); v1.6.0 resumes it from its event id. A version the
// adapter cannot be built against (v1.1.0 has no jsonrpc.Error) is unavailable, with the
// compiler's reason.
func TestGoClientVersionPin(t *testing.T) {
	manifest := versionsManifest(t, "{name: go-sdk/call, version: v1.4.1}", "{name: go-sdk/call, version: 1.6.0}", "{name: go-sdk/call, version: v1.1.0}")
	out := t.TempDir()
	code, _, stderr := runStatic(t, manifest, "--backend", "local", "--out", out)
	if code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	res := readResultsDir(t, out)
	want := map[string]string{
		"go-sdk/call@v1.4.1 clean": "passed", "go-sdk/call@v1.4.1 sse-cut": "threw",
		"go-sdk/call@1.6.0 clean": "passed", "go-sdk/call@1.6.0 sse-cut": "passed",
	}
	for _, c := range res.Cells {
		if w := want[c.Client+" "+c.Fault]; c.Outcome[w] != 1 {
			t.Errorf("%s: %s, want %s 1/1", c.Coordinates(), c.Counts(), w)
		}
	}
	if len(res.Cells) != len(want) {
		t.Errorf("%d cells, want %d", len(res.Cells), len(want))
	}
	for _, r := range record.RunsIn(out) {
		version := strings.TrimPrefix(r.Client[strings.Index(r.Client, "@")+1:], "v")
		if r.Observation == nil || r.Observation.Library != "github.com/modelcontextprotocol/go-sdk v"+version {
			t.Errorf("%s %s: the run records library %+v, want go-sdk v%s", r.Client, r.Fault, r.Observation, version)
		}
		if r.Client == "go-sdk/call@v1.4.1" && r.Fault == "sse-cut" && !strings.Contains(r.Evidence, "request terminated without response") {
			t.Errorf("v1.4.1 on sse-cut: evidence %q", r.Evidence)
		}
	}
	why := ""
	for _, u := range res.Unavailable {
		if u.Client == "go-sdk/call@v1.1.0" {
			why = u.Reason
		}
	}
	if !strings.Contains(why, "v1.1.0 does not build with toolscore's Go adapter") || !strings.Contains(why, "jsonrpc.Error") {
		t.Errorf("go-sdk/call@v1.1.0 unavailable for %q, want the build's reason", why)
	}
}

// TestVersionPinOfNoLibrary: a version pin of a client with no library to install is refused
// at its line, not silently run at whatever toolscore has.
func TestVersionPinOfNoLibrary(t *testing.T) {
	manifest := versionsManifest(t, "go-sdk/call", "{name: raw, version: 1.0.0}")
	code, _, stderr := runStatic(t, manifest, "--backend", "local", "--out", t.TempDir())
	if code != exitcode.Usage || !strings.Contains(stderr, manifest+":12:") || !strings.Contains(stderr, `clients[1].version: "raw" has no library whose version toolscore can install`) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 naming clients[1].version at line 12", code, stderr)
	}
}
