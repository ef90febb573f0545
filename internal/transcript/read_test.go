package transcript

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/fault"
)

// TestReadTranscriptLarge: a transcript holding a 2 MiB answer and a 1 MiB frame that is not
// UTF-8 (written as base64) is read back keeping neither in memory: each is stood for by its
// size and SHA-256, its envelope is known (so the answer is found), and OpenWire gives back its
// exact bytes. Small messages are kept as they were.
func TestReadTranscriptLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tee.jsonl")
	f, _ := os.Create(path)
	tee := NewTee(f)
	request := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"huge"}}` + "\n")
	answer := []byte(`{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"` + strings.Repeat(`é\"\\abcdefghijklmnopqrstuvwxyz`, 1<<16) + `"}]},"id":7}` + "\n")
	binary := append(bytes.Repeat([]byte{0xff, 'a'}, 1<<19), '\n')
	tee.Write(&Record{Dir: ClientToServer, Wire: request, Match: &Match{Tool: "huge", N: 1, Fires: true}})
	tee.Write(&Record{Dir: ServerToClient, Wire: binary, NotJSON: true})
	tee.Write(&Record{Dir: ServerToClient, Wire: answer, Fault: "clean", Original: answer})
	tee.Write(&Record{Dir: Event, Event: "server-exit", Detail: map[string]any{"status": 0}})
	if err := tee.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	entries, err := Read(path)
	runtime.ReadMemStats(&after)
	if err != nil || len(entries) != 4 {
		t.Fatalf("%d entries, %v", len(entries), err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("reading a transcript of %d MiB allocated %d MiB", (len(answer)*2+len(binary))>>20, alloc>>20)
	}
	req, ans := TargetAnswer(entries)
	if req == nil || !bytes.Equal(req.Wire, request) || ans != &entries[2] {
		t.Fatalf("request %q, answer %v", req.Wire, ans)
	}
	if entries[3].Event != "server-exit" || entries[2].Fault != "clean" || !entries[1].NotJSON {
		t.Errorf("records: %+v", entries)
	}
	for i, want := range map[int][]byte{1: binary, 2: answer} {
		e := entries[i]
		sum := sha256.Sum256(want)
		if e.Wire != nil || e.Large == nil || e.Large.Bytes != int64(len(want)) || e.Large.SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("entry %d: wire kept (%d bytes) or excerpt %+.80v wrong", i, len(e.Wire), e.Large)
			continue
		}
		r, err := e.OpenWire()
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		io.Copy(h, r)
		r.Close()
		if !bytes.Equal(h.Sum(nil), sum[:]) {
			t.Errorf("entry %d: OpenWire gave other bytes", i)
		}
	}
}

// TestReadTranscriptCutRecord: a proxy killed mid-write leaves a record cut short, and the runner
// appends no-server-exit on the next line; reading passes over the cut record, keeps the large
// message after it readable from the file, and still finds the end.
func TestReadTranscriptCutRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tee.jsonl")
	f, _ := os.Create(path)
	tee := NewTee(f)
	tee.Write(&Record{Dir: Event, Event: "start"})
	tee.Close()
	big := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 2<<20) + `"}]}}` + "\n")
	f, _ = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"time":"2026-01-01T00:00:00Z","dir":"to-client","wire":"{\"jsonrpc\":\"2.0\",\"id\":1,\"res`)
	f.Close()
	if _, err := EndWithout(path, "killed", nil); err != nil {
		t.Fatal(err)
	}
	f, _ = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	tee = NewTee(f)
	tee.Write(&Record{Dir: ServerToClient, Wire: big})
	tee.Close()
	entries, err := Read(path)
	if err == nil {
		t.Error("a cut record read without an error")
	}
	var events []string
	var large *Entry
	for i, e := range entries {
		events = append(events, string(e.Dir)+":"+e.Event)
		if e.Large != nil {
			large = &entries[i]
		}
	}
	if len(entries) != 3 || !slices.Contains(events, "event:no-server-exit") || large == nil {
		t.Fatalf("read %v (large message found: %v), want start, no-server-exit and the large message", events, large != nil)
	}
	r, err := large.OpenWire()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, _ := io.ReadAll(r)
	if !bytes.Equal(got, big) {
		t.Errorf("the large message after the cut record read back as %d bytes, want the %d written", len(got), len(big))
	}
}

