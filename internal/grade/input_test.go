package grade

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

// writeTee writes recs as a transcript and reads it back as grading does.
func writeTee(t *testing.T, recs ...transcript.Record) []transcript.Entry {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tee.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := transcript.NewTee(f)
	for i := range recs {
		w.Write(&recs[i])
	}
	w.Close()
	f.Close()
	entries, err := transcript.ReadForGrading(path)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// TestInputReplayed: a replayed run that kept to its recording is graded with the values the
// recording's fault introduced and the recording's negotiation (its clean proxy knows neither),
// and the run's own transcript is left as it was read; one that left the recording is diverged.
func TestInputReplayed(t *testing.T) {
	call := transcript.Record{Dir: transcript.ClientToServer, Match: &transcript.Match{Tool: "get_balance", N: 1, Fires: true},
		Wire: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_balance"}}` + "\n")}
	answer := transcript.Record{Dir: transcript.ServerToClient,
		Wire: []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"balance_minor":"4071877"}}}` + "\n")}
	recordedAnswer := answer
	recordedAnswer.Fault = "type-swap"
	recordedAnswer.Introduced = []record.Introduced{{Path: "balance_minor", Value: "4071877", Was: 4071877}}
	stdout := filepath.Join(t.TempDir(), "stdout")
	if err := os.WriteFile(stdout, []byte(`{"client":"x","returned":{"content":[],"structuredContent":{"balance_minor":"4071877"}}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	live := writeTee(t, call, answer)
	recording := writeTee(t, call, recordedAnswer)

	g := Input{Run: Run{Stdout: stdout}, Transcript: live, Replayed: true, Recording: recording}.Grade()
	if g.Outcome != record.Passed || len(g.Introduced) != 1 || g.Introduced[0].Path != "balance_minor" {
		t.Errorf("kept to the recording: %s (%s), introduced %+v; want passed with the recording's values", g.Outcome, g.Evidence, g.Introduced)
	}
	if _, a := transcript.TargetAnswer(live); a.Introduced != nil {
		t.Errorf("grading changed the run's transcript: its answer now introduced %+v", a.Introduced)
	}
	if g := (Input{Run: Run{Stdout: stdout}, Transcript: live}).Grade(); g.Introduced != nil {
		t.Errorf("a live run took values from no recording: %+v", g.Introduced)
	}

	capped := writeTee(t, transcript.Record{Dir: transcript.Event, Event: "protocol-unavailable", Note: "the server offers no 2026-07-28"}, call, recordedAnswer)
	if g := (Input{Run: Run{Stdout: stdout}, Transcript: live, Replayed: true, Recording: capped}).Grade(); g.Outcome != record.Unavailable {
		t.Errorf("a recording whose protocol was unavailable: %s (%s), want unavailable", g.Outcome, g.Evidence)
	}

	diverged := writeTee(t, call, transcript.Record{Dir: transcript.ServerStderr, Wire: []byte("toolscore replay: diverged: at request 3\n")})
	if g := (Input{Run: Run{Stdout: stdout}, Transcript: diverged, Replayed: true, Recording: recording}).Grade(); g.Outcome != record.Diverged {
		t.Errorf("a run that left the recording: %s (%s), want diverged", g.Outcome, g.Evidence)
	}
}

// TestInputHandshakeFailed: a client that got a revision it does not speak and sent nothing
// more is handshake-failed, not threw, whatever it raised; from a transcript not read whole,
// where what it sent next may be in the part lost, it is graded on what it raised.
func TestInputHandshakeFailed(t *testing.T) {
	stdout := filepath.Join(t.TempDir(), "stdout")
	if err := os.WriteFile(stdout, []byte(`{"client":"x","raised":{"class":"Error","message":"Server's protocol version is not supported: 2025-06-18"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tee := writeTee(t,
		transcript.Record{Dir: transcript.ClientToServer, Wire: []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}` + "\n")},
		transcript.Record{Dir: transcript.ServerToClient, Wire: []byte(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18"}}` + "\n")},
		transcript.Record{Dir: transcript.Event, Event: "negotiated", Detail: map[string]any{"method": "initialize", "client_asked": "2025-03-26", "server_chose": "2025-06-18", "negotiated": "2025-06-18"}},
		transcript.Record{Dir: transcript.Event, Event: "client-closed"})
	if g := (Input{Run: Run{Stdout: stdout}, Transcript: tee}).Grade(); g.Outcome != record.HandshakeFailed {
		t.Errorf("graded %s (%s), want handshake-failed", g.Outcome, g.Evidence)
	}
	if g := (Input{Run: Run{Stdout: stdout}, Transcript: tee, Unread: errors.New("cut")}).Grade(); g.Outcome != record.Threw {
		t.Errorf("from a transcript not read whole: %s (%s), want threw", g.Outcome, g.Evidence)
	}
}
