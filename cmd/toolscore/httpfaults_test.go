package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestHTTPFaultsInTheMatrix sweeps the faults of the HTTP exchange through the built-in Go
// clients on the local backend, under both protocol generations: a 2026-07-28 server keeps no
// session (the ledger runs sessionless) and a 2025-11-25 one does, which decides what an expired
// session and a cut stream do. The counts are what these clients do, found by running them.
func TestHTTPFaultsInTheMatrix(t *testing.T) {
	dir := t.TempDir()
	manifest := filepath.Join(dir, "http-faults.yaml")
	writeFile(t, manifest, `name: http faults
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [clean, http-500, {name: http-429, retry_after: 1s}, session-expired, sse-cut, {name: slow-first-byte, delay: 300ms}]
schema_modes: [hidden]
protocols: [2026-07-28, 2025-11-25]
transports: [stdio, http]
clients: [raw, go-sdk/call, mcp-go/call]
runs: 1
`)
	out := filepath.Join(dir, "out")
	if _, stderr, code := toolscore(t, dir, "run", manifest, "--backend", "local", "--out", out); code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	res := readResultsDir(t, out)
	// Two stdio cells per client and protocol (clean alone: the other faults have no stdio
	// cell), six http ones.
	if len(res.Cells) != 3*2*(1+6) {
		t.Fatalf("%d cells; want %d", len(res.Cells), 3*2*7)
	}
	want := func(client, fault, protocol string) string {
		switch fault {
		case "clean", "slow-first-byte":
			return "passed 1/1"
		case "session-expired":
			if protocol == "2026-07-28" {
				return "passed 1/1" // no session to expire: the call goes through
			}
			return "threw 1/1" // none of them opens a new session by itself
		case "sse-cut":
			if protocol == "2025-11-25" && client != "raw" {
				return "passed 1/1" // resumed from the event id with Last-Event-ID
			}
			return "threw 1/1"
		}
		return "threw 1/1" // http-500, http-429: no retry, Retry-After or not
	}
	for _, c := range res.Cells {
		if w := want(c.Client, c.Fault, c.Protocol); c.Counts() != w {
			t.Errorf("%s: %s; want %s (evidence %v)", c.Coordinates(), c.Counts(), w, c.Examples)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Error(err)
	}
}
