package proxy

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/toolscore/toolscore/internal/transcript"
)

// seenRequest is one request as the echo server got it.
type seenRequest struct {
	Method, Host, URI string
	Header            http.Header
	Body              string
}

// echoServer records every request and answers as a streamable HTTP server would: a JSON
// answer to a POST on /mcp, an SSE stream to a GET there, 200 to a DELETE, and a small JSON
// document on any other path.
type echoServer struct {
	mu   sync.Mutex
	seen []seenRequest
}

func (e *echoServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	e.mu.Lock()
	e.seen = append(e.seen, seenRequest{Method: r.Method, Host: r.Host, URI: r.RequestURI, Header: r.Header.Clone(), Body: string(body)})
	e.mu.Unlock()
	switch {
	case r.URL.Path != "/mcp":
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"path":"`+r.URL.Path+`"}`)
	case r.Method == http.MethodPost:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	case r.Method == http.MethodGet:
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "id: g1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n")
	}
}

// TestHTTPRequestsReachServerAsSent: through the HTTP relay, the Host, path, query string and
// every header but the hop-by-hop ones reach the server as the client sent them, on the MCP
// endpoint (POST, the GET stream, DELETE) and on every other path (OAuth's well-known documents,
// /register, /authorize), each forwarded to its own path; the transcript records the request
// line and the Host. Accept-Encoding is dropped on the MCP endpoint only, where the proxy must
// read the answers.
func TestHTTPRequestsReachServerAsSent(t *testing.T) {
	echo := &echoServer{}
	upstream := httptest.NewServer(echo)
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL + "/mcp")
	var tee bytes.Buffer
	tw := transcript.NewTee(&tee)
	p := New(Config{Tool: "get_account_balance", Probability: 1, Seed: 1}, tw)
	srv := httptest.NewServer(p.Handler(Upstream{URL: u}))
	defer srv.Close()
	proxyHost := strings.TrimPrefix(srv.URL, "http://")
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	cases := []struct {
		method, uri, host, body string
		header                  http.Header
		mcp                     bool
	}{
		{method: "POST", uri: "/mcp", host: proxyHost, mcp: true, body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, header: http.Header{
			"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}, "Mcp-Protocol-Version": {"2025-11-25"},
			"Authorization": {"Bearer t-1"}, "X-Forwarded-For": {"203.0.113.9"}, "X-Multi": {"a", "b"}, "User-Agent": {"echo-test/1"},
		}},
		{method: "POST", uri: "/mcp?tenant=a%20b&x=1", host: "localhost" + proxyHost[strings.LastIndex(proxyHost, ":"):], mcp: true, body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, header: http.Header{
			"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}, "Mcp-Session-Id": {"s-1"}, "User-Agent": {"echo-test/1"},
		}},
		{method: "GET", uri: "/mcp", host: proxyHost, mcp: true, header: http.Header{
			"Accept": {"text/event-stream"}, "Mcp-Session-Id": {"s-1"}, "Last-Event-Id": {"e0"}, "Forwarded": {"for=192.0.2.60"}, "User-Agent": {"echo-test/1"},
		}},
		{method: "DELETE", uri: "/mcp", host: proxyHost, mcp: true, header: http.Header{"Mcp-Session-Id": {"s-1"}, "User-Agent": {"echo-test/1"}}},
		{method: "GET", uri: "/.well-known/oauth-protected-resource/mcp?q=1", host: proxyHost, header: http.Header{
			"Accept": {"application/json"}, "Accept-Encoding": {"gzip, br"}, "User-Agent": {"echo-test/1"}, "X-Forwarded-Host": {"example.test"},
		}},
		{method: "POST", uri: "/register", host: proxyHost, body: `{"redirect_uris":["http://127.0.0.1:5/cb"]}`, header: http.Header{
			"Content-Type": {"application/json"}, "User-Agent": {"echo-test/1"}, "Cookie": {"c=1"},
		}},
		{method: "GET", uri: "/authorize?response_type=code&state=s%2F1&resource=http%3A%2F%2Fx", host: "evil.example:80", header: http.Header{"User-Agent": {"echo-test/1"}}},
	}
	for _, c := range cases {
		req, err := http.NewRequest(c.method, srv.URL+c.uri, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = c.host
		req.Header = c.header.Clone()
		// A hop-by-hop header is for the proxy alone.
		req.Header.Set("Connection", "X-Hop")
		req.Header.Set("X-Hop", "1")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", c.method, c.uri, err)
		}
		_, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s %s: status %d", c.method, c.uri, resp.StatusCode)
		}
	}
	srv.Close()
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}

	echo.mu.Lock()
	defer echo.mu.Unlock()
	if len(echo.seen) != len(cases) {
		t.Fatalf("the server saw %d requests, the client sent %d", len(echo.seen), len(cases))
	}
	for i, c := range cases {
		got := echo.seen[i]
		want := seenRequest{Method: c.method, Host: c.host, URI: c.uri, Header: c.header.Clone(), Body: c.body}
		if c.body != "" {
			want.Header.Set("Content-Length", strconv.Itoa(len(c.body)))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("request %d reached the server as\n%+v\nthe client sent\n%+v", i, got, want)
		}
	}
	var recs []struct {
		Event string                `json:"event"`
		HTTP  *transcript.HTTPFacts `json:"http"`
	}
	for _, line := range bytes.Split(bytes.TrimSpace(tee.Bytes()), []byte("\n")) {
		var r struct {
			Event string                `json:"event"`
			HTTP  *transcript.HTTPFacts `json:"http"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		if r.HTTP != nil && r.HTTP.Status == 0 && r.HTTP.Host != "" {
			recs = append(recs, r)
		}
	}
	if len(recs) != len(cases) {
		t.Fatalf("the transcript has %d requests with their Host, want %d:\n%s", len(recs), len(cases), tee.Bytes())
	}
	for i, c := range cases {
		path, query, _ := strings.Cut(c.uri, "?")
		if h := recs[i].HTTP; h.Method != c.method || h.Path != path || h.Query != query || h.Host != c.host {
			t.Errorf("transcript request %d: %s %s ? %s Host %s, want %s %s Host %s", i, h.Method, h.Path, h.Query, h.Host, c.method, c.uri, c.host)
		}
	}
}

