package sweep_test

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
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

// TestURLServerLocal sweeps a url server (here the ledger over HTTP behind a gate that answers
// 401 without the right Authorization, standing in for a remote one) as toolscore run does: its
// cells run on http through the real proxy with --upstream, the Authorization header comes from
// the variable auth_env names and reaches the server, and its value is in no file and no output
// of the sweep.
func TestURLServerLocal(t *testing.T) {
	target := httpLedger(t)
	const secret = "Bearer url-secret-4242"
	var authorized atomic.Int64
	relay := relayTo(target)
	gate := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != secret {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		authorized.Add(1)
		relay.ServeHTTP(w, r)
	}))
	defer gate.Close()
	t.Setenv("TOOLSCORE_TEST_AUTH", secret)
	dir := t.TempDir()
	manifest := filepath.Join(dir, "url.yaml")
	writeManifest(t, manifest, `name: remote
server:
  url: `+gate.URL+target.Path+`
  network: host
  auth_env: TOOLSCORE_TEST_AUTH
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [clean, corrupt, rpc-error]
schema_modes: [published]
clients: [raw, go-sdk/call]
runs: 1
`)
	sc, err := sweep.Load(manifest)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	outDir := filepath.Join(dir, "out")
	res, _, err := sweep.Sweep(context.Background(), sc, sweep.Config{Scenario: manifest, Backend: "local", Out: outDir, Version: "test", Stdout: &stdout, Stderr: &stderr})
	if code := exitcode.Of(err); code != 0 || err != nil {
		t.Fatalf("exit %d, %v\n%s", code, err, stderr.String())
	}
	for _, c := range res.Cells {
		want := "passed"
		if c.Fault == "rpc-error" {
			want = "rpc-error"
		}
		if c.Transport != "http" || c.Outcome[want] != 1 {
			t.Errorf("%s on %s: %s, want %s (evidence %v)", c.Coordinates(), c.Transport, c.Counts(), want, c.Examples)
		}
	}
	if strings.Contains(stdout.String()+stderr.String(), "url-secret") {
		t.Error("the sweep's output shows the Authorization value")
	}
	if authorized.Load() == 0 {
		t.Error("no request reached the server with the Authorization header")
	}
	_ = filepath.WalkDir(outDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), "url-secret") {
			t.Errorf("%s holds the Authorization value", p)
		}
		return nil
	})
}

// httpLedger starts the built-in ledger over streamable HTTP, stateless, as this test binary
// (TestMain's sweep.Reenter makes it toolscore), and returns its endpoint.
func httpLedger(t *testing.T) *neturl.URL {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
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
	return target
}

// writeManifest writes a manifest for a test.
func writeManifest(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// relayTo is a reverse proxy to target's host, as a gateway in front of a server would be. It
// runs full duplex: Go's HTTP/1 server closes a request's body once the answer's headers are
// written, and when the server behind answers before the relay's transport has read that body
// to its end, the transport fails the request and cuts the answer after its first event.
func relayTo(target *neturl.URL) http.HandlerFunc {
	rp := httputil.NewSingleHostReverseProxy(&neturl.URL{Scheme: target.Scheme, Host: target.Host})
	return func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).EnableFullDuplex()
		rp.ServeHTTP(w, r)
	}
}
