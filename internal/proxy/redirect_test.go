package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/internal/transcript"
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

// TestEndpointRedirectStaysRecorded: a server whose MCP endpoint redirects (/mcp to /mcp/, with
// the Location built from the Host it got, as Starlette's redirect_slashes does) keeps the
// exchange on the endpoint the proxy records and faults: the proxy follows the redirect within
// the server's origin, the client's call is recorded and its answer faulted, the transcript says
// the proxy followed it, and the session's later requests go straight to /mcp/.
func TestEndpointRedirectStaysRecorded(t *testing.T) {
	var mu sync.Mutex
	redirects, calls := 0, 0
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.URL.Path == "/mcp" {
			redirects++
			http.Redirect(w, r, "http://"+r.Host+"/mcp/", http.StatusTemporaryRedirect)
			return
		}
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/mcp/" || !strings.Contains(string(body), `"tools/call"`) {
			http.Error(w, "no", http.StatusNotFound)
			return
		}
		calls++
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"balance 1200"}]}}`)
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL + "/mcp")
	var tee bytes.Buffer
	tw := transcript.NewTee(&tee)
	f, _ := fault.New("error", nil)
	p := New(Config{Fault: f, FaultName: "error", Tool: "get_account_balance", Probability: 1, Seed: 1, Schema: AsIs}, tw)
	front := httptest.NewServer(p.Handler(Upstream{URL: u}))
	defer front.Close()
	for range 2 {
		req, _ := http.NewRequest(http.MethodPost, front.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_account_balance","arguments":{}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req) // follows redirects, as the SDKs' clients do
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.Request.URL.Path != "/mcp" || strings.Contains(string(body), "balance 1200") {
			t.Errorf("the client got %q at %s, want the faulted answer at the endpoint /mcp", body, resp.Request.URL.Path)
		}
	}
	front.Close()
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != 2 || redirects != 1 {
		t.Errorf("the server got %d calls at /mcp/ and redirected %d times, want 2 and 1 (later requests go where the redirect led)", calls, redirects)
	}
	var faulted, followed int
	for _, line := range strings.Split(strings.TrimSpace(tee.String()), "\n") {
		var rec struct {
			Dir, Event, Fault string
			HTTP              struct{ Path string }
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Event == "http-request" && rec.HTTP.Path != "/mcp" {
			t.Errorf("a request travelled off the endpoint, unrecorded: %s", line)
		}
		if rec.Dir == transcript.ServerToClient && rec.Fault == "error" {
			faulted++
		}
		if rec.Event == "endpoint-redirect" {
			followed++
		}
	}
	if faulted != 2 || followed != 1 {
		t.Errorf("the transcript has %d faulted answers and %d endpoint-redirect events, want 2 and 1:\n%s", faulted, followed, tee.String())
	}
}
