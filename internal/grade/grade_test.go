package grade

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

// TestSDKLargeResult: a 2 MiB result is graded from the transcript and the adapter's stdout as
// streams, in less memory than one copy of it: the same result written another way (members
// reordered, characters escaped) passes, one character changed is altered, a library's error
// quoting the whole result is threw; and each grade, as a record would hold it, stays small.
func TestSDKLargeResult(t *testing.T) {
	text := strings.Repeat("ab<é>", 2<<20/6)
	dir := t.TempDir()
	tee := filepath.Join(dir, "tee.jsonl")
	f, _ := os.Create(tee)
	w := transcript.NewTee(f)
	w.Write(&transcript.Record{Dir: transcript.ClientToServer, Match: &transcript.Match{Tool: "huge", N: 1, Fires: true},
		Wire: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"huge"}}` + "\n")})
	w.Write(&transcript.Record{Dir: transcript.ServerToClient,
		Wire: []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"` + text + `"}],"structuredContent":{"n":1,"s":"x"}}}` + "\n")})
	w.Close()
	f.Close()
	entries, err := transcript.Read(tee)
	if err != nil {
		t.Fatal(err)
	}
	escaped := strings.ReplaceAll(strings.ReplaceAll(text, "<", `\u003c`), "é", `\u00e9`)
	for _, c := range []struct {
		name, stdout string
		outcome      record.Outcome
		evidence     string
	}{
		{"re-encoded", `{"client":"x","returned":{"structuredContent":{"s":"x","n":1},"content":[{"text":"` + escaped + `","type":"text"}],"_meta":{}}}`, record.Passed, ""},
		{"one character changed", `{"client":"x","returned":{"content":[{"type":"text","text":"` + text + `!"}],"structuredContent":{"n":1,"s":"x"}}}`, record.Altered,
			`content [{"type":"text","text":"ab<é>ab<é>`},
		{"a raised error quoting it", `{"client":"x","raised":{"class":"Error","message":"bad result: ` + text + `"}}`, record.Threw, "Error: bad result: ab<é>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
			os.WriteFile(out, []byte("a line of noise\n"+c.stdout+"\n\n"), 0o644)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			g := SDK(Run{Stdout: out}, entries)
			runtime.ReadMemStats(&after)
			if g.Outcome != c.outcome || !strings.HasPrefix(g.Evidence, c.evidence) || len(g.Evidence) > maxEvidence+len("…") {
				t.Errorf("%s, %d bytes of evidence: %.300s", g.Outcome, len(g.Evidence), g.Evidence)
			}
			// Buffers of a fixed size, less than one copy of the result.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(text)) {
				t.Errorf("grading a %d KiB result allocated %d KiB", len(text)>>10, alloc>>10)
			}
			if rec, _ := json.Marshal(g); len(rec) > 16<<10 || g.WireLarge == nil || g.WireLarge.Bytes < int64(len(text)) {
				t.Errorf("the grade as a record is %d bytes, wire_large %+.80v", len(rec), g.WireLarge)
			}
		})
	}
}
