package proxy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"hash"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/internal/transcript"
)

// TestHTTPMessageOverCapPassesBounded: a server answers the target call with one message far
// past the proxy's cap (128 MiB against 1 MiB here; a server that streams one without end took
// the proxy to 13 GB), as one SSE event of one data line or as a JSON body. The proxy must
// hold no more than about its cap: it passes the message on as it comes, byte for byte, with
// the fault not applied, and the transcript keeps an excerpt of it (prefix, size, sha256) and
// says what the proxy did.
func TestHTTPMessageOverCapPassesBounded(t *testing.T) {
	const limit, text = 1 << 20, 128 << 20
	for _, form := range []string{"sse", "json"} {
		t.Run(form, func(t *testing.T) {
			head := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`
			tail := `"}]}}`
			if form == "sse" {
				head, tail = "event: message\ndata: "+head, tail+"\n\n"
			}
			want := sha256.New()
			chunk := bytes.Repeat([]byte("a"), 64<<10)
			want.Write([]byte(head))
			for n := 0; n < text; n += len(chunk) {
				want.Write(chunk)
			}
			want.Write([]byte(tail))
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				if form == "sse" {
					w.Header().Set("Content-Type", "text/event-stream")
				} else {
					w.Header().Set("Content-Type", "application/json")
				}
				_, _ = io.WriteString(w, head)
				for n := 0; n < text; n += len(chunk) {
					if _, err := w.Write(chunk); err != nil {
						return
					}
				}
				_, _ = io.WriteString(w, tail)
			}))
			defer up.Close()
			u, _ := url.Parse(up.URL + "/mcp")
			teePath := filepath.Join(t.TempDir(), "tee.jsonl")
			tf, err := os.Create(teePath)
			if err != nil {
				t.Fatal(err)
			}
			defer tf.Close()
			tee := transcript.NewTee(tf)
			f, _ := fault.New("error", nil)
			p := New(Config{Fault: f, FaultName: "error", Tool: "big", Probability: 1, Schema: AsIs, MaxMessage: limit}, tee)
			front := httptest.NewServer(p.Handler(Upstream{URL: u}))
			defer front.Close()

			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			base := ms.HeapAlloc
			req, _ := http.NewRequest(http.MethodPost, front.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big","arguments":{}}}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got := sha256.New()
			buf := make([]byte, 1<<20)
			var n, peak uint64
			for i := 0; ; i++ {
				m, err := resp.Body.Read(buf)
				got.Write(buf[:m])
				n += uint64(m)
				if i%8 == 0 {
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapAlloc)
				}
				if err != nil {
					break
				}
			}
			resp.Body.Close()
			front.Close()
			if err := tee.Close(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Sum(nil), want.Sum(nil)) {
				t.Errorf("the client got %d bytes that are not the server's %d", n, len(head)+text+len(tail))
			}
			if grown := int64(peak) - int64(base); grown > 32<<20 {
				t.Errorf("the heap grew by %d MiB while a %d MiB message went through, with a cap of %d MiB: not bounded", grown>>20, text>>20, limit>>20)
			}
			answer := unreadAnswer(t, teePath, text)
			if len(answer.Wire) != 0 {
				t.Errorf("the answer's record holds %d wire bytes, want none", len(answer.Wire))
			}
			if _, err := answer.OpenWire(); err == nil || !strings.Contains(err.Error(), "only its first bytes") {
				t.Errorf("OpenWire on an excerpt: %v, want an error saying the transcript keeps only its first bytes", err)
			}
		})
	}
}

// endlessLine is a server's stdout of one JSON line of text bytes of text, made as it is read.
type endlessLine struct {
	head, tail []byte
	text, n    int
}

