package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolscore/toolscore/internal/transcript"
)

// TestHTTPEndlessRequestRefused: a client POSTs one chunked body without end to the proxy's MCP
// endpoint (a proxy that read it whole took 2.1 GB in 20 s). The proxy reads no more than its
// per-message cap of it: the client gets 413 and a JSON-RPC error for the id its first bytes
// name, the server never sees the request, and the transcript records the refusal. The body
// here is 32 MiB against a 64 KiB cap, so a proxy that read it whole would forward it.
func TestHTTPEndlessRequestRefused(t *testing.T) {
	const limit, endless = 64 << 10, 32 << 20
	var upstreamBytes atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		upstreamBytes.Add(n)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":7,"result":{}}`)
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL + "/mcp")
	var tee bytes.Buffer
	tw := transcript.NewTee(&tee)
	p := New(Config{Tool: "x", Probability: 1, Seed: 1, MaxMessage: limit}, tw)
	front := httptest.NewServer(p.Handler(Upstream{URL: u}))
	defer front.Close()

	// A raw connection: the client keeps writing while it reads the answer, as an endless
	// client would; the answer must come all the same.
	conn, err := net.Dial("tcp", strings.TrimPrefix(front.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var sent atomic.Int64
	go func() {
		bw := bufio.NewWriter(conn)
		fmt.Fprintf(bw, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n", strings.TrimPrefix(front.URL, "http://"))
		head := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"a":"`
		fmt.Fprintf(bw, "%x\r\n%s\r\n", len(head), head)
		chunk := bytes.Repeat([]byte("a"), 16<<10)
		for sent.Load() < endless {
			fmt.Fprintf(bw, "%x\r\n", len(chunk))
			bw.Write(chunk)
			bw.WriteString("\r\n")
			if bw.Flush() != nil {
				return
			}
			sent.Add(int64(len(chunk)))
		}
		tail := `"}}}`
		fmt.Fprintf(bw, "%x\r\n%s\r\n0\r\n\r\n", len(tail), tail)
		bw.Flush()
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the proxy's answer: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("the proxy answered %d %q, want 413", resp.StatusCode, body)
	}
	var msg struct {
		ID    json.RawMessage `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &msg); err != nil || string(msg.ID) != "7" || msg.Error.Code != -32600 || !strings.Contains(msg.Error.Message, "65536 bytes") {
		t.Errorf("the answer's body is %q, want a JSON-RPC error for id 7 that names the cap (err %v)", body, err)
	}
	conn.Close()
	front.Close()
	if n := upstreamBytes.Load(); n != 0 {
		t.Errorf("the server got %d bytes of the refused request", n)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	var refused bool
	for _, line := range strings.Split(strings.TrimSpace(tee.String()), "\n") {
		var rec struct {
			Event string
			Note  string
			HTTP  struct{ Status int }
		}
		_ = json.Unmarshal([]byte(line), &rec)
		if rec.Event == "request-refused" && rec.HTTP.Status == 413 && strings.Contains(rec.Note, "not sent to the server") {
			refused = true
		}
	}
	if !refused {
		t.Errorf("the transcript (%d bytes) has no request-refused record", tee.Len())
	}
}
