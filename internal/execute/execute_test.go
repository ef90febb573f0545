package execute

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/backend/local"
	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

// TestRun runs an adapter on the local backend as a sweep's run and check-client's both go: its
// secret is masked in its stderr and its directory's files, the transcript the proxy left
// without the server's exit is ended with why, the run is graded on it, and the record names the
// run's coordinates and its transcript. A transcript whose last record the proxy's death cut
// short gets its end on a line of its own, and the grade says it could not be read whole.
func TestRun(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to run the adapter")
	}
	const secret = "sk-test-0123456789"
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_balance"}}`
	answer := `{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"owner":"` + secret + `"}}}`
	for _, c := range []struct {
		name string
		cut  bool
	}{{"whole", false}, {"cut short", true}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			tee := filepath.Join(dir, record.TeeFile)
			f, err := os.Create(tee)
			if err != nil {
				t.Fatal(err)
			}
			w := transcript.NewTee(f)
			w.Write(&transcript.Record{Dir: transcript.ClientToServer, Match: &transcript.Match{Tool: "get_balance", N: 1, Fires: true}, Wire: []byte(call + "\n")})
			w.Write(&transcript.Record{Dir: transcript.ServerToClient, Wire: []byte(answer + "\n")})
			w.Close()
			if c.cut {
				f.WriteString(`{"time":"2026-01-01T00:00:00Z","dir":"server-stderr","wi`)
			}
			f.Close()
			obs := `{"client":"x","library":"y","returned":{"content":[],"structuredContent":{"owner":"` + secret + `"}}}`
			cell := record.Cell{Client: "x", Fault: "clean", Schema: "hidden"}
			ran, err := Run(context.Background(), local.Backend{}, Job{
				Spec: backend.Spec{Dir: dir, Client: "x", Cell: "x/clean", Run: 2, Timeout: 30 * time.Second,
					Command: []string{"sh", "-c", `printf '%s\n' "$OBS"; echo "using $KEY" >&2`}, Env: []string{"OBS=" + obs, "KEY=" + secret}},
				Cell: cell, Run: 2, Seed: 7, Dir: "runs/x/run-2", Secrets: []string{"", secret},
			})
			if err != nil {
				t.Fatal(err)
			}
			rec := ran.Record
			if rec.Cell != cell || rec.Run != 2 || rec.Seed != 7 || rec.Tee != "runs/x/run-2/"+record.TeeFile || rec.ExitCode != 0 {
				t.Errorf("record %+v", rec)
			}
			if rec.Stderr != "using [masked]\n" || strings.Contains(string(ran.Result.Stderr), secret) {
				t.Errorf("stderr %q, result's %q: want the secret masked", rec.Stderr, ran.Result.Stderr)
			}
			b, _ := os.ReadFile(tee)
			if strings.Contains(string(b), secret) {
				t.Errorf("the transcript keeps the secret:\n%s", b)
			}
			lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			last := lines[len(lines)-1]
			if !strings.Contains(last, `"event":"no-server-exit"`) || !strings.Contains(last, "the proxy was gone before it saw the server exit (the adapter exited 0)") ||
				!strings.HasPrefix(last, `{"time"`) {
				t.Errorf("the transcript ends %q, want the run's end on a line of its own", last)
			}
			unread := strings.Contains(rec.Evidence, "toolscore could not read the run's transcript whole")
			if rec.Outcome != record.Passed || unread != c.cut {
				t.Errorf("graded %s (%s); want passed, saying the transcript could not be read whole only when it was cut", rec.Outcome, rec.Evidence)
			}
			// The end is written before the transcript is read back, so the reader meets the cut
			// record ended by the end's newline, as a sweep's record has always said.
			// (The offset varies with the records' times, written to the nanosecond they keep.)
			if c.cut && !regexp.MustCompile(`\(transcript record 3: offset [0-9]+: invalid control character '\\n' in string\)`).MatchString(rec.Evidence) {
				t.Errorf("evidence %q, want the reader's word on the cut record as the transcript stays on disk", rec.Evidence)
			}
		})
	}
}

// TestRunOtherSessionCut: a client that started the server twice left two transcripts; the
// first was cut short before its call was written (its proxy killed), the second is whole and
// holds no call. The run is graded on the second, which alone would say the client returned a
// result nothing on the wire carried (altered); but the call may have been in the first, lost
// with its proxy: the run is unobserved, and the first transcript is ended with why, as the
// graded one would be.
func TestRunOtherSessionCut(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to run the adapter")
	}
	dir := t.TempDir()
	write := func(name string, recs ...*transcript.Record) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		w := transcript.NewTee(f)
		for _, r := range recs {
			w.Write(r)
		}
		w.Close()
		f.Close()
	}
	start := &transcript.Record{Dir: transcript.Event, Event: "start"}
	write(record.TeeFile, start)
	write(transcript.SessionPath(record.TeeFile, 2), start, &transcript.Record{Dir: transcript.Event, Event: "server-exit", Detail: map[string]any{"client_closed_first": true}})
	obs := `{"client":"x","library":"y","returned":{"content":[{"type":"text","text":"ok"}]}}`
	ran, err := Run(context.Background(), local.Backend{}, Job{
		Spec: backend.Spec{Dir: dir, Client: "x", Cell: "x/clean", Run: 1, Timeout: 30 * time.Second,
			Command: []string{"sh", "-c", `printf '%s\n' "$OBS"`}, Env: []string{"OBS=" + obs}},
		Cell: record.Cell{Client: "x", Fault: "clean", Schema: "hidden"}, Run: 1, Dir: "runs/x/run-1",
	})
	if err != nil {
		t.Fatal(err)
	}
	if rec := ran.Record; rec.Outcome != record.Unobserved || !strings.Contains(rec.Evidence, "other session tee.jsonl, cut short") ||
		!strings.Contains(rec.Evidence, "would be altered") || rec.Tee != "runs/x/run-1/tee.2.jsonl" {
		t.Errorf("graded %s (%s) on %s; want unobserved on tee.2.jsonl, naming the cut tee.jsonl", rec.Outcome, rec.Evidence, rec.Tee)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, record.TeeFile)); !strings.Contains(string(b), `"event":"no-server-exit"`) {
		t.Errorf("the cut session's transcript was not ended with why:\n%s", b)
	}
}
