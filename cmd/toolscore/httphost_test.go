package main

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
)

// TestHostRebindingRejectedThroughProxy: a loopback server's DNS-rebinding protection (the Go
// SDK's, in the real ledger) sees the Host the client sent through the proxy as it does
// directly: a request naming another host is refused with 403 both ways, one naming the loopback
// is served both ways, and the transcript records the Host.
func TestHostRebindingRejectedThroughProxy(t *testing.T) {
	direct := directLedger(t)
	h := startHTTPProxyUpstream(t, direct, "--fault", "clean")
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw-http","version":"1"}}}`
	status := func(endpoint, host string) int {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(initialize))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, endpoint := range []string{direct, h.url} {
		u, _ := url.Parse(endpoint)
		if got := status(endpoint, "evil.example:"+u.Port()); got != http.StatusForbidden {
			t.Errorf("POST %s with Host evil.example: status %d, want 403", endpoint, got)
		}
		if got := status(endpoint, ""); got != http.StatusOK {
			t.Errorf("POST %s with its own Host: status %d, want 200", endpoint, got)
		}
	}
	h.stop(t)
	tee, err := os.ReadFile(h.tee)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(tee), `"host":"evil.example:`) {
		t.Errorf("the transcript does not record the client's Host:\n%s", tee)
	}
}
