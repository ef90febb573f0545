package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/tally"
)

// runHistory runs toolscore history and returns the history.json it wrote, failing the test unless
// it exits 0.
func runHistory(t *testing.T, out string, args ...string) *tally.History {
	t.Helper()
	cmd := exec.Command(staticToolscore(t), append([]string{"history", "--out", out}, args...)...)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := start(t, cmd); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(cmd.Wait()); code != 0 {
		t.Fatalf("toolscore history %s: exit %d\n%s\n%s", strings.Join(args, " "), code, o.String(), e.String())
	}
	b, err := os.ReadFile(filepath.Join(out, tally.HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	var h tally.History
	if err := json.Unmarshal(b, &h); err != nil {
		t.Fatal(err)
	}
	return &h
}

// segments renders each cell's segments as "FIRST–LAST OUTCOME", the way the tests state what
// the packages' code puts there.
func segments(t *testing.T, h *tally.History) []string {
	t.Helper()
	if len(h.Clients) != 1 || len(h.Clients[0].Cells) != 1 {
		t.Fatalf("want one client with one cell, got %+v", h.Clients)
	}
	var out []string
	for _, s := range h.Clients[0].Cells[0].Segments {
		out = append(out, s.First+"–"+s.Last+" "+s.Outcome)
	}
	return out
}

func sameStrings(a, b []string) bool { return strings.Join(a, "\n") == strings.Join(b, "\n") }

// TestHistoryNPMOnDocker: the TypeScript SDK over 1.11.0..1.12.1, type-swap with the schema
// published. 1.11.4 is the first in the registry's order to validate structuredContent against
// the outputSchema (dist/esm/client/index.js:238 of 1.11.4 throws "Structured content does not
// match the tool's output schema"; 1.11.3 has no such check), so the history has one boundary,
// between 1.11.3 and 1.11.4, found from the samples 1.11.0, 1.11.5 (the last of 1.11) and 1.12.1.
// With the cell cache, the same range again executes no run, and one release more executes one.
func TestHistoryNPMOnDocker(t *testing.T) {
	engine(t)
	cache := t.TempDir()
	args := []string{"--clients", "ts-sdk/list-then-call", "--faults", "type-swap", "--schema", "published", "--protocols", "2025-11-25",
		"--runs", "1", "--backend", "docker", "--cache", cache, "--from", "1.11.0"}
	h := runHistory(t, t.TempDir(), append(args, "--to", "1.12.1")...)
	want := []string{"1.11.0–1.11.3 passed", "1.11.4–1.12.1 threw"}
	if got := segments(t, h); !sameStrings(got, want) {
		t.Fatalf("segments %q, want %q", got, want)
	}
	ch := h.Clients[0]
	if ch.Registry != "npm" || ch.Package != "@modelcontextprotocol/sdk" || h.Backend != "docker" {
		t.Errorf("client %s on %s, backend %s", ch.Package, ch.Registry, h.Backend)
	}
	swept := 0
	for _, v := range ch.Versions {
		if v.Published == nil {
			t.Errorf("%s has no publish date", v.Version)
		}
		if v.Swept {
			swept++
		}
	}
	if h.RunsExecuted != swept || h.RunsReused != 0 || swept >= len(ch.Versions) {
		t.Errorf("first history: %d runs executed, %d reused, %d of %d versions swept; want one run per version swept, not every version",
			h.RunsExecuted, h.RunsReused, swept, len(ch.Versions))
	}
	seg := ch.Cells[0].Segments[1]
	if seg.Example == nil || !strings.Contains(seg.Example.Evidence, "Structured content does not match the tool's output schema") {
		t.Errorf("the threw segment's example: %+v", seg.Example)
	}

	out := t.TempDir()
	again := runHistory(t, out, append(args, "--to", "1.12.1")...)
	if again.RunsExecuted != 0 || again.RunsReused != swept || !sameStrings(segments(t, again), want) {
		t.Errorf("the same range again: %d runs executed, %d reused, %q; want 0, %d, the same segments", again.RunsExecuted, again.RunsReused, segments(t, again), swept)
	}
	more := runHistory(t, t.TempDir(), append(args, "--to", "1.12.2")...)
	if more.RunsExecuted != 1 || !sameStrings(segments(t, more), []string{"1.11.0–1.11.3 passed", "1.11.4–1.12.2 threw"}) {
		t.Errorf("one release more: %d runs executed, %q; want 1 and threw through 1.12.2", more.RunsExecuted, segments(t, more))
	}

	// The page people read says since when.
	cmd := exec.Command(staticToolscore(t), "report", out, "--format", "compat")
	page, err := cmd.Output()
	if err != nil || !strings.Contains(string(page), "threw since 1.11.4") {
		t.Errorf("report --format compat of the history: %v\n%s", err, page)
	}
}

// TestHistoryNPMLocal: the same boundary on the local backend, each version installed from npm
// into the install cache.
func TestHistoryNPMLocal(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		needNPM(t, "npm is not installed")
	}
	t.Parallel()
	h := runHistory(t, t.TempDir(), "--clients", "ts-sdk/list-then-call", "--faults", "type-swap", "--schema", "published", "--protocols", "2025-11-25",
		"--runs", "1", "--backend", "local", "--cache", t.TempDir(), "--from", "1.11.3", "--to", "1.11.5")
	if got, want := segments(t, h), []string{"1.11.3–1.11.3 passed", "1.11.4–1.11.5 threw"}; !sameStrings(got, want) || h.Backend != "local" {
		t.Errorf("segments %q on %s, want %q on local", got, h.Backend, want)
	}
}

// TestHistoryPyPIOnDocker: the Python SDK over 1.20.0..1.23.1, the sse-cut cell over streamable
// HTTP. 1.20.0 and 1.21.0 install but import a pydantic function today's pydantic no longer has:
// they never start, a segment of their own, never a boundary of behaviour, and the history exits
// 0. 1.21.1 to 1.23.0 offer 2025-06-18 (mcp/types.py:27 LATEST_PROTOCOL_VERSION), so the server
// primes no stream to resume and they wait on the cut one (hung); 1.23.1 offers 2025-11-25 and
// resumes (passed).
func TestHistoryPyPIOnDocker(t *testing.T) {
	engine(t)
	manifest := versionsManifest(t, "python-sdk/list-then-call")
	args := []string{manifest, "--clients", "python-sdk/list-then-call", "--faults", "sse-cut", "--backend", "docker",
		"--cache", t.TempDir(), "--from", "1.20.0", "--to", "1.23.1"}
	h := runHistory(t, t.TempDir(), args...)
	want := []string{"1.20.0–1.21.0 install-failed", "1.21.1–1.23.0 hung", "1.23.1–1.23.1 passed"}
	if got := segments(t, h); !sameStrings(got, want) {
		t.Fatalf("segments %q, want %q", got, want)
	}
	segs := h.Clients[0].Cells[0].Segments
	if !strings.Contains(segs[0].Reason, "eval_type_backport") {
		t.Errorf("the install-failed segment's reason: %q", segs[0].Reason)
	}
	if segs[1].Protocol != "2025-06-18" || segs[2].Protocol != "2025-11-25" {
		t.Errorf("protocols offered: %q then %q, want 2025-06-18 then 2025-11-25", segs[1].Protocol, segs[2].Protocol)
	}
	// The hangs and the crashes on start did the same alone, so the cache keeps them too: the
	// same range again runs nothing.
	if again := runHistory(t, t.TempDir(), args...); again.RunsExecuted != 0 || !sameStrings(segments(t, again), want) {
		t.Errorf("the same range again: %d runs executed, %q; want 0 and the same segments", again.RunsExecuted, segments(t, again))
	}
}

// TestHistoryGoOnDocker: mcp-go over v1.1.1..v1.2.0, built for each version, the sse-cut cell
// over streamable HTTP. v1.2.0 resumes the cut stream with Last-Event-ID
// (client/transport/streamable_http.go:1022 of v1.2.0; v1.1.1's has no Last-Event-ID), v1.1.1
// gives up ("unexpected nil response").
func TestHistoryGoOnDocker(t *testing.T) {
	engine(t)
	manifest := versionsManifest(t, "mcp-go/call")
	h := runHistory(t, t.TempDir(), manifest, "--clients", "mcp-go/call", "--faults", "sse-cut", "--backend", "docker",
		"--cache", t.TempDir(), "--from", "1.1.1", "--to", "v1.2.0")
	if got, want := segments(t, h), []string{"v1.1.1–v1.1.1 threw", "v1.2.0–v1.2.0 passed"}; !sameStrings(got, want) {
		t.Errorf("segments %q, want %q", got, want)
	}
}

// TestHistoryAgentOnDocker: Claude Code over 2.1.291..2.1.292, type-swap with the schema
// published under protocol 2026-07-28. 2.1.291 opens with initialize at 2025-11-25, so the
// server answers a 2025-era session and the swapped type reaches the model (passed); 2.1.292
// opens with server/discover, negotiates 2026-07-28 and rejects it (docs/findings.md, "Versions
// found by bisect").
func TestHistoryAgentOnDocker(t *testing.T) {
	engine(t)
	manifest := filepath.Join(t.TempDir(), "claude-code.yaml")
	writeFile(t, manifest, claudeTypeSwapManifest("clients: [claude-code]\n"))
	h := runHistory(t, t.TempDir(), manifest, "--clients", "claude-code", "--backend", "docker", "--cache", t.TempDir(),
		"--from", "2.1.291", "--to", "2.1.292")
	if got, want := segments(t, h), []string{"2.1.291–2.1.291 passed", "2.1.292–2.1.292 rejected"}; !sameStrings(got, want) {
		t.Errorf("segments %q, want %q", got, want)
	}
}

// TestHistoryOrderFlag: --order takes registry or date, and anything else is a usage error
// naming both, before any registry is asked.
func TestHistoryOrderFlag(t *testing.T) {
	_, stderr, code := toolscore(t, "", "history", "--clients", "ts-sdk/list-then-call", "--order", "semver", "--out", t.TempDir())
	if want := `--order "semver": want registry or date`; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, want 2 and %q:\n%s", code, want, stderr)
	}
}

