package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolscore/toolscore/scenarios"
	"github.com/toolscore/toolscore/tally"
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
	res := httpSweep(t, httpFaults, "2026-07-28", httpClients, "60s")
	for _, c := range res.Cells {
		checkHTTPCell(t, c, httpWant(c.Client, c.Fault))
		if want := httpNegotiated[c.Client]; c.Negotiated[want] != 1 {
			t.Errorf("%s: negotiated %v, want %s", c.Coordinates(), c.Negotiated, want)
		}
	}
	noLeftovers(t, api, "the http sweep")
}

// httpSweep runs the embedded ledger scenario on the http transport on docker, with these
// faults, protocol, clients and timeout, one run a cell, and returns its results, every cell there.
func httpSweep(t *testing.T, faults []string, protocol, clients, timeout string) *tally.Results {
	t.Helper()
	bin := staticToolscore(t)
	text := string(scenarios.Ledger)
	i := strings.Index(text, "\nfaults:")
	if i < 0 {
		t.Fatal("the embedded scenario has no faults section")
	}
	manifest := filepath.Join(t.TempDir(), "http.yaml")
	writeFile(t, manifest, text[:i+1]+"faults: ["+strings.Join(faults, ", ")+"]\nschema_modes: [published]\nprotocols: ["+protocol+"]\ntransports: [http]\nclients: ["+clients+"]\nruns: 1\ntimeout: "+timeout+"\n")
	out := t.TempDir()
	began := time.Now()
	cmd := exec.Command(bin, "run", manifest, "--backend", "docker", "--parallel", "2", "--out", out)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := start(t, cmd); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(cmd.Wait()); code != 0 && code != 1 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr.String())
	}
	t.Logf("%s for the sweep, image builds included when they were needed", time.Since(began).Round(time.Second))
	res := readResultsDir(t, out)
	if n := len(strings.Split(clients, ",")) * len(faults); len(res.Unavailable) > 0 || len(res.Cells) != n {
		t.Fatalf("%d cells, unavailable %v; want %d and none", len(res.Cells), res.Unavailable, n)
	}
	return res
}

// checkHTTPCell checks an http cell's one run against w.
func checkHTTPCell(t *testing.T, c *tally.Cell, w agentWant) {
	t.Helper()
	ok := c.Transport == "http" && c.Outcome[w.outcome] == 1
	if w.view != "" {
		ok = ok && c.ModelView[w.view] == 1 && c.Answer[w.answer] == 1 && (c.Answer["flagged"] == 1) == w.flagged
	}
	if !ok {
		t.Errorf("%s: %s, model view %v, answer %v; want %+v; evidence %v", c.Coordinates(), c.Counts(), c.ModelView, c.Answer, w, c.Examples)
	}
}

// httpExchangeClients are the clients in cell images of their own; the Go ones meet the faults
// of the HTTP exchange in TestHTTPFaultsInTheMatrix.
const httpExchangeClients = "ts-sdk/list-then-call, ts-client-v2/call, python-sdk/list-then-call, claude-code, codex, gemini-cli"

// httpExchangeFaults are every fault of the HTTP exchange, under a 2025-11-25 server that keeps
// sessions and event ids (a 2026-07-28 one keeps neither, so nothing expires or resumes there).
var httpExchangeFaults = []string{"http-500", "{name: http-429, retry_after: 1s}", "session-expired", "sse-cut", "{name: slow-first-byte, delay: 300ms}"}

// httpExchangeWant is what each client does with a fault of the HTTP exchange, found by running
// them: none retries a 500 or a 429 (Retry-After or not) nor opens a new session after a 404,
// the SDKs raise and the agents tell the model; all but Codex and Gemini CLI resume a cut stream
// from its event id, Codex tells the model the call failed and Gemini CLI waits until the cell's
// timeout; all wait out a slow first byte.
func httpExchangeWant(client, fault string) agentWant {
	fault, _, _ = strings.Cut(strings.TrimPrefix(fault, "{name: "), ",")
	agent := client == "claude-code" || client == "codex" || client == "gemini-cli"
	switch {
	case fault == "slow-first-byte" || fault == "sse-cut" && (client != "codex" && client != "gemini-cli"):
		if agent {
			view := "structured"
			if client == "gemini-cli" {
				view = "text"
			}
			return agentWant{outcome: "passed", view: view, answer: "truth"}
		}
		return agentWant{outcome: "passed"}
	case fault == "sse-cut" && client == "gemini-cli":
		return agentWant{outcome: "hung"}
	case agent:
		return agentWant{outcome: "rejected", view: "error", answer: "no-value", flagged: true}
	}
	return agentWant{outcome: "threw"}
}

// TestHTTPFaultsOnDocker runs every fault of the HTTP exchange through the clients in cell
// images of their own, on docker, against the ledger as a 2025-era server.
func TestHTTPFaultsOnDocker(t *testing.T) {
	api := engine(t)
	res := httpSweep(t, httpExchangeFaults, "2025-11-25", httpExchangeClients, "30s")
	for _, c := range res.Cells {
		var fault string
		for _, f := range httpExchangeFaults {
			if n, _, _ := strings.Cut(strings.TrimPrefix(f, "{name: "), ","); n == c.Fault {
				fault = f
			}
		}
		checkHTTPCell(t, c, httpExchangeWant(c.Client, fault))
	}
	noLeftovers(t, api, "the sweep of the faults of the HTTP exchange")
}
