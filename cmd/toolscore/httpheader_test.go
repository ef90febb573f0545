package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"sync"
	"testing"
)

// TestUpstreamHeaderFromEnv: --header NAME=ENVVAR puts the proxy's variable on every request
// upstream (over a client's own value of that header), and neither value is in the transcript
// or the proxy's output.
func TestUpstreamHeaderFromEnv(t *testing.T) {
	t.Setenv("TOOLSCORE_TEST_TOKEN", "Bearer tok-5f1c")
	t.Setenv("TOOLSCORE_TEST_KEY", "key-9a2e")
	ledger, _ := url.Parse(directLedger(t))
	var mu sync.Mutex
	var seen []http.Header
	relay := relayTo(ledger)
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Clone())
		mu.Unlock()
		relay.ServeHTTP(w, r)
	}))
	defer server.Close()
	h := startHTTPProxyUpstream(t, server.URL+ledger.Path, "--header", "Authorization=TOOLSCORE_TEST_TOKEN", "--header", "X-Api-Key=TOOLSCORE_TEST_KEY", "--fault", "corrupt", "--tool", "get_account_balance")

	s := newHTTPSession(h.url, false)
	s.client.Transport = headerTransport{"X-Api-Key": "client-key-77"}
	init := s.post(t, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw-http", "version": "1"}})
	s.sid, s.version = init.resp.Header.Get("Mcp-Session-Id"), "2025-11-25"
	s.post(t, 0, "notifications/initialized", nil)
	call := s.post(t, 2, "tools/call", callParams())
	checkFault["corrupt"](t, decode(t, call.msg), nil, call.msg)
	h.stop(t)

	mu.Lock()
	defer mu.Unlock()
	if len(seen) < 3 {
		t.Fatalf("the server saw %d requests", len(seen))
	}
	for i, hdr := range seen {
		if hdr.Get("Authorization") != "Bearer tok-5f1c" || len(hdr.Values("X-Api-Key")) != 1 || hdr.Get("X-Api-Key") != "key-9a2e" {
			t.Errorf("request %d reached the server with Authorization %q, X-Api-Key %q", i, hdr.Values("Authorization"), hdr.Values("X-Api-Key"))
		}
	}
	tee, _ := os.ReadFile(h.tee)
	for _, secret := range []string{"tok-5f1c", "key-9a2e", "client-key-77"} {
		if bytes.Contains(tee, []byte(secret)) || bytes.Contains(h.stderr.Bytes(), []byte(secret)) {
			t.Errorf("%s is in the transcript or on the proxy's stderr", secret)
		}
	}
	if !bytes.Contains(tee, []byte(`"X-Api-Key":["[masked]"]`)) {
		t.Errorf("the client's X-Api-Key is not masked in the transcript:\n%s", tee)
	}
}

// headerTransport adds headers to every request a bare client sends.
type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return headerBase.RoundTrip(r)
}

var headerBase = &http.Transport{DisableCompression: true}

// relayTo is a reverse proxy to target's host, as a gateway in front of a server would be. It
// runs full duplex: Go's HTTP/1 server closes a request's body once the answer's headers are
// written, and when the server behind answers before the relay's transport has read that body
// to its end, the transport fails the request and cuts the answer after its first event.
func relayTo(target *url.URL) http.HandlerFunc {
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	return func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).EnableFullDuplex()
		rp.ServeHTTP(w, r)
	}
}
