package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestTransientOnTheWire: the transient fault fails the first target call with its inner fault
// (rate-limited here), and the second call, the retry, gets the server's answer; the transcript
// says the first call was faulted and the second spared, and why.
func TestTransientOnTheWire(t *testing.T) {
	h := startHTTPProxy(t, []string{"--fault", "transient", "--options", `{"inner":"rate-limited"}`, "--tool", "get_account_balance", "--protocol", "2025-11-25"}, nil)
	s := newHTTPSession(h.url, false)
	init := s.post(t, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw-http", "version": "1"}})
	s.sid, s.version = init.resp.Header.Get("Mcp-Session-Id"), "2025-11-25"
	if a := s.post(t, 2, "tools/call", callParams()); !bytes.Contains(a.msg, []byte(`"error":{"code":-32023,"message":"Rate limited","data":{"retryAfter":1}}`)) {
		t.Fatalf("the first call: %s", a.msg)
	}
	if a := s.post(t, 3, "tools/call", callParams()); !bytes.Contains(a.msg, []byte("40,718.77")) {
		t.Fatalf("the retry: %s", a.msg)
	}
	h.stop(t)
	var matches []map[string]any
	for _, r := range readTee(t, h.tee) {
		if m, ok := r["match"].(map[string]any); ok {
			matches = append(matches, m)
		}
	}
	if len(matches) != 2 || matches[0]["fires"] != true || matches[1]["fires"] != false || !strings.Contains(matches[1]["why"].(string), "transient: only the first call fails") {
		t.Errorf("the calls' matches: %v", matches)
	}
}
