package grade

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

// TestUnread: a transcript whose answer record was cut short (the proxy killed while writing
// it) reads with an error; the client's result is then not graded altered against an answer the
// lost part held: the run is crashed, with the read error as its evidence. A grade the read
// error does not touch (the client threw) keeps its outcome and says the error too.
func TestUnread(t *testing.T) {
	tee := filepath.Join(t.TempDir(), "tee.jsonl")
	f, _ := os.Create(tee)
	w := transcript.NewTee(f)
	w.Write(&transcript.Record{Dir: transcript.ClientToServer, Match: &transcript.Match{Tool: "t", N: 1, Fires: true},
		Wire: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}}` + "\n")})
	w.Close()
	f.WriteString(`{"time":"2026-01-01T00:00:00Z","dir":"to-client","wire":"{\"jsonrpc\":\"2.0\",\"id\":2,\"res`)
	f.Close()
	entries, err := transcript.Read(tee)
	if err == nil {
		t.Fatal("a cut record read without an error")
	}
	stdout := filepath.Join(t.TempDir(), "stdout")
	for _, c := range []struct {
		name, observation string
		outcome           record.Outcome
		evidence          string
	}{
		{"returned", `{"client":"x","returned":{"content":[]}}`, record.Crashed,
			"toolscore could not read the run's transcript whole (transcript record 2: "},
		{"threw", `{"client":"x","raised":{"class":"E","message":"boom"}}`, record.Threw, "E: boom; toolscore could not read the run's transcript whole"},
	} {
		os.WriteFile(stdout, []byte(c.observation+"\n"), 0o644)
		g := SDK(Run{Stdout: stdout}, entries)
		if c.name == "returned" && g.Outcome != record.Altered {
			t.Fatalf("without the read error the run is %s, want altered (what Unread must undo)", g.Outcome)
		}
		g = Unread(g, err)
		if g.Outcome != c.outcome || !strings.Contains(g.Evidence, c.evidence) {
			t.Errorf("%s: %s (%s), want %s with %q", c.name, g.Outcome, g.Evidence, c.outcome, c.evidence)
		}
	}
	if g := Unread(Grade{Outcome: record.Passed, Wire: "{}"}, errors.New("x")); g.Outcome != record.Passed {
		t.Errorf("a run graded on an answer that was read: %s", g.Outcome)
	}
}
