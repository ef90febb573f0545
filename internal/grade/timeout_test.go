package grade

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

// TestTimedOutRuns: a run that outlived its time is graded by its observation when the adapter
// printed one (it waited on a server that would not go, issue 24); without one it is hung, and
// the evidence names the request the server never answered, the handshake included, instead of
// blaming the call. A server that exited before answering initialize is server-exited, however
// the client took it.
func TestTimedOutRuns(t *testing.T) {
	dir := t.TempDir()
	entries := func(name string, recs ...*transcript.Record) []transcript.Entry {
		path := filepath.Join(dir, name+".jsonl")
		f, _ := os.Create(path)
		w := transcript.NewTee(f)
		for _, r := range recs {
			w.Write(r)
		}
		w.Close()
		f.Close()
		e, err := transcript.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	init := &transcript.Record{Dir: transcript.ClientToServer, Wire: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n")}
	initAnswer := &transcript.Record{Dir: transcript.ServerToClient, Wire: []byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")}
	discover := &transcript.Record{Dir: transcript.ClientToServer, Wire: []byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}` + "\n")}
	discoverAnswer := &transcript.Record{Dir: transcript.ServerToClient, Wire: []byte(`{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"]}}` + "\n")}
	call := &transcript.Record{Dir: transcript.ClientToServer, Match: &transcript.Match{Tool: "t", N: 1, Fires: true},
		Wire: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}}` + "\n")}
	answer := &transcript.Record{Dir: transcript.ServerToClient, Wire: []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}` + "\n")}
	exit := func(clientFirst bool) *transcript.Record {
		return &transcript.Record{Dir: transcript.Event, Event: "server-exit", Detail: map[string]any{"status": 0, "client_closed_first": clientFirst}}
	}
	stderr := &transcript.Record{Dir: transcript.ServerStderr, Wire: []byte("cannot open the database\n")}
	observed := filepath.Join(dir, "observed")
	os.WriteFile(observed, []byte(`{"client":"x","returned":{"content":[]}}`+"\n"), 0o644)
	none := filepath.Join(dir, "none")
	os.WriteFile(none, nil, 0o644)
	crashed := filepath.Join(dir, "threw")
	os.WriteFile(crashed, []byte(`{"client":"x","raised":{"class":"Error","message":"EOF"}}`+"\n"), 0o644)
	for _, c := range []struct {
		name     string
		res      Run
		tr       []transcript.Entry
		outcome  record.Outcome
		evidence string
	}{
		{"observation then timeout", Run{Stdout: observed, TimedOut: true, ExitCode: 137, Took: 10e9},
			entries("a", init, initAnswer, call, answer), record.Passed, "the adapter printed its observation but had not exited after 10s"},
		{"no observation, stuck on initialize", Run{Stdout: none, TimedOut: true, Took: 10e9},
			entries("b", init), record.Hung, "no observation within 10s; the server never answered initialize (id 1)"},
		{"no observation, stuck on the call", Run{Stdout: none, TimedOut: true, Took: 10e9},
			entries("c", init, initAnswer, call), record.Hung, "no observation within 10s; the server never answered tools/call (id 2)"},
		{"server exited before the handshake", Run{Stdout: crashed, ExitCode: 0},
			entries("d", init, stderr, exit(false)), record.ServerExited, "the server exited with status 0 before answering initialize; its last stderr: cannot open the database"},
		// npx ends with its notices; the line that says why comes before them.
		{"server exited, its reason before npm's notices", Run{Stdout: crashed, ExitCode: 0},
			entries("h", init, &transcript.Record{Dir: transcript.ServerStderr, Wire: []byte("sh: 1: mcp-server-everything: not found\n")},
				&transcript.Record{Dir: transcript.ServerStderr, Wire: []byte("npm notice New major version of npm available! 10.8.2 -> 11.6.2\n")}, exit(false)),
			record.ServerExited, "the server exited with status 0 before answering initialize; its stderr: sh: 1: mcp-server-everything: not found"},
		{"server exited after the client gave up", Run{Stdout: crashed},
			entries("e", init, exit(true)), record.Threw, "Error: EOF"},
		{"server exited after the handshake", Run{Stdout: crashed},
			entries("f", init, initAnswer, call, exit(false)), record.Threw, "Error: EOF"},
		{"server exited after a 2026 handshake", Run{Stdout: crashed},
			entries("g", discover, discoverAnswer, call, exit(false)), record.Threw, "Error: EOF"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if g := SDK(c.res, c.tr); g.Outcome != c.outcome || g.Evidence != c.evidence {
				t.Errorf("SDK: %s (%s), want %s (%s)", g.Outcome, g.Evidence, c.outcome, c.evidence)
			}
		})
	}
}
