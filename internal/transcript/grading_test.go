package transcript

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestReadForGradingFlood: a transcript where the server floods 20,000 notifications and 500
// stderr lines around the target call, repeats its answer, and whose answer to a second call was
// written a moment before the call's own record, reads back for grading as a few dozen entries
// that give the same handshake, tools/list, target call and answer as the whole transcript.
func TestReadForGradingFlood(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tee.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	tee := NewTee(f)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	write := func(r *Record) {
		at = at.Add(time.Microsecond)
		r.Time = at
		tee.Write(r)
	}
	msg := func(dir, s string) *Record { return &Record{Dir: dir, Wire: []byte(s + "\n")} }
	flood := func(n int, from int) {
		for i := range n {
			write(msg(ServerToClient, fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"frame %d"}}`, from+i)))
			if i%40 == 0 {
				write(&Record{Dir: ServerStderr, Wire: fmt.Appendf(nil, "log line %d\n", from+i)})
			}
		}
	}
	write(&Record{Dir: Event, Event: "start", Detail: map[string]any{"protocol": "2025-11-25"}})
	write(msg(ClientToServer, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`))
	write(msg(ServerToClient, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25"}}`))
	write(&Record{Dir: Event, Event: "negotiated", Detail: map[string]any{"method": "initialize", "client_asked": "2025-11-25", "negotiated": "2025-11-25"}})
	write(msg(ClientToServer, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	write(msg(ServerToClient, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","outputSchema":{"type":"object"}}]}}`))
	write(&Record{Dir: ClientToServer, Wire: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}}` + "\n"), Match: &Match{Tool: "t", N: 1}})
	flood(10000, 0)
	write(msg(ServerToClient, `{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"first":1}}}`))
	write(msg(ServerToClient, `{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"again":1}}}`))
	flood(10000, 10000)
	// The answer to call 3 is written first, stamped after the call (as two relaying goroutines
	// can leave them).
	call3 := &Record{Dir: ClientToServer, Wire: []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t"}}` + "\n"), Match: &Match{Tool: "t", N: 2}}
	call3.Time = at.Add(time.Microsecond)
	answer3 := msg(ServerToClient, `{"jsonrpc":"2.0","id":3,"result":{"content":[],"structuredContent":{"third":1}}}`)
	answer3.Time = at.Add(2 * time.Microsecond)
	tee.Write(answer3)
	tee.Write(call3)
	at = at.Add(2 * time.Microsecond)
	flood(100, 20000)
	write(&Record{Dir: Event, Event: "server-exit", Detail: map[string]any{"status": 0}})
	if err := tee.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	all, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := ReadForGrading(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) > 100 {
		t.Errorf("kept %d of %d entries, want at most 100", len(kept), len(all))
	}
	req, ans := TargetAnswer(all)
	keptReq, keptAns := TargetAnswer(kept)
	if keptReq == nil || keptAns == nil || !bytes.Equal(keptReq.Wire, req.Wire) || !bytes.Equal(keptAns.Wire, ans.Wire) ||
		!bytes.Contains(keptAns.Wire, []byte(`"third"`)) {
		t.Fatalf("target call and answer %q, %v; the whole transcript's: %q, %q", wireOf(keptReq), wireOf(keptAns), wireOf(req), wireOf(ans))
	}
	if got, want := Negotiated(kept), Negotiated(all); got != want || got.Version != "2025-11-25" {
		t.Errorf("negotiated %+v, the whole transcript's %+v", got, want)
	}
	var stderr []string
	var lists, exits int
	for i, e := range kept {
		if i > 0 && e.Time.Before(kept[i-1].Time) {
			t.Errorf("entry %d is out of time order", i)
		}
		switch {
		case e.Dir == ServerStderr:
			stderr = append(stderr, string(bytes.TrimSpace(e.Wire)))
		case bytes.Contains(e.Wire, []byte(`"id":1,`)):
			lists++
		case e.Event == "server-exit":
			exits++
		}
	}
	if len(stderr) != 2*keepStderr || stderr[0] != "log line 0" || stderr[len(stderr)-1] != "log line 20080" {
		t.Errorf("stderr kept: %d lines, %q … %q; want the first and last %d", len(stderr), stderr[0], stderr[len(stderr)-1], keepStderr)
	}
	if lists != 2 || exits != 1 {
		t.Errorf("tools/list request and answer kept: %d, want 2; server-exit: %d, want 1", lists, exits)
	}
}

func wireOf(e *Entry) string {
	if e == nil {
		return "(none)"
	}
	return string(e.Wire)
}
