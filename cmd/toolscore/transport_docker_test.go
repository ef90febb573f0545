package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolscore/toolscore/scenarios"
)

// httpClients are every client of the matrix, each on one path: a deliberate sample, with the
// faults below, of what the http transport can change.
const httpClients = "raw, go-sdk/list-then-call, mcp-go/call, ts-sdk/list-then-call, ts-client-v2/call, python-sdk/list-then-call, claude-code, codex, gemini-cli"

// httpFaults are the telling faults: nothing wrong, a JSON-RPC error, a result of the wrong
// shape, and one that only a client checking the published schema sees.
var httpFaults = []string{"clean", "rpc-error", "wrong-container", "type-swap"}

// stdioWant is what each client does with a fault on stdio under 2026-07-28, the schema
// published, as the stdio tests found (sdkWant, claudeCodeWant, codexWant, geminiWant); the
// Go clients and raw check nothing but the JSON-RPC error.
func stdioWant(client, fault string) agentWant {
	switch client {
	case "claude-code":
		return claudeCodeWant(fault, "published", "2026-07-28")
	case "codex":
		return codexWant(fault, "published", "2026-07-28")
	case "gemini-cli":
		return geminiWant(fault, "published").agentWant
	case "raw", "go-sdk/list-then-call":
		if fault == "rpc-error" {
			return agentWant{outcome: "rpc-error"}
		}
		return agentWant{outcome: "passed"}
	}
	return agentWant{outcome: sdkWant(client, fault, "published")}
}

// httpWant is what each client does over streamable HTTP: what it does on stdio, found by
// running every client in its cell through the real proxy (the README's tables say so).
func httpWant(client, fault string) agentWant {
	return stdioWant(client, fault)
}

// httpNegotiated is the revision each client settles on over HTTP with the ledger offering
// 2026-07-28, the same as on stdio: the Go SDKs and Claude Code open a 2026 session with
// server/discover, the TypeScript and Python SDKs and raw send initialize 2025-11-25, Codex and
// Gemini CLI initialize 2025-06-18.
var httpNegotiated = map[string]string{
	"raw": "2025-11-25", "go-sdk/list-then-call": "2026-07-28", "mcp-go/call": "2026-07-28",
	"ts-sdk/list-then-call": "2025-11-25", "ts-client-v2/call": "2025-11-25", "python-sdk/list-then-call": "2025-11-25",
	"claude-code": "2026-07-28", "codex": "2025-06-18", "gemini-cli": "2025-06-18",
}

// TestHTTPClientsOnDocker runs every client in its cell on the http transport, through the real
// proxy on the cell's loopback (the cells keep network none), against the built-in ledger:
// each cell's outcome, and for an agent the model's view and its answer, are checked against
// httpWant, and every run negotiated a revision the proxy recorded.
func TestHTTPClientsOnDocker(t *testing.T) {
	api := engine(t)
	bin := staticToolscore(t)
	text := string(scenarios.Ledger)
	i := strings.Index(text, "\nfaults:")
	if i < 0 {
		t.Fatal("the embedded scenario has no faults section")
	}
	manifest := filepath.Join(t.TempDir(), "http.yaml")
	writeFile(t, manifest, text[:i+1]+"faults: ["+strings.Join(httpFaults, ", ")+"]\nschema_modes: [published]\nprotocols: [2026-07-28]\ntransports: [http]\nclients: ["+httpClients+"]\nruns: 1\ntimeout: 60s\n")
	out := t.TempDir()
	began := time.Now()
	cmd := exec.Command(bin, "run", manifest, "--backend", "docker", "--parallel", "2", "--out", out)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := start(cmd); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(cmd.Wait()); code != 0 && code != 1 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr.String())
	}
	t.Logf("%s for the sweep, image builds included when they were needed", time.Since(began).Round(time.Second))
	res := readResultsDir(t, out)
	if n := len(strings.Split(httpClients, ",")) * len(httpFaults); len(res.Unavailable) > 0 || len(res.Cells) != n {
		t.Fatalf("%d cells, unavailable %v; want %d and none", len(res.Cells), res.Unavailable, n)
	}
	for _, c := range res.Cells {
		w := httpWant(c.Client, c.Fault)
		ok := c.Transport == "http" && c.Outcome[w.outcome] == 1
		if w.view != "" {
			ok = ok && c.ModelView[w.view] == 1 && c.Answer[w.answer] == 1 && (c.Answer["flagged"] == 1) == w.flagged
		}
		if !ok {
			t.Errorf("%s: %s, model view %v, answer %v; want %+v; evidence %v", c.Coordinates(), c.Counts(), c.ModelView, c.Answer, w, c.Examples)
		}
		if want := httpNegotiated[c.Client]; c.Negotiated[want] != 1 {
			t.Errorf("%s: negotiated %v, want %s", c.Coordinates(), c.Negotiated, want)
		}
	}
	noLeftovers(t, api, "the http sweep")
}
