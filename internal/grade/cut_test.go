package grade

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

// TestCutShort: a transcript without the proxy's end (the runner appended no-server-exit, as
// execute.Run does) and without the call's answer cannot say what the client did with the
// answer: a result returned or a raise is unobserved, toolscore's failure, the grade it would
// have had kept in the evidence. A whole transcript without the call keeps its altered (the
// client made up a result), and a cut one that holds the answer is graded on it.
func TestCutShort(t *testing.T) {
	const answer = `{"content":[{"type":"text","text":"ok"}]}`
	start := &transcript.Record{Dir: transcript.Event, Event: "start"}
	call := &transcript.Record{Dir: transcript.ClientToServer, Match: &transcript.Match{Tool: "t", N: 1, Fires: true}, Wire: []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t"}}` + "\n")}
	answered := &transcript.Record{Dir: transcript.ServerToClient, Wire: []byte(`{"jsonrpc":"2.0","id":3,"result":` + answer + "}\n")}
	exit := &transcript.Record{Dir: transcript.Event, Event: "server-exit", Detail: map[string]any{"client_closed_first": true}}
	returned := `{"client":"c","library":"l","returned":` + answer + `}`
	raised := `{"client":"c","library":"l","raised":{"class":"E","message":"bad"}}`
	for _, c := range []struct {
		name    string
		records []*transcript.Record
		stdout  string
		outcome record.Outcome
		was     string // the start of the evidence, or of the grade an unobserved run would have had
	}{
		{"whole, no call, a result", []*transcript.Record{start, exit}, returned, record.Altered, "the client returned a result, but none was on the wire"},
		{"cut, no call, a result", []*transcript.Record{start}, returned, record.Unobserved, "altered: the client returned a result, but none was on the wire"},
		{"cut, the call unanswered, a raise", []*transcript.Record{start, call}, raised, record.Unobserved, "threw: E: bad"},
		{"cut after the answer", []*transcript.Record{start, call, answered}, returned, record.Passed, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			tee := filepath.Join(dir, "tee.jsonl")
			f, _ := os.Create(tee)
			w := transcript.NewTee(f)
			for _, r := range c.records {
				w.Write(r)
			}
			w.Close()
			f.Close()
			if _, err := transcript.EndWithout(tee, "the proxy was gone before it saw the server exit (the adapter exited 0)", nil); err != nil {
				t.Fatal(err)
			}
			entries, err := transcript.ReadForGrading(tee)
			if err != nil {
				t.Fatal(err)
			}
			stdout := filepath.Join(dir, "stdout")
			os.WriteFile(stdout, []byte(c.stdout+"\n"), 0o644)
			g := Input{Run: Run{Stdout: stdout}, Transcript: entries}.Grade()
			if g.Outcome != c.outcome || !strings.Contains(g.Evidence, c.was) {
				t.Errorf("%s (%s), want %s with %q", g.Outcome, g.Evidence, c.outcome, c.was)
			}
			if c.outcome == record.Unobserved && !strings.Contains(g.Evidence, "cut short (the proxy was gone") {
				t.Errorf("evidence %q does not name the cut", g.Evidence)
			}
		})
	}
}
