package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolscore/toolscore/fault"
)

// resultFaults lists the faults of a tools/call result, which every transport carries; the
// faults of the HTTP exchange are tested in this file.
func resultFaults() []string {
	var out []string
	for _, name := range fault.Names() {
		if !fault.Transport(name) {
			out = append(out, name)
		}
	}
	return out
}

// goSDKHTTP connects the real go-sdk streamable client to url.
func goSDKHTTP(ctx context.Context, t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "gosdk-http", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callBalance is the target call; a good answer is the ledger's own.
func callBalance(ctx context.Context, cs *mcp.ClientSession) (*mcp.CallToolResult, error) {
	return cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_account_balance", Arguments: map[string]any{"account_id": "ACC-4471"}})
}

func checkLedgerAnswer(t *testing.T, res *mcp.CallToolResult) {
	t.Helper()
	b, _ := json.Marshal(res)
	if res.IsError || !bytes.Contains(b, []byte("40,718.77")) {
		t.Errorf("not the ledger's answer: %s", b)
	}
}

// teeEvents are the transcript's records of the named event.
func teeEvents(t *testing.T, path, event string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, r := range readTee(t, path) {
		if r["event"] == event {
			out = append(out, r)
		}
	}
	return out
}

func formFlags(form string) []string {
	if form == "json" {
		return []string{"--json"}
	}
	return nil
}

// TestTransportFaultRefusedOnStdio: a stdio session has no HTTP exchange to fault.
func TestTransportFaultRefusedOnStdio(t *testing.T) {
	for _, name := range fault.Names() {
		if !fault.Transport(name) {
			continue
		}
		cmd := exec.Command(os.Args[0], "proxy", "--fault", name, "--", os.Args[0], "ledger")
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "--fault "+name+" is a fault of the HTTP exchange: it needs --listen") {
			t.Errorf("%s on stdio: %v, %s", name, err, out)
		}
	}
}

// TestSessionExpiredOverHTTP: the proxy answers 404 to the call on a live session and to every
// later request of it. go-sdk v1.8.0 raises ErrSessionMissing from CallTool and fails the
// session; it does not initialize again by itself: a new Connect does, and then the call
// succeeds.
func TestSessionExpiredOverHTTP(t *testing.T) {
	for _, form := range []string{"sse", "json"} {
		t.Run(form, func(t *testing.T) {
			t.Parallel()
			h := startHTTPProxy(t, []string{"--fault", "session-expired", "--tool", "get_account_balance", "--nth", "1"}, formFlags(form))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cs := goSDKHTTP(ctx, t, h.url)
			old := cs.ID()
			_, err := callBalance(ctx, cs)
			if !errors.Is(err, mcp.ErrSessionMissing) {
				t.Fatalf("go-sdk: %v, want ErrSessionMissing", err)
			}
			if _, err := cs.ListTools(ctx, nil); err == nil {
				t.Error("the failed session still answers")
			}
			// The session stays gone for any client that keeps its id.
			s := newHTTPSession(h.url, false)
			s.sid, s.version = old, "2025-11-25"
			if a := s.post(t, 0, "tools/list", nil); a.resp.StatusCode != http.StatusNotFound {
				t.Errorf("a later request of the expired session: status %d, want 404", a.resp.StatusCode)
			}
			again := goSDKHTTP(ctx, t, h.url)
			if again.ID() == old || again.ID() == "" {
				t.Errorf("the new session's id %q (the old one %q)", again.ID(), old)
			}
			res, err := callBalance(ctx, again)
			if err != nil {
				t.Fatalf("after initializing again: %v", err)
			}
			checkLedgerAnswer(t, res)
			h.stop(t)
			faults := teeEvents(t, h.tee, "http-fault")
			if len(faults) < 2 || faults[0]["fault"] != "session-expired" || faults[1]["fault"] != nil {
				t.Errorf("the transcript's 404s: %v", faults)
			}
			for _, f := range faults {
				if status := f["http"].(map[string]any)["status"]; status != 404.0 {
					t.Errorf("a session-expired record with status %v", status)
				}
			}
			if b, _ := os.ReadFile(h.tee); !bytes.Contains(b, []byte(`"unanswered":[]`)) {
				t.Errorf("the call the server never saw is left unanswered in the transcript")
			}
		})
	}
}

