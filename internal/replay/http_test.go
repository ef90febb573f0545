package replay

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/toolscore/toolscore/internal/transcript"
)

// over is a record of an http cell's transcript: the message and how it travelled.
func over(r *transcript.Record, facts transcript.HTTPFacts) *transcript.Record {
	r.Wire = []byte(strings.TrimSuffix(string(r.Wire), "\n"))
	r.HTTP = &facts
	return r
}

// lockedText is a stderr the test may read while the replay writes it.
type lockedText struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedText) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedText) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// listen serves s over real HTTP and returns its endpoint URL and its stderr.
func listen(t *testing.T, s *Script) (string, *lockedText) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	stderr := &lockedText{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = s.Listen(ctx, "127.0.0.1:0", pw, stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	t.Cleanup(func() { cancel(); <-done })
	return strings.TrimSpace(line), stderr
}

func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// TestListenAnswersAsRecorded plays an http recording to a bare HTTP client: the answer the
// server sent in a JSON body goes in one under the live id, with the recorded session id; the
// one it sent as an SSE event goes as one, with its event id; a notification is accepted; the
// proxy's own 429 answers its request with its Retry-After; and a request the recording lacks
// gets the divergence error in a JSON body, and stderr its line.
func TestListenAnswersAsRecorded(t *testing.T) {
	posted := transcript.HTTPFacts{Method: "POST", Path: "/mcp"}
	jsonAnswer := transcript.HTTPFacts{Method: "POST", Path: "/mcp", Status: 200, Header: map[string][]string{"Content-Type": {"application/json"}, "Mcp-Session-Id": {"S1"}}}
	sseAnswer := transcript.HTTPFacts{Method: "POST", Path: "/mcp", Status: 200, Header: map[string][]string{"Content-Type": {"text/event-stream"}}, EventID: "e1"}
	s := recording(t,
		over(in(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`), posted),
		over(out(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}`), jsonAnswer),
		over(in(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), posted),
		over(in(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`), posted),
		over(out(`{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`), sseAnswer),
		over(in(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t"}}`), posted),
		&transcript.Record{Dir: transcript.Event, Event: "http-fault", HTTP: &transcript.HTTPFacts{Method: "POST", Path: "/mcp", Status: 429, Header: map[string][]string{"Retry-After": {"1"}}}},
	)
	url, stderr := listen(t, s)

	resp, body := post(t, url, `{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"clientInfo":{"name":"other"}}}`)
	if resp.Header.Get("Content-Type") != "application/json" || body != `{"jsonrpc":"2.0","id":"a","result":{"protocolVersion":"2025-11-25"}}` || resp.Header.Get("Mcp-Session-Id") != "S1" {
		t.Errorf("initialize: %s %v %s, want the recorded JSON body under id \"a\" with session S1", resp.Status, resp.Header, body)
	}
	if resp, _ := post(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Errorf("a notification got %s, want 202", resp.Status)
	}
	resp, body = post(t, url, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)
	if resp.Header.Get("Content-Type") != "text/event-stream" || body != "id: e1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"tools\":[]}}\n\n" {
		t.Errorf("tools/list: %s %v %q, want the recorded SSE event under id 7", resp.Status, resp.Header, body)
	}
	resp, _ = post(t, url, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"t"}}`)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" {
		t.Errorf("tools/call: %s %v, want the recorded 429 with Retry-After 1", resp.Status, resp.Header)
	}
	resp, body = post(t, url, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"u"}}`)
	if resp.Header.Get("Content-Type") != "application/json" || !strings.Contains(body, `"id":9,"error":{"code":-32000`) {
		t.Errorf("a request the recording lacks: %s %s, want the divergence error", resp.Status, body)
	}
	if !strings.Contains(stderr.String(), Diverged+"expected ") || !strings.Contains(stderr.String(), `got tools/call {"name":"u"}`) {
		t.Errorf("stderr %q, want the divergence line", stderr.String())
	}
}

// TestListenResumesOnlyAsRecorded: a client that resumes a stream its recorded client did not
// (a newer version that reads Last-Event-ID) has left the recording, which holds nothing for
// that stream: the GET is refused at once, never left open, and stderr says so as a divergence;
// a resumption the recording holds opens its stream.
func TestListenResumesOnlyAsRecorded(t *testing.T) {
	posted := transcript.HTTPFacts{Method: "POST", Path: "/mcp"}
	answer := transcript.HTTPFacts{Method: "POST", Path: "/mcp", Status: 200, Header: map[string][]string{"Content-Type": {"application/json"}}}
	resumed := transcript.HTTPFacts{Method: "GET", Path: "/mcp", Header: map[string][]string{"Last-Event-Id": {"e1"}}}
	steps := []*transcript.Record{
		over(in(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`), posted),
		over(out(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}`), answer),
	}
	for _, c := range []struct {
		name     string
		records  []*transcript.Record
		diverged bool
	}{
		{"the recorded client did not resume", steps, true},
		{"the recorded client resumed", append(steps, &transcript.Record{Dir: transcript.Event, Event: "http-request", HTTP: &resumed}), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			url, stderr := listen(t, recording(t, c.records...))
			req, _ := http.NewRequest(http.MethodGet, url, nil)
			req.Header.Set("Accept", "text/event-stream")
			req.Header.Set("Last-Event-ID", "e1")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			resp, err := http.DefaultClient.Do(req.WithContext(ctx))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.StatusCode == http.StatusBadRequest && strings.Contains(stderr.String(), Diverged+"expected no resumed stream") &&
				strings.Contains(stderr.String(), `got a GET resuming a stream from event id "e1"`); got != c.diverged {
				t.Errorf("GET with Last-Event-ID: %s, stderr %q; diverged %v, want %v", resp.Status, stderr.String(), got, c.diverged)
			}
			if !c.diverged && resp.StatusCode != http.StatusOK {
				t.Errorf("a recorded resumption got %s, want its stream", resp.Status)
			}
		})
	}
}
