package proxy

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolscore/toolscore/internal/transcript"
)

// streamServer answers as the TypeScript SDK's server does: a server request it sends on its
// own (not tied to the call) goes on the session's GET stream if there is one, and is dropped
// if not; its tools/call sends one such request (an elicitation) before it answers.
type streamServer struct {
	mu     sync.Mutex
	stream chan string
	lost   int
}

func (s *streamServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Mcp-Session-Id", "S1")
	switch r.Method {
	case http.MethodGet:
		// The stream is the server's before its headers go out, as in the TypeScript SDK
		// (1.32.2, dist/esm/server/webStandardStreamableHttp.js:284 stores the stream, then
		// answers); registering after the flush let the released call overtake it here, a race
		// of this test's server alone.
		ch := make(chan string, 1)
		s.mu.Lock()
		s.stream = ch
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_ = http.NewResponseController(w).Flush()
		for {
			select {
			case msg := <-ch:
				_, _ = io.WriteString(w, "data: "+msg+"\n\n")
				_ = http.NewResponseController(w).Flush()
			case <-r.Context().Done():
				return
			}
		}
	case http.MethodPost:
		body, _ := io.ReadAll(r.Body)
		switch {
		case bytes.Contains(body, []byte(`"notifications/initialized"`)):
			w.WriteHeader(http.StatusAccepted)
			return
		case bytes.Contains(body, []byte(`"tools/call"`)):
			s.mu.Lock()
			if s.stream != nil {
				s.stream <- `{"jsonrpc":"2.0","id":"srv-1","method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object","properties":{}}}}`
			} else {
				s.lost++
			}
			s.mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`)
	}
}

// TestGetStreamAheadOfCall: a client opens its GET stream right after notifications/initialized
// and sends its call at once; when the call reaches the proxy first, the proxy holds it until the
// server has the stream, so the server request the call provokes reaches the client on it (as
// it does directly) instead of being lost; a client that opens no stream is held at most a moment,
// once, and the transcript says so.
func TestGetStreamAheadOfCall(t *testing.T) {
	for _, opensStream := range []bool{true, false} {
		name := map[bool]string{true: "stream", false: "no-stream"}[opensStream]
		t.Run(name, func(t *testing.T) {
			if opensStream {
				// The GET must come within the grace, which a loaded machine (the race detector,
				// other tests) can outlast by itself: the order is what is tested here, not the
				// grace's length.
				defer func(g time.Duration) { getGrace = g }(getGrace)
				getGrace = 5 * time.Second
			}
			server := &streamServer{}
			upstream := httptest.NewServer(server)
			defer upstream.Close()
			u, _ := url.Parse(upstream.URL + "/mcp")
			var tee bytes.Buffer
			tw := transcript.NewTee(&tee)
			p := New(Config{Tool: "get_account_balance", Probability: 1, Seed: 1}, tw)
			srv := httptest.NewServer(p.Handler(Upstream{URL: u}))
			defer srv.Close()
			post := func(body string) *http.Response {
				t.Helper()
				req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Session-Id", "S1")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err) // not Fatal: the call is posted from a goroutine of its own
					return &http.Response{}
				}
				_, _ = io.ReadAll(resp.Body)
				resp.Body.Close()
				return resp
			}
			post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			start := time.Now()
			called := make(chan *http.Response, 1)
			go func() {
				called <- post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{}}}`)
			}()
			if !opensStream {
				if resp := <-called; resp.StatusCode != http.StatusOK || time.Since(start) > time.Second {
					t.Errorf("the call: %d after %v", resp.StatusCode, time.Since(start))
				}
				srv.Close()
				_ = tw.Close()
				if !bytes.Contains(tee.Bytes(), []byte(`"event":"held-for-stream"`)) || !bytes.Contains(tee.Bytes(), []byte("none came")) {
					t.Errorf("the transcript does not say the call waited for a stream:\n%s", tee.Bytes())
				}
				return
			}
			time.Sleep(5 * time.Millisecond) // the GET reaches the proxy after the call
			req, _ := http.NewRequest(http.MethodGet, srv.URL+"/mcp", nil)
			req.Header.Set("Accept", "text/event-stream")
			req.Header.Set("Mcp-Session-Id", "S1")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got := make(chan string, 1)
			go func() {
				line, _ := bufio.NewReader(resp.Body).ReadString('\n')
				got <- line
			}()
			select {
			case line := <-got:
				if !strings.Contains(line, `"elicitation/create"`) {
					t.Errorf("the GET stream carried %q, want the server's elicitation", line)
				}
			case <-time.After(2 * time.Second):
				server.mu.Lock()
				lost := server.lost
				server.mu.Unlock()
				t.Errorf("the server's elicitation never came on the GET stream (the server dropped %d: its stream was not there yet)", lost)
			}
			<-called
			resp.Body.Close()
			srv.Close()
			_ = tw.Close()
			if !bytes.Contains(tee.Bytes(), []byte(`"event":"held-for-stream"`)) {
				t.Errorf("the transcript does not record the hold:\n%s", tee.Bytes())
			}
		})
	}
}