// TestSessionExpiredSessionless: a 2026-07-28 exchange has no session to expire; the call goes
// to the server and the transcript says why.
func TestSessionExpiredSessionless(t *testing.T) {
	h := startHTTPProxy(t, []string{"--fault", "session-expired", "--tool", "get_account_balance"}, []string{"--stateless"})
	_, call, _ := httpExchange(t, h.url, true)
	if !bytes.Contains(call.msg, []byte("40,718.77")) {
		t.Errorf("not the ledger's answer: %s", call.msg)
	}
	h.stop(t)
	faults := teeEvents(t, h.tee, "http-fault")
	if len(faults) != 1 || !strings.Contains(faults[0]["note"].(string), "no session to expire") {
		t.Errorf("the transcript's note: %v", faults)
	}
}

// TestSSECutOverHTTP: the call's SSE stream ends before its response. After the 2025-11-25
// server's priming event (event_id true) go-sdk resumes with Last-Event-ID on a GET and gets the
// response; without it, it raises "request terminated without response". An answer in a JSON
// body has no stream to cut: it goes as sent.
func TestSSECutOverHTTP(t *testing.T) {
	for _, tc := range []struct {
		name, form, options string
		resumes             bool
		raised              string
	}{
		{"resumable", "sse", "", true, ""},
		{"no-event-id", "sse", `{"event_id":false}`, false, "request terminated without response"},
		{"json", "json", "", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			flags := []string{"--fault", "sse-cut", "--tool", "get_account_balance"}
			if tc.options != "" {
				flags = append(flags, "--options", tc.options)
			}
			h := startHTTPProxy(t, flags, formFlags(tc.form))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cs := goSDKHTTP(ctx, t, h.url)
			res, err := callBalance(ctx, cs)
			if tc.raised != "" {
				if err == nil || !strings.Contains(err.Error(), tc.raised) {
					t.Fatalf("go-sdk: %v, want %q", err, tc.raised)
				}
			} else if err != nil {
				t.Fatalf("go-sdk: %v", err)
			} else {
				checkLedgerAnswer(t, res)
			}
			h.stop(t)
			cuts := teeEvents(t, h.tee, "sse-cut")
			if (tc.form == "sse") != (len(cuts) == 1) {
				t.Fatalf("the transcript's cuts: %v", cuts)
			}
			resumed, faulted := false, 0
			for _, r := range readTee(t, h.tee) {
				facts, _ := r["http"].(map[string]any)
				hdr, _ := facts["header"].(map[string]any)
				if facts["method"] == "GET" && hdr["Last-Event-Id"] != nil {
					resumed = true
				}
				if r["fault"] == "sse-cut" && r["dir"] == "to-client" {
					faulted++
					if tc.form == "json" && !strings.Contains(r["note"].(string), "no stream to cut") {
						t.Errorf("the JSON answer's note: %v", r["note"])
					}
				}
			}
			if resumed != tc.resumes || (tc.resumes || tc.form == "json") != (faulted == 1) {
				t.Errorf("resumed with Last-Event-ID: %v, want %v; the answer delivered %d times", resumed, tc.resumes, faulted)
			}
		})
	}
}

// TestHTTPStatusFaultsOverHTTP: 500 and 429 answer the call instead of the server. go-sdk
// v1.8.0 raises them from CallTool ("Internal Server Error", "Too Many Requests") and keeps the
// session: the next call succeeds. It does not retry, nor read Retry-After; a bare client that
// waits Retry-After and sends the call again gets its answer.
func TestHTTPStatusFaultsOverHTTP(t *testing.T) {
	for _, name := range []string{"http-500", "http-429"} {
		for _, form := range []string{"sse", "json"} {
			t.Run(name+"/"+form, func(t *testing.T) {
				t.Parallel()
				h := startHTTPProxy(t, []string{"--fault", name, "--tool", "get_account_balance", "--nth", "1"}, formFlags(form))
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				cs := goSDKHTTP(ctx, t, h.url)
				want := map[string]string{"http-500": "Internal Server Error", "http-429": "Too Many Requests"}[name]
				if _, err := callBalance(ctx, cs); err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("go-sdk: %v, want %q", err, want)
				}
				res, err := callBalance(ctx, cs)
				if err != nil {
					t.Fatalf("the next call: %v", err)
				}
				checkLedgerAnswer(t, res)
				h.stop(t)
				faults := teeEvents(t, h.tee, "http-fault")
				if len(faults) != 1 || faults[0]["fault"] != name {
					t.Errorf("the transcript's faulted exchanges: %v", faults)
				}
			})
		}
	}
}

