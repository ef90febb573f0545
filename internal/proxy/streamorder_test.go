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
// if not; its tools/call sends one such request (an elicitation) before it answers. It answers
// notifications/initialized after initializedDelay, as a loaded server did (163 ms).
type streamServer struct {
	mu     sync.Mutex
	stream chan string
	lost   int
}

const initializedDelay = 150 * time.Millisecond

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
			time.Sleep(initializedDelay)
			w.WriteHeader(http.StatusAccepted)
			return
		case bytes.Contains(body, []byte(`"initialize"`)):
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
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

// TestGetStreamAheadOfCall: a client that can be asked (elicitation) opens its GET stream right
// after notifications/initialized and sends its call at once; when the call reaches the proxy
// first, long after notifications/initialized (the server was slow to answer it), the proxy
// holds it until the server has the stream, so the server request the call provokes reaches
// the client on it (as it does directly) instead of being lost. A client that can be asked but
// opens no stream is held once, up to the bound, and the transcript says so; a client that
// cannot be asked is not held at all.
func TestGetStreamAheadOfCall(t *testing.T) {
	for _, tc := range []struct {
		name         string
		capabilities string
		opensStream  bool
	}{
		{"stream", `{"elicitation":{}}`, true},
		{"no-stream", `{"sampling":{}}`, false},
		{"cannot-be-asked", `{}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.opensStream {
				// Not a measure of speed: only so that the test does not wait the whole bound.
				defer func(g time.Duration) { getWait = g }(getWait)
				getWait = 300 * time.Millisecond
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
			post := func(body string, session bool) *http.Response {
				t.Helper()
				req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if session {
					req.Header.Set("Mcp-Session-Id", "S1")
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err) // not Fatal: the call is posted from a goroutine of its own
					return &http.Response{}
				}
				_, _ = io.ReadAll(resp.Body)
				resp.Body.Close()
				return resp
			}
			post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+tc.capabilities+`,"clientInfo":{"name":"c","version":"1"}}}`, false)
			post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, true)
			called := make(chan *http.Response, 1)
			go func() {
				called <- post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{}}}`, true)
			}()
			if !tc.opensStream {
				if resp := <-called; resp.StatusCode != http.StatusOK {
					t.Errorf("the call: %d", resp.StatusCode)
				}
				srv.Close()
				_ = tw.Close()
				held := bytes.Contains(tee.Bytes(), []byte(`"event":"held-for-stream"`))
				switch {
				case tc.capabilities == `{}` && held:
					t.Errorf("a client that cannot be asked was held for a GET stream:\n%s", tee.Bytes())
				case tc.capabilities != `{}` && (!held || !bytes.Contains(tee.Bytes(), []byte("its bound")) || !bytes.Contains(tee.Bytes(), []byte("none came"))):
					t.Errorf("the transcript does not say the call waited its bound for a stream:\n%s", tee.Bytes())
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
