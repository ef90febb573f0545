package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestURLServerUnreachable: a url server nothing listens at is refused before any run (exit 2,
// naming the url and the connection's error), not a `threw` of every client under exit 0; one
// that answers, even 405 to everything, is reachable and swept.
func TestURLServerUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String() + "/mcp"
	l.Close() // nothing listens there now: a connection is refused
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusMethodNotAllowed)
	}))
	defer refusing.Close()
	for _, tc := range []struct {
		name, url string
		code      int
		stderr    string
	}{
		{"nothing listens", dead, 2, "toolscore run: the server url " + dead + " cannot be reached (network host): Get \"" + dead + "\": dial tcp " + l.Addr().String() + ": connect: connection refused"},
		{"answers 405", refusing.URL + "/mcp", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			manifest := filepath.Join(dir, "url.yaml")
			writeFile(t, manifest, "name: remote\nserver:\n  url: "+tc.url+"\n  network: host\ntool: get_account_balance\narguments: {account_id: ACC-4471}\nfaults: [clean]\nschema_modes: [as-is]\nclients: [raw]\nruns: 1\n")
			out := filepath.Join(dir, "out")
			_, stderr, code := toolscore(t, "", "run", manifest, "--backend", "local", "--out", out)
			if code != tc.code || !strings.Contains(stderr, tc.stderr) {
				t.Fatalf("exit %d, want %d with %q:\n%s", code, tc.code, tc.stderr, stderr)
			}
			_, err := os.Stat(filepath.Join(out, "runs.jsonl"))
			if ran := err == nil; ran != (tc.code == 0) {
				t.Errorf("runs.jsonl there: %v, want %v", ran, tc.code == 0)
			}
			if tc.code == 0 {
				if r := runRecords(t, out)["raw"]; r.Outcome == "" {
					t.Errorf("raw: no outcome recorded")
				}
			}
		})
	}
}