// TestRetryAfterOverHTTP: the 429 carries Retry-After; a client that waits it out and sends the
// call again gets the ledger's answer.
func TestRetryAfterOverHTTP(t *testing.T) {
	h := startHTTPProxy(t, []string{"--fault", "http-429", "--options", `{"retry_after":"1s"}`, "--tool", "get_account_balance", "--nth", "1"}, nil)
	s := newHTTPSession(h.url, false)
	init := s.post(t, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw-http", "version": "1"}})
	s.sid, s.version = init.resp.Header.Get("Mcp-Session-Id"), "2025-11-25"
	s.post(t, 0, "notifications/initialized", nil)
	call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": callParams()})
	req, _ := http.NewRequest(http.MethodPost, h.url, bytes.NewReader(call))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", s.sid)
	req.Header.Set("MCP-Protocol-Version", s.version)
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("status %d, Retry-After %q; want 429 and 1", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	start := time.Now()
	time.Sleep(time.Second)
	a := s.post(t, 4, "tools/call", callParams())
	if !bytes.Contains(a.msg, []byte("40,718.77")) || time.Since(start) < time.Second {
		t.Errorf("the call sent again after Retry-After: %s", a.msg)
	}
}

// TestSlowFirstByteOverHTTP: the answer's headers come late (unlike latency, which sends an SSE
// answer's headers at once and holds the event); go-sdk waits and gets the answer. A client that
// leaves ends the wait.
func TestSlowFirstByteOverHTTP(t *testing.T) {
	for _, form := range []string{"sse", "json"} {
		t.Run(form, func(t *testing.T) {
			t.Parallel()
			h := startHTTPProxy(t, []string{"--fault", "slow-first-byte", "--options", `{"delay":"400ms"}`, "--tool", "get_account_balance"}, formFlags(form))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cs := goSDKHTTP(ctx, t, h.url)
			start := time.Now()
			res, err := callBalance(ctx, cs)
			if err != nil {
				t.Fatal(err)
			}
			checkLedgerAnswer(t, res)
			if took := time.Since(start); took < 400*time.Millisecond {
				t.Errorf("answered after %v, want at least 400ms", took)
			}
			// The headers themselves are late: a bare client's Do returns with them.
			s := newHTTPSession(h.url, false)
			init := s.post(t, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw-http", "version": "1"}})
			s.sid, s.version = init.resp.Header.Get("Mcp-Session-Id"), "2025-11-25"
			body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": callParams()})
			req, _ := http.NewRequest(http.MethodPost, h.url, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Session-Id", s.sid)
			start = time.Now()
			resp, err := s.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if took := time.Since(start); took < 400*time.Millisecond {
				t.Errorf("the headers came after %v, want at least 400ms", took)
			}
		})
	}
	t.Run("left", func(t *testing.T) {
		t.Parallel()
		h := startHTTPProxy(t, []string{"--fault", "slow-first-byte", "--options", `{"delay":"20s"}`, "--tool", "get_account_balance"}, nil)
		s := newHTTPSession(h.url, false)
		init := s.post(t, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw-http", "version": "1"}})
		s.sid = init.resp.Header.Get("Mcp-Session-Id")
		s.client.Timeout = 300 * time.Millisecond
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": callParams()})
		req, _ := http.NewRequest(http.MethodPost, h.url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", s.sid)
		start := time.Now()
		if _, err := s.client.Do(req); err == nil {
			t.Fatal("the headers came before the 20s delay")
		}
		time.Sleep(200 * time.Millisecond)
		h.stop(t)
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("the proxy stopped %v after the client left", took)
		}
		left := false
		for _, r := range teeEvents(t, h.tee, "http-fault") {
			left = left || strings.Contains(r["note"].(string), "the client left")
		}
		if !left {
			t.Error("the transcript does not say the client left while the headers were held")
		}
	})
}
