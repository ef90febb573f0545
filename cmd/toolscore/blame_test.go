package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/runner"
)

// hostileManifest writes a manifest that calls one tool of the hostile server, clean, with each
// of clients, once.
func hostileManifest(t *testing.T, tool, clients string, extra string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), tool+".yaml")
	writeFile(t, path, "name: hostile "+tool+"\nserver: {builtin: hostile}\ntool: "+tool+
		"\nfaults: [clean]\nschema_modes: [as-is]\nclients: ["+clients+"]\nruns: 1\ntimeout: 60s\n"+extra)
	return path
}

// runRecords reads runs.jsonl of an output directory, by client.
func runRecords(t *testing.T, out string) map[string]runner.RunRecord {
	t.Helper()
	f, err := os.Open(filepath.Join(out, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs := map[string]runner.RunRecord{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var r runner.RunRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		recs[r.Client] = r
	}
	return recs
}

// TestRawReportsWhatCame: the raw client reports the answers it cannot use as what it saw,
// the way the libraries do, instead of waiting out the timeout (a 20,000-deep answer, past
// encoding/json's nesting limit) or dying (a server that exits mid-answer).
//
// What the libraries do with the same bytes (found by running them; not asserted for mcp-go
// on deep, which costs the whole timeout): go-sdk v1.8.0 throws "exceeded max depth" and
// "unexpected EOF"; mcp-go v1.2.1 throws "transport closed" on the exit, but skips the deep
// frame as unreadable and never returns, so it is hung, which is what it does.
func TestRawReportsWhatCame(t *testing.T) {
	for _, tc := range []struct {
		tool, clients string
		want          map[string]string // client -> evidence it must hold
	}{
		{"deep", "raw, go-sdk/call", map[string]string{
			"raw":         "undecodable-answer: the answer to tools/call came (40107 bytes) but does not decode: invalid character '[' exceeded max depth",
			"go-sdk/call": "exceeded max depth",
		}},
		{"exit-mid-call", "raw, go-sdk/call, mcp-go/call", map[string]string{
			"raw":         "connection-closed: the server closed before answering tools/call (after 79 bytes of an unfinished frame): EOF",
			"go-sdk/call": "unexpected EOF",
			"mcp-go/call": "transport closed",
		}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			out := t.TempDir()
			_, stderr, code := toolscore(t, "", "run", hostileManifest(t, tc.tool, tc.clients, ""), "--backend", "local", "--out", out)
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, stderr)
			}
			recs := runRecords(t, out)
			for client, evidence := range tc.want {
				r := recs[client]
				if r.Outcome != "threw" || !strings.Contains(r.Evidence, evidence) {
					t.Errorf("%s: %s (%s), want threw with %q", client, r.Outcome, r.Evidence, evidence)
				}
			}
		})
	}
}