// TestUpstreamHost: the Host a request carries upstream. A loopback server gets the client's
// Host, whatever it is (its DNS-rebinding check must see it); a remote one gets the client's
// Host only where it names that server, its own name in place of any other (TLS and virtual
// hosting expect it, and a client must not pick the virtual host behind a shared front).
func TestUpstreamHost(t *testing.T) {
	for _, c := range []struct {
		upstream, host, want string
	}{
		{"http://127.0.0.1:9000/mcp", "127.0.0.1:8000", "127.0.0.1:8000"},
		{"http://localhost:9000/mcp", "localhost:8000", "localhost:8000"},
		{"http://127.0.0.1:9000/mcp", "evil.example:8000", "evil.example:8000"},
		{"http://[::1]:9000/mcp", "evil.example", "evil.example"},
		{"https://mcp.example.com/mcp", "127.0.0.1:8000", "mcp.example.com"},
		{"https://mcp.example.com:8443/mcp", "localhost:8000", "mcp.example.com:8443"},
		{"https://mcp.example.com/mcp", "10.1.2.3:8000", "mcp.example.com"},
		{"https://mcp.example.com/mcp", "localhost", "mcp.example.com"},
		{"https://mcp.example.com/mcp", "localhost:8001", "mcp.example.com"},
		{"https://mcp.example.com/mcp", "evil.example:8000", "mcp.example.com"},
		{"https://mcp.example.com/mcp", "admin.example.com", "mcp.example.com"},
		{"https://mcp.example.com/mcp", "MCP.example.com:443", "MCP.example.com:443"},
		{"https://mcp.example.com/mcp", "mcp.example.com:8443", "mcp.example.com"},
	} {
		u, _ := url.Parse(c.upstream)
		if got := upstreamHost(u, c.host); got != c.want {
			t.Errorf("upstream %s, client's Host %q: %q upstream, want %q", c.upstream, c.host, got, c.want)
		}
	}
}