// TestHistoryHandshakeNPMLocal: the TypeScript SDK over 1.12.3..1.13.0 against a server that
// speaks only 2025-06-18 (badserver handshake), on the local backend. 1.12.3 asks for
// 2025-03-26 and refuses the 2025-06-18 it is answered ("Server's protocol version is not
// supported"), never calling the tool: handshake-failed, which was threw; 1.13.0 speaks
// 2025-06-18 and passes. The history says which order it walked. Two fresh npm installs take
// about a minute, so it runs with the full product (scripts/nightly); in CI, TestHandshakeFailed
// grades the same failure of the Go SDK's client, which needs no install.
func TestHistoryHandshakeNPMLocal(t *testing.T) {
	if !fullProduct() {
		t.Skip("the full product (TOOLSCORE_FULL=1) only: two npm installs")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		needNPM(t, "npm is not installed")
	}
	t.Parallel()
	manifest := filepath.Join(t.TempDir(), "m.yaml")
	writeFile(t, manifest, "name: only 2025-06-18\nserver:\n  command: [\""+os.Args[0]+"\", badserver, handshake, \"2025-06-18\"]\n"+
		"tool: echo\narguments: {}\nfaults: [clean]\nschema_modes: [hidden]\nclients: [ts-sdk/call]\nruns: 1\ntimeout: 20s\n")
	h := runHistory(t, t.TempDir(), manifest, "--clients", "ts-sdk/call", "--backend", "local", "--cache", t.TempDir(), "--from", "1.12.3", "--to", "1.13.0")
	if got, want := segments(t, h), []string{"1.12.3–1.12.3 handshake-failed", "1.13.0–1.13.0 passed"}; !sameStrings(got, want) {
		t.Errorf("segments %q, want %q", got, want)
	}
	seg := h.Clients[0].Cells[0].Segments[0]
	if seg.Example == nil || !strings.Contains(seg.Example.Evidence, "the server answered 2025-06-18, and the client went no further") || h.Clients[0].Order != "registry" {
		t.Errorf("the handshake-failed segment's example %+v, order %q", seg.Example, h.Clients[0].Order)
	}
}
