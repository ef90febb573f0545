package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/sweep"
)

// TestEndpointRedirectOnPath sweeps a url server whose MCP endpoint redirects (the ledger over
// HTTP behind a front that answers /mcp with a 307 to /mcp/, its Location built from the Host it
// got, as Starlette's redirect_slashes does): the proxy follows it, so the exchange stays
// recorded and faulted and each faithful client is graded as against the ledger itself
// (passed on clean and corrupt, rpc-error on rpc-error), where every cell was altered. A front
// that moves tools/call with a 302 (which keeps no POST, so the proxy does not follow it) takes
// the exchange off the recorded path: every run says so, off-path, blaming neither side.
func TestEndpointRedirectOnPath(t *testing.T) {
	self, _ := os.Executable()
	ledger := exec.Command(self, "ledger", "--stateless", "--http", "127.0.0.1:0")
	out, err := ledger.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := ledger.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = ledger.Process.Signal(syscall.SIGTERM)
		_ = ledger.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	target, err := neturl.Parse(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	relay := relayTo(target)
	for _, tc := range []struct {
		name   string
		status int
		want   map[string]string // fault -> outcome
	}{
		{"slash 307", http.StatusTemporaryRedirect, map[string]string{"clean": "passed", "corrupt": "passed", "rpc-error": "rpc-error"}},
		{"call 302", http.StatusFound, map[string]string{"clean": "off-path", "corrupt": "off-path", "rpc-error": "off-path"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var redirected atomic.Int64
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				moves := r.URL.Path == "/mcp"
				if tc.status == http.StatusFound {
					moves = moves && bytes.Contains(body, []byte(`"tools/call"`))
				}
				if moves {
					redirected.Add(1)
					http.Redirect(w, r, "http://"+r.Host+"/mcp/", tc.status)
					return
				}
				if r.URL.Path == "/mcp/" {
					r.URL.Path = target.Path
				}
				relay.ServeHTTP(w, r)
			}))
			defer front.Close()
			dir := t.TempDir()
			manifest := filepath.Join(dir, "url.yaml")
			writeFile(t, manifest, `name: redirecting
server:
  url: `+front.URL+`/mcp
  network: host
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [clean, corrupt, rpc-error]
schema_modes: [published]
clients: [raw, go-sdk/call]
runs: 1
timeout: 10s
`)
			sc, err := sweep.Load(manifest)
			if err != nil {
				t.Fatal(err)
			}
			var stdout, stderr strings.Builder
			res, _, err := sweep.Sweep(context.Background(), sc, sweep.Config{Scenario: manifest, Backend: "local", Out: filepath.Join(dir, "out"), Version: version, Stdout: &stdout, Stderr: &stderr})
			if code := exitcode.Of(err); code != 0 || err != nil {
				t.Fatalf("exit %d, %v\n%s", code, err, stderr.String())
			}
			if redirected.Load() == 0 {
				t.Fatal("the front never redirected")
			}
			for _, c := range res.Cells {
				want := tc.want[c.Fault]
				if c.Outcome[want] != 1 {
					t.Errorf("%s: %s, want %s (evidence %v)", c.Coordinates(), c.Counts(), want, c.Examples)
				}
			}
		})
	}
}
