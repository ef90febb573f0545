package proxy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
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
	entries, err := ReadTranscript(path)
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
