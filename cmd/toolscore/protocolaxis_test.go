package main

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/tally"
)

// TestProtocolAxis runs the ledger under two protocols with the built-in clients on the local
// backend: every cell is keyed, counted and reported by its protocol, and the handshake each
// client made under each cap is counted per cell, as the transcripts have it.
//
// What running them showed: go-sdk v1.8.0 and mcp-go v1.2.1 open a 2026-07-28 session with
// server/discover when the server offers it, and fall back to initialize 2025-11-25 when the
// proxy answers discover as a 2025 server does; the bare client always sends initialize
// 2025-11-25. None of them validates a result under either, so the protocol changes no outcome.
func TestProtocolAxis(t *testing.T) {
	dir := t.TempDir()
	manifest := filepath.Join(dir, "p.yaml")
	writeFile(t, manifest, `name: protocols
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [clean, type-swap]
schema_modes: [published]
protocols: [2026-07-28, 2025-11-25]
clients: [raw, go-sdk/call, mcp-go/call]
runs: 2
expect:
  - {client: go-sdk/call, fault: type-swap, protocol: 2025-11-25, outcome: passed}
`)
	out := filepath.Join(dir, "out")
	stdout, stderr, code := toolscore(t, "", "run", manifest, "--backend", "local", "--out", out, "--parallel", "2")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	res := readResultsDir(t, out)
	if len(res.Cells) != 2*2*3 {
		t.Fatalf("%d cells, want 12", len(res.Cells))
	}
	for _, c := range res.Cells {
		want := map[string]int{c.Protocol: 2} // the client's own revision, on offer
		if c.Client == "raw" || (c.Client != "raw" && c.Protocol == "2025-11-25") {
			want = map[string]int{"2025-11-25": 2}
		}
		if c.Outcome["passed"] != 2 || !maps.Equal(c.Negotiated, want) {
			t.Errorf("%s: %s, negotiated %v; want passed 2/2, negotiated %v", c.Key(), c.Counts(), c.Negotiated, want)
		}
		if !strings.HasSuffix(c.Key(), "|"+c.Protocol) {
			t.Errorf("cell key %s does not end in its protocol %s", c.Key(), c.Protocol)
		}
	}
	if e := res.Expectations; len(e) != 1 || e[0].State() != tally.Held || e[0].Protocol != "2025-11-25" {
		t.Errorf("expectations %+v, want the one held, keyed by protocol 2025-11-25", e)
	}
	for _, want := range []string{"Outcomes, schema published\nonce where alike, else per protocol (2026-07-28, 2025-11-25)\n", "Changing the protocol changed nothing.\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the terminal report lacks %q:\n%s", want, stdout)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil || !strings.Contains(string(md), "## Schema published, protocol 2025-11-25\n") {
		t.Errorf("summary.md lacks the protocol's table (%v):\n%s", err, md)
	}

	// --protocols narrows the axis like --schema; a protocol the scenario lacks is a usage error.
	out2 := filepath.Join(dir, "out2")
	if _, stderr, code := toolscore(t, "", "run", manifest, "--backend", "local", "--out", out2, "--protocols", "2025-11-25", "--clients", "raw", "--runs", "1"); code != 0 {
		t.Fatalf("--protocols 2025-11-25: exit %d\n%s", code, stderr)
	}
	if r := readResultsDir(t, out2); len(r.Cells) != 2 || r.Cells[0].Protocol != "2025-11-25" {
		t.Errorf("--protocols 2025-11-25 ran %d cells (first %+v), want 2 under 2025-11-25", len(r.Cells), r.Cells[0])
	}
	// diff and baseline are keyed by the protocol too: the narrowed sweep's cells are the
	// whole sweep's under 2025-11-25, with other counts, and the rest are gone.
	diff, _, code := toolscore(t, "", "diff", out, out2)
	if code != 1 || !strings.Contains(diff, "client       fault      schema     protocol    before      now\n") ||
		!strings.Contains(diff, "raw          clean      published  2025-11-25  passed 2/2  passed 1/1\n") ||
		!strings.Contains(diff, "go-sdk/call  clean      published  2026-07-28  passed 2/2  not run\n") {
		t.Errorf("toolscore diff: exit %d, want 1 and the changes by protocol:\n%s", code, diff)
	}
	if _, stderr, code := toolscore(t, "", "run", manifest, "--backend", "local", "--out", t.TempDir(), "--protocols", "2024-11-05"); code != 2 ||
		!strings.Contains(stderr, `--protocols "2024-11-05": not in the scenario (protocols: 2026-07-28, 2025-11-25)`) {
		t.Errorf("--protocols 2024-11-05: exit %d, want 2 naming the scenario's protocols:\n%s", code, stderr)
	}
}

// TestProtocolUnavailable: a server that refuses server/discover (the hostile server, a
// 2025-era server) cannot offer 2026-07-28, so a client that asks for it there is counted
// unavailable, with the reason, never given an outcome it had against an older revision; a
// client that never asks for 2026 is measured as usual.
func TestProtocolUnavailable(t *testing.T) {
	out := t.TempDir()
	manifest := hostileManifest(t, "rpc-error", "raw, go-sdk/call", "protocols: [2026-07-28]\n")
	stdout, stderr, code := toolscore(t, "", "run", manifest, "--backend", "local", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	recs := runRecords(t, out)
	if r := recs["go-sdk/call"]; r.Outcome != "unavailable" || r.Protocol != "2026-07-28" ||
		!strings.Contains(r.Evidence, "protocol 2026-07-28: the server refused server/discover") {
		t.Errorf("go-sdk/call: outcome %q protocol %q evidence %q; want unavailable under 2026-07-28, the refusal its evidence", r.Outcome, r.Protocol, r.Evidence)
	}
	if r := recs["raw"]; r.Outcome != "rpc-error" || r.Negotiated != "2025-11-25" {
		t.Errorf("raw: outcome %q negotiated %q; want rpc-error after initialize 2025-11-25", r.Outcome, r.Negotiated)
	}
	if !strings.Contains(stdout, "unavailable 1/1") {
		t.Errorf("the terminal report does not show the unavailable cell:\n%s", stdout)
	}
}