// TestNegotiatedReadsOlderTranscripts: a transcript written before server/discover was recorded
// (no method, no protocol) still reads back as an initialize under as-is.
func TestNegotiatedReadsOlderTranscripts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tee.jsonl")
	old := `{"time":"2026-01-01T00:00:00Z","dir":"event","event":"start","detail":{"fault":"clean"}}
{"time":"2026-01-01T00:00:01Z","dir":"event","event":"negotiated","detail":{"client_asked":"2025-06-18","server_chose":"2025-06-18","server_info":{}}}
`
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	entries, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	want := Negotiation{Protocol: "as-is", Method: "initialize", ClientAsked: "2025-06-18", Version: "2025-06-18"}
	if got := Negotiated(entries); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// TestReadTranscriptNumbers: values a fault records (introduced) and an event's detail read back
// as the server wrote them, also past what a float64 holds (1e400, 12345678901234567890123), and
// the answer is found for a request whose id the server wrote as 3.0. A record with a member
// that does not decode is kept, its wire bytes with it, and the error is returned.
func TestReadTranscriptNumbers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tee.jsonl")
	f, _ := os.Create(path)
	tee := NewTee(f)
	request := []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"n"}}` + "\n")
	answer := []byte(`{"jsonrpc":"2.0","id":3.0,"result":{"content":[],"structuredContent":[{"huge":1e400}]}}` + "\n")
	tee.Write(&Record{Dir: ClientToServer, Wire: request, Match: &Match{Tool: "n", N: 1, Fires: true}})
	tee.Write(&Record{Dir: ServerToClient, Wire: answer, Fault: "wrong-container", Introduced: []fault.Introduced{{
		Path: "structuredContent", Value: []any{map[string]any{"huge": json.Number("1e400")}}, Was: json.Number("12345678901234567890123"),
	}}})
	tee.Write(&Record{Dir: Event, Event: "decoy", Detail: map[string]any{"result": json.RawMessage(`{"huge":-1e400}`)}})
	if err := tee.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	entries, err := Read(path)
	if err != nil || len(entries) != 3 {
		t.Fatalf("%d entries, %v", len(entries), err)
	}
	_, ans := TargetAnswer(entries)
	if ans == nil || !bytes.Equal(ans.Wire, answer) {
		t.Fatalf("the answer with id 3.0 to request 3 was not found: %+v", ans)
	}
	in := ans.Introduced
	if len(in) != 1 || !reflect.DeepEqual(in[0].Value, []any{map[string]any{"huge": json.Number("1e400")}}) || in[0].Was != json.Number("12345678901234567890123") {
		t.Errorf("introduced read back as %#v", in)
	}
	if d := entries[2].Detail.(map[string]any)["result"]; !reflect.DeepEqual(d, map[string]any{"huge": json.Number("-1e400")}) {
		t.Errorf("the decoy's detail read back as %#v", d)
	}

	// A member no proxy writes, which does not decode into the record: the record stays.
	bad := strings.Replace(string(readAll(t, path)), `"fault":"wrong-container"`, `"fault":{"not":"a string"}`, 1)
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	entries, err = Read(path)
	if err == nil || !strings.Contains(err.Error(), `transcript record 2: its "fault" does not decode`) || len(entries) != 3 {
		t.Fatalf("%d entries, error %v", len(entries), err)
	}
	if _, ans := TargetAnswer(entries); ans == nil || !bytes.Equal(ans.Wire, answer) || len(ans.Introduced) != 1 {
		t.Errorf("the answer was not kept whole but its fault: %+v", ans)
	}
}

func readAll(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
