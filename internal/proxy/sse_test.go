package proxy

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/internal/transcript"
)

// sseAnswer is an SSE answer the way some servers write it: CRLF line endings, comments,
// retry lines (alone in an event, and beside an id), a notification first, then the response.
const sseAnswer = ": a comment the server sends to keep the stream open\r\n" +
	"retry: 1500\r\n" +
	"\r\n" +
	"id: e1\r\n" +
	"event: message\r\n" +
	`data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}` + "\r\n" +
	"\r\n" +
	": the answer\r\n" +
	"id: e2\r\n" +
	"retry: 3000\r\n" +
	"event: message\r\n" +
	`data: {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"ACC-4471: balance 40,718.77 USD as of 2026-03-31"}],"structuredContent":{"account_id":"ACC-4471","balance_minor":4071877}}}` + "\r\n" +
	"\r\n"

// TestSSELinesKept: through the HTTP relay, comments, retry lines and CRLF endings reach the
// client as the server wrote them, untouched by the clean fault and around the one data line
// a rewriting fault replaces, which keeps the event's CRLF.
func TestSSELinesKept(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, sseAnswer)
	}))
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL + "/mcp")
	for _, name := range []string{"clean", "error"} {
		t.Run(name, func(t *testing.T) {
			f, err := fault.New(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			var tee bytes.Buffer
			tw := transcript.NewTee(&tee)
			p := New(Config{Fault: f, FaultName: name, Tool: "get_account_balance", Probability: 1, Seed: 1}, tw)
			srv := httptest.NewServer(p.Handler(Upstream{URL: u}))
			defer srv.Close()
			call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_account_balance","arguments":{"account_id":"ACC-4471"}}}`
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(call))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatalf("%v after %q", err, body)
			}
			if name == "clean" {
				if string(body) != sseAnswer {
					t.Errorf("the clean relay changed the stream:\n got %q\nwant %q", body, sseAnswer)
				}
				return
			}
			got, want := strings.SplitAfter(string(body), "\r\n"), strings.SplitAfter(sseAnswer, "\r\n")
			if len(got) != len(want) {
				t.Fatalf("the stream has %d lines, the server's %d:\n%q", len(got), len(want), body)
			}
			for i := range want {
				if !strings.HasPrefix(want[i], "data: ") || !strings.Contains(want[i], `"id":3`) {
					if got[i] != want[i] {
						t.Errorf("line %d: %q, the server's %q", i, got[i], want[i])
					}
					continue
				}
				msg, ok := strings.CutPrefix(got[i], "data: ")
				var m struct {
					ID     int `json:"id"`
					Result struct {
						IsError bool `json:"isError"`
					} `json:"result"`
				}
				if !ok || !strings.HasSuffix(msg, "}\r\n") || json.Unmarshal([]byte(msg), &m) != nil || m.ID != 3 || !m.Result.IsError {
					t.Errorf("the answer's data line: %q, want the error fault's answer ending in CRLF", got[i])
				}
			}
			srv.Close()
			if err := tw.Close(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(tee.Bytes(), []byte(`"event_id":"e2"`)) {
				t.Errorf("the transcript lacks the answer's event id:\n%s", tee.Bytes())
			}
		})
	}
}
