package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestURLServerUnreachable: a url server that is not an MCP server is refused before any run
// (exit 2, naming the url and what came back), not a `hung` or `threw` of every client under
// exit 0: nothing listening, a 405 to everything, an HTML page, a listener that accepts and never
// answers (within the manifest's timeout), a redirect to another origin (not followed, even to an
// MCP server). One that answers the check's MCP initialize with a JSON-RPC answer, or a JSON-RPC
// error under another status, is swept.
func TestURLServerUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String() + "/mcp"
	l.Close() // nothing listens there now: a connection is refused
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusMethodNotAllowed)
	}))
	t.Cleanup(func() { refusing.Close() })
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, "<!doctype html><html><body><h1>Welcome to our site</h1></body></html>")
	}))
	t.Cleanup(func() { html.Close() })
	// Accepts every connection and says nothing on it.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { silent.Close() })
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	mcp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || !strings.Contains(string(body), `"initialize"`) {
			http.Error(w, "no", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		id := strings.SplitN(strings.SplitN(string(body), `"id":`, 2)[1], ",", 2)[0]
		_, _ = io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":"+id+",\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}\n\n")
	}))
	t.Cleanup(func() { mcp.Close() })
	// Refuses the check's protocol version as an MCP server does: a JSON-RPC error under a 400.
	picky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: Unsupported protocol version"}}`)
	}))
	t.Cleanup(func() { picky.Close() })
	away := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, mcp.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(func() { away.Close() })
	for _, tc := range []struct {
		name, url string
		code      int
		stderr    string
	}{
		{"nothing listens", dead, 2, "url.yaml:3:8: server.url: the server url " + dead + " cannot be reached (network host): Post \"" + dead + "\": dial tcp " + l.Addr().String() + ": connect: connection refused"},
		{"answers 405", refusing.URL + "/mcp", 2, "url.yaml:3:8: server.url: the server url " + refusing.URL + "/mcp (network host): it is not an MCP server: it answered an MCP initialize with HTTP 405 and text/plain: \"no\""},
		{"an HTML page", html.URL + "/mcp", 2, "it is not an MCP server: it answered an MCP initialize with HTTP 200 and text/html: \"<!doctype html><html><body><h1>Welcome to our site"},
		{"silent", "http://" + silent.Addr().String() + "/mcp", 2, "it accepted the connection but sent no answer to an MCP initialize within 1s"},
		{"another origin", away.URL + "/mcp", 2, "it redirected the MCP initialize to another origin, " + mcp.URL + "/mcp, which toolscore does not follow"},
		{"answers initialize", mcp.URL + "/mcp", 0, ""},
		{"a JSON-RPC error under 400", picky.URL + "/mcp", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			manifest := filepath.Join(dir, "url.yaml")
			writeFile(t, manifest, "name: remote\nserver:\n  url: "+tc.url+"\n  network: host\ntool: get_account_balance\narguments: {account_id: ACC-4471}\nfaults: [clean]\nschema_modes: [as-is]\nclients: [raw]\nruns: 1\ntimeout: 1s\n")
			out := filepath.Join(dir, "out")
			_, stderr, code := toolscore(t, "", "run", manifest, "--backend", "local", "--out", out)
			if code != tc.code || !strings.Contains(stderr, tc.stderr) {
				t.Fatalf("exit %d, want %d with %q:\n%s", code, tc.code, tc.stderr, stderr)
			}
			_, err := os.Stat(filepath.Join(out, "runs.jsonl"))
			if ran := err == nil; ran != (tc.code == 0) {
				t.Errorf("runs.jsonl there: %v, want %v", ran, tc.code == 0)
			}
			if _, err := os.Stat(out); tc.code != 0 && err == nil {
				t.Errorf("the refused sweep left %s behind", out)
			}
			if tc.code == 0 {
				if r := runRecords(t, out)["raw"]; r.Outcome == "" {
					t.Errorf("raw: no outcome recorded")
				}
			}
		})
	}
}
