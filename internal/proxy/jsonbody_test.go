package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/toolscore/toolscore/internal/transcript"
)

// TestStreamedJSONBodyMessageByMessage: a server answers a POST with an application/json body
// it keeps open and writes a message at a time (a stateless server's subscriptions/listen). The
// client gets each message through the proxy as soon as the server sent it, as it does directly:
// the server writes its second message only once the client has the first, and ends the body
// only once the client has the second. The transcript records each as its own message.
func TestStreamedJSONBodyMessageByMessage(t *testing.T) {
	gotFirst, gotSecond := make(chan struct{}), make(chan struct{})
	first := `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a"}}`
	second := `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///b"}}`
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		rc := http.NewResponseController(w)
		for i, msg := range []string{first, second} {
			_, _ = io.WriteString(w, msg+"\n")
			_ = rc.Flush()
			select {
			case <-[]chan struct{}{gotFirst, gotSecond}[i]:
			case <-r.Context().Done():
				return
			}
		}
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL + "/mcp")
	var tee bytes.Buffer
	tw := transcript.NewTee(&tee)
	p := New(Config{Tool: "x", Probability: 1, Seed: 1}, tw)
	front := httptest.NewServer(p.Handler(Upstream{URL: u}))
	defer front.Close()

	// Bounds a proxy that holds the body back, so the test fails instead of hanging.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, front.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	for i, want := range []string{first, second} {
		line, err := br.ReadString('\n')
		if err != nil || strings.TrimSpace(line) != want {
			t.Fatalf("message %d through the proxy: %q, %v; want %s while the server holds the body open", i+1, line, err, want)
		}
		close([]chan struct{}{gotFirst, gotSecond}[i])
	}
	if rest, err := io.ReadAll(br); err != nil || len(rest) != 0 {
		t.Errorf("after the two messages: %q, %v", rest, err)
	}
	front.Close()
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, line := range strings.Split(strings.TrimSpace(tee.String()), "\n") {
		var rec struct {
			Dir  string `json:"dir"`
			Wire string `json:"wire"`
			HTTP struct {
				Status int `json:"status"`
			} `json:"http"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Dir == transcript.ServerToClient {
			msgs = append(msgs, rec.Wire)
			if len(msgs) == 1 && rec.HTTP.Status != http.StatusOK {
				t.Errorf("the first message's record has status %d, want the answer's 200", rec.HTTP.Status)
			}
		}
	}
	if len(msgs) != 2 || msgs[0] != first || msgs[1] != second {
		t.Errorf("the transcript's messages to the client: %q, want the two, each its own", msgs)
	}
}

// TestStreamedJSONBodyTrickyValues: a chunked JSON body of several values, sent a byte at a
// time, with braces and escaped quotes inside strings, a batch array and whitespace between, goes
// to the client byte for byte, and the transcript records each value as its own message.
func TestStreamedJSONBodyTrickyValues(t *testing.T) {
	values := []string{
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"} { \" ] [ \\"}}`,
		`[{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}]`,
		`{"jsonrpc":"2.0","id":1,"result":{"text":"\u00e9\\\""}}`,
	}
	body := values[0] + "\r\n" + values[1] + "  \n\t" + values[2]
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		rc := http.NewResponseController(w)
		for i := range len(body) {
			_, _ = io.WriteString(w, body[i:i+1])
			_ = rc.Flush()
		}
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL + "/mcp")
	var tee bytes.Buffer
	tw := transcript.NewTee(&tee)
	p := New(Config{Tool: "x", Probability: 1, Seed: 1}, tw)
	front := httptest.NewServer(p.Handler(Upstream{URL: u}))
	defer front.Close()
	req, _ := http.NewRequest(http.MethodPost, front.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(got) != body {
		t.Errorf("the client got %q (%v), want the server's %q", got, err, body)
	}
	front.Close()
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, line := range strings.Split(strings.TrimSpace(tee.String()), "\n") {
		var rec struct {
			Dir  string `json:"dir"`
			Wire string `json:"wire"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Dir == transcript.ServerToClient {
			msgs = append(msgs, rec.Wire)
		}
	}
	if len(msgs) != len(values) {
		t.Fatalf("the transcript has %d messages to the client, want %d: %q", len(msgs), len(values), msgs)
	}
	for i := range values {
		if msgs[i] != values[i] {
			t.Errorf("message %d recorded as %q, want %q", i+1, msgs[i], values[i])
		}
	}
}