func (e *endlessLine) Read(p []byte) (int, error) {
	switch {
	case len(e.head) > 0:
		n := copy(p, e.head)
		e.head = e.head[n:]
		return n, nil
	case e.n < e.text:
		n := min(len(p), e.text-e.n)
		for i := range p[:n] {
			p[i] = 'a'
		}
		e.n += n
		return n, nil
	case len(e.tail) > 0:
		n := copy(p, e.tail)
		e.tail = e.tail[n:]
		return n, nil
	}
	return 0, io.EOF
}

// TestStdioLineOverCapPassesBounded: a stdio server answers the target call with one line far
// past the cap (128 MiB against 1 MiB). As over HTTP, the proxy passes it on byte for byte and
// holds about its cap, not the line, and the transcript keeps an excerpt and says what it did.
func TestStdioLineOverCapPassesBounded(t *testing.T) {
	const limit, text = 1 << 20, 128 << 20
	head := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`
	tail := `"}]}}` + "\n"
	teePath := filepath.Join(t.TempDir(), "tee.jsonl")
	tf, err := os.Create(teePath)
	if err != nil {
		t.Fatal(err)
	}
	defer tf.Close()
	tee := transcript.NewTee(tf)
	f, _ := fault.New("error", nil)
	p := New(Config{Fault: f, FaultName: "error", Tool: "big", Probability: 1, Schema: AsIs, MaxMessage: limit}, tee)
	if err := p.ClientToServer(context.Background(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big","arguments":{}}}`+"\n"), io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	got := &peakWriter{h: sha256.New()}
	if err := p.ServerToClient(context.Background(), &endlessLine{head: []byte(head), tail: []byte(tail), text: text}, got); err != nil {
		t.Fatal(err)
	}
	if err := tee.Close(); err != nil {
		t.Fatal(err)
	}
	want := sha256.New()
	io.Copy(want, &endlessLine{head: []byte(head), tail: []byte(tail), text: text})
	if !bytes.Equal(got.h.Sum(nil), want.Sum(nil)) {
		t.Errorf("the client got %d bytes that are not the server's %d", got.n, len(head)+text+len(tail))
	}
	if grown := int64(got.peak) - int64(base); grown > 32<<20 {
		t.Errorf("the heap grew by %d MiB while a %d MiB line went through, with a cap of %d MiB: not bounded", grown>>20, text>>20, limit>>20)
	}
	unreadAnswer(t, teePath, text)
}

// unreadAnswer is the record of the target call's answer in the transcript at teePath, which must
// say the answer, of more than text bytes, passed on unread with its fault not applied, and keep
// an excerpt of it.
func unreadAnswer(t *testing.T, teePath string, text int64) *transcript.Entry {
	t.Helper()
	entries, err := transcript.Read(teePath)
	if err != nil {
		t.Fatal(err)
	}
	var answer *transcript.Entry
	for i := range entries {
		if entries[i].Dir == transcript.ServerToClient {
			answer = &entries[i]
		}
	}
	switch {
	case answer == nil:
		t.Fatal("the transcript has no record of the answer")
	case answer.Excerpt == nil || answer.Large == nil || answer.Large.Bytes < text || !strings.HasPrefix(answer.Large.Prefix, `{"jsonrpc":"2.0","id":1`):
		t.Errorf("the answer's record keeps %+v, want an excerpt of the message", answer.Excerpt)
	case !strings.Contains(answer.Note, "passed on as it came") || !strings.Contains(answer.Note, "tools/call (id 1)") || answer.Fault != "error":
		t.Errorf("the answer's record says %q (fault %q), want that it passed unread, not faulted", answer.Note, answer.Fault)
	}
	return answer
}

// peakWriter hashes what it is given and notes the heap's peak as it goes.
type peakWriter struct {
	h          hash.Hash
	n, peak, i uint64
}

func (w *peakWriter) Write(b []byte) (int, error) {
	w.h.Write(b)
	w.n += uint64(len(b))
	if w.i++; w.i%64 == 0 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w.peak = max(w.peak, ms.HeapAlloc)
	}
	return len(b), nil
}
