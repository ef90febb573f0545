package proxy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// TestSchemaLookupKeepsCredentialsInOrigin: the proxy's own tools/list (for the schema faults)
// goes to --upstream with the --header values; a server that redirects it to another origin (here
// another loopback port) must not get them sent there: the redirect is refused, and why is the
// lookup's error, which the transcript's schema event records.
func TestSchemaLookupKeepsCredentialsInOrigin(t *testing.T) {
	var mu sync.Mutex
	var seen []http.Header
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Clone())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":"toolscore-schema-init","result":{"protocolVersion":"2025-06-18"}}`))
	}))
	defer other.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	u, _ := url.Parse(redirector.URL + "/mcp")
	up := Upstream{URL: u, Header: http.Header{"Authorization": {"Bearer s3cret"}, "X-Api-Key": {"k3y"}}}
	_, err := listSchemasHTTP(context.Background(), up, nil)
	mu.Lock()
	defer mu.Unlock()
	for _, h := range seen {
		if h.Get("Authorization") != "" || h.Get("X-Api-Key") != "" {
			t.Errorf("the other origin got the credentials: Authorization %q, X-Api-Key %q", h.Get("Authorization"), h.Get("X-Api-Key"))
		}
	}
	if err == nil || !strings.Contains(err.Error(), "redirected to another origin") {
		t.Errorf("the lookup's error is %v, want one saying the redirect to another origin was refused", err)
	}
}

// TestSchemaLookupFollowsSameOrigin: a redirect within the upstream's origin is followed, with
// the headers, as a client of that server would.
func TestSchemaLookupFollowsSameOrigin(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/mcp", http.StatusTemporaryRedirect)
			return
		}
		got = r.Header.Get("X-Api-Key")
		w.WriteHeader(http.StatusTeapot)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL + "/old")
	_, err := listSchemasHTTP(context.Background(), Upstream{URL: u, Header: http.Header{"X-Api-Key": {"k3y"}}}, nil)
	if got != "k3y" {
		t.Errorf("the same origin got X-Api-Key %q after the redirect, want k3y (err %v)", got, err)
	}
}
