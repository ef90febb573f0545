package grade

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

// TestListingEvidence: a run under schema-ref says in its evidence whether the client fetched
// the network $ref its listing held (the proxy's records of the listener and of each request);
// a hung run says how much CPU it used, where the backend could tell.
func TestListingEvidence(t *testing.T) {
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
		e, err := transcript.ReadForGrading(path)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	call := &transcript.Record{Dir: transcript.ClientToServer, Match: &transcript.Match{Tool: "t", N: 1, Fires: true},
		Wire: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}}` + "\n")}
	answer := &transcript.Record{Dir: transcript.ServerToClient, Wire: []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}` + "\n")}
	listening := &transcript.Record{Dir: transcript.Event, Event: "schema-ref-listening", Detail: map[string]any{"url": "http://127.0.0.1:9"}}
	fetch := &transcript.Record{Dir: transcript.Event, Event: transcript.RefFetch,
		HTTP:   &transcript.HTTPFacts{Method: "GET", Path: "/schemas/t/1.json", Status: 200, Header: map[string][]string{"User-Agent": {"node"}}},
		Detail: map[string]any{"request": "GET /schemas/t/1.json HTTP/1.1"}}
	passed := filepath.Join(dir, "passed")
	os.WriteFile(passed, []byte(`{"client":"x","returned":{"content":[]}}`+"\n"), 0o644)
	none := filepath.Join(dir, "none")
	os.WriteFile(none, nil, 0o644)
	agentNone := filepath.Join(dir, "agent")
	os.WriteFile(agentNone, []byte(`{"client":"x","agent":{"model_view":{"kind":"none"},"answer":"?"}}`+"\n"), 0o644)
	for _, c := range []struct {
		name     string
		res      Run
		tr       []transcript.Entry
		outcome  record.Outcome
		evidence string
	}{
		{"fetched twice", Run{Stdout: passed}, entries("a", listening, fetch, fetch, call, answer), record.Passed,
			`the client fetched the network $ref 2 time(s), first "GET /schemas/t/1.json HTTP/1.1" (User-Agent "node")`},
		{"never fetched", Run{Stdout: passed}, entries("b", listening, call, answer), record.Passed,
			"the client never fetched the network $ref in the listing it got"},
		{"no $ref published", Run{Stdout: passed}, entries("c", call, answer), record.Passed, ""},
		{"hung, spinning", Run{Stdout: none, TimedOut: true, Took: 10e9, CPU: 9.87e9}, entries("d", listening, call, answer), record.Hung,
			"no observation within 10s; it used 9.87s of CPU; the client never fetched the network $ref in the listing it got"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if g := SDK(c.res, c.tr); g.Outcome != c.outcome || g.Evidence != c.evidence {
				t.Errorf("SDK: %s (%s), want %s (%s)", g.Outcome, g.Evidence, c.outcome, c.evidence)
			}
		})
	}
	g := Agent(Run{Stdout: none, TimedOut: true, Took: 10e9, CPU: 2e9}, entries("e", listening, fetch, call, answer), nil)
	if want := `no observation within 10s; it used 2s of CPU; the client fetched the network $ref 1 time(s), first "GET /schemas/t/1.json HTTP/1.1" (User-Agent "node")`; g.Outcome != record.Hung || g.Evidence != want {
		t.Errorf("Agent: %s (%s), want hung (%s)", g.Outcome, g.Evidence, want)
	}
}
