package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolscore/toolscore/runner"
	"github.com/toolscore/toolscore/runner/backend"
	"github.com/toolscore/toolscore/runner/client"
	"github.com/toolscore/toolscore/runner/fault"
	"github.com/toolscore/toolscore/runner/scenario"
)

// proxyListensOrSkip skips the test unless bin takes toolscore proxy --listen (the wire half of
// issue 14), tried around the ledger over HTTP: its endpoint's URL must be its first line.
func proxyListensOrSkip(t *testing.T, bin string) {
	t.Helper()
	cmd := exec.Command(bin, "proxy", "--listen", "127.0.0.1:0", "--", bin, "ledger", "--http", "127.0.0.1:"+scenario.PortPlaceholder)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		line <- l
	}()
	var first string
	select {
	case first = <-line:
	case <-time.After(20 * time.Second):
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
	if !strings.HasPrefix(first, "http://127.0.0.1:") {
		t.Skipf("toolscore proxy --listen is refused by this binary, so the http cells cannot run through the real proxy yet (the wire half of issue 14 is not merged): first line %q, stderr: %s", first, stderr.String())
	}
}

// withProxyListening has the runner start the real proxy in http cells for the test's length.
func withProxyListening(t *testing.T) {
	before := runner.ProxyListens
	runner.ProxyListens = "true"
	t.Cleanup(func() { runner.ProxyListens = before })
}

// TestHTTPTransportLocal runs the built-in Go clients on both transports through the real proxy
// on the local backend (runner.HTTPProxyCommand's command line, once the proxy listens): on http
// each client's outcome is its outcome on stdio, every http run has a transcript whose records
// the graders read as on stdio, and the keys tell the transports apart.
func TestHTTPTransportLocal(t *testing.T) {
	self, _ := os.Executable()
	proxyListensOrSkip(t, self)
	withProxyListening(t)
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
`), scenario.Known{Faults: fault.Names(), Clients: client.Names(), Builtins: builtinServers, HTTPBuiltins: []string{"ledger"}})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	res, err := runner.Run(context.Background(), runner.Options{Scenario: sc, Backend: backend.Local{Binary: self}, Out: out, Parallel: 2})
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
