package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// postAny sends one JSON-RPC request as s.post does and returns the answer whatever its status.
func (s *httpSession) postAny(t *testing.T, id int, method string, params map[string]any) (*http.Response, []byte) {
	t.Helper()
	if s.modern {
		params = modernMeta(params)
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, s.url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.sid != "" {
		req.Header.Set("Mcp-Session-Id", s.sid)
	}
	if s.version != "" {
		req.Header.Set("MCP-Protocol-Version", s.version)
	}
	if s.modern {
		req.Header.Set("Mcp-Method", method)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

// TestHTTP401OnTheWire: a raw client under both protocols makes `after` good calls, then the
// call gets 401 with the Bearer challenge of an expired token (RFC 6750's invalid_token, and
// resource_metadata on the proxy's own origin as the authorization spec puts it), and so does
// every later request of the client; the server never sees them. The transcript says which
// calls were let through and which exchange the fault answered.
func TestHTTP401OnTheWire(t *testing.T) {
	for _, protocol := range []string{"2025-11-25", modernRevision} {
		for _, after := range []int{0, 1} {
			t.Run(protocol+"/after"+strconv.Itoa(after), func(t *testing.T) {
				t.Parallel()
				modern := protocol == modernRevision
				var ledgerFlags []string
				if modern {
					ledgerFlags = []string{"--stateless"}
				}
				opts := `{"after":` + strconv.Itoa(after) + `}`
				h := startHTTPProxy(t, []string{"--fault", "http-401", "--options", opts, "--tool", "get_account_balance", "--protocol", protocol}, ledgerFlags)
				s := newHTTPSession(h.url, modern)
				if modern {
					s.post(t, 1, "server/discover", map[string]any{})
				} else {
					init := s.post(t, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw-http", "version": "1"}})
					s.sid, s.version = init.resp.Header.Get("Mcp-Session-Id"), "2025-11-25"
				}
				s.post(t, 2, "tools/list", map[string]any{})
				for i := range after {
					if a := s.post(t, 10+i, "tools/call", callParams()); !bytes.Contains(a.msg, []byte("40,718.77")) {
						t.Fatalf("good call %d: %s", i+1, a.msg)
					}
				}
				resp, body := s.postAny(t, 20, "tools/call", callParams())
				wantChallenge := `Bearer error="invalid_token", error_description="The access token expired", resource_metadata="` + strings.TrimSuffix(h.url, "/mcp") + `/.well-known/oauth-protected-resource"`
				if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != wantChallenge {
					t.Fatalf("the call after %d good ones: status %d, WWW-Authenticate %q; want 401 and %s\n%s", after, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), wantChallenge, body)
				}
				// The token stays dead: a later request of any method gets the same.
				if resp, _ := s.postAny(t, 21, "tools/list", map[string]any{}); resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != wantChallenge {
					t.Errorf("a later tools/list: status %d, WWW-Authenticate %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
				}
				h.stop(t)
				faults := teeEvents(t, h.tee, "http-fault")
				if len(faults) != 2 || faults[0]["fault"] != "http-401" || faults[1]["fault"] != nil || !strings.Contains(faults[1]["note"].(string), "revoked") {
					t.Errorf("the transcript's 401s: %v", faults)
				}
				var matches []map[string]any
				for _, r := range readTee(t, h.tee) {
					if m, ok := r["match"].(map[string]any); ok {
						matches = append(matches, m)
					}
				}
				if len(matches) != after+1 || matches[after]["fires"] != true {
					t.Fatalf("the calls' matches: %v", matches)
				}
				for _, m := range matches[:after] {
					if m["fires"] != false || !strings.Contains(m["why"].(string), "lets the first 1 calls through") {
						t.Errorf("a good call's match: %v", m)
					}
				}
			})
		}
	}
}
