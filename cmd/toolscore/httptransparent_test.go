package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// everythingPackage is the third-party streamable HTTP server the transparency test proxies.
const everythingPackage = "@modelcontextprotocol/server-everything@2026.8.31"

// startEverything installs the npm package into a temp dir and serves it over streamable HTTP
// on a free loopback port (its PORT variable); it returns the server's address.
func startEverything(t *testing.T) string {
	t.Helper()
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed: the transparency test installs " + everythingPackage + " with it")
	}
	dir := t.TempDir()
	install := exec.Command(npm, "install", "--prefix", dir, "--no-audit", "--no-fund", everythingPackage)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install %s: %v\n%s", everythingPackage, err, out)
	}
	return serveEverything(t, "node", dir)
}

// serveEverything serves server-everything, installed under dir, over streamable HTTP with node
// on a free loopback port, and returns the server's address.
func serveEverything(t *testing.T, node, dir string) string {
	t.Helper()
	return serveOnPort(t, "server-everything", node, filepath.Join(dir, "node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "streamableHttp")
}

// serveOnPort starts the server name, CMD ARGS, with a free loopback port in its PORT variable,
// stops it when the test ends, and returns its address once it listens there.
func serveOnPort(t *testing.T, name, cmdName string, args ...string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(cmdName, args...)
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not listen on %s: %s", name, addr, logs.String())
		}
	}
}

// startHTTPProxyUpstream starts the real proxy binary relaying to upstream, with flags.
func startHTTPProxyUpstream(t *testing.T, upstream string, flags ...string) *httpProxy {
	t.Helper()
	h := &httpProxy{tee: filepath.Join(t.TempDir(), "tee.jsonl")}
	args := append([]string{"proxy", "--listen", "127.0.0.1:0", "--tee", h.tee, "--upstream", upstream}, flags...)
	h.cmd = exec.Command(os.Args[0], args...)
	h.cmd.Stderr = &h.stderr
	out, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.stop(t) })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the proxy printed no URL: %v; stderr: %s", err, h.stderr.String())
	}
	h.url = strings.TrimSpace(line)
	return h
}

// tap relays TCP to addr and keeps every byte the server sent on each connection: what the
// proxy received, to hold against what the client received.
type tap struct {
	addr  string
	mu    sync.Mutex
	conns []*bytes.Buffer
	wg    sync.WaitGroup
	l     net.Listener
}

func startTap(t *testing.T, server string) *tap {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tp := &tap{addr: l.Addr().String(), l: l}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", server)
			if err != nil {
				c.Close()
				continue
			}
			got := &bytes.Buffer{}
			tp.mu.Lock()
			tp.conns = append(tp.conns, got)
			tp.mu.Unlock()
			tp.wg.Add(1)
			go func() {
				_, _ = io.Copy(s, c)
				s.(*net.TCPConn).CloseWrite()
			}()
			go func() {
				defer tp.wg.Done()
				_, _ = io.Copy(io.MultiWriter(c, &lockedWriter{mu: &tp.mu, w: got}), s)
				c.Close()
			}()
		}
	}()
	t.Cleanup(func() { l.Close() })
	return tp
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (w *lockedWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(b)
}

// seenAnswer is one HTTP answer as compared: status, headers less the hop-by-hop ones and
// Date, and the body's bytes (chunked framing undone).
type seenAnswer struct {
	Status int
	Header http.Header
	Body   string
}

func seen(resp *http.Response, body []byte) seenAnswer {
	h := resp.Header.Clone()
	for _, name := range []string{"Connection", "Keep-Alive", "Proxy-Connection", "Transfer-Encoding", "Te", "Trailer", "Upgrade", "Date"} {
		h.Del(name)
	}
	return seenAnswer{Status: resp.StatusCode, Header: h, Body: string(body)}
}

// answers parses every response the server sent through the tap.
func (tp *tap) answers(t *testing.T) []seenAnswer {
	t.Helper()
	tp.mu.Lock()
	defer tp.mu.Unlock()
	var out []seenAnswer
	for _, b := range tp.conns {
		br := bufio.NewReader(bytes.NewReader(b.Bytes()))
		for {
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				break
			}
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Errorf("reading a server answer off the tap: %v", err)
			}
			out = append(out, seen(resp, body))
		}
	}
	return out
}

// TestTransparentToServerEverything: through the proxy with the clean fault and the as-is
// schema mode, every answer of a real third-party streamable HTTP server (the reference
// TypeScript one, from npm) reaches the client as the server sent it: status, every header but
// the hop-by-hop ones and Date, every byte of the body, SSE events, ids and progress
// notifications included, in a 2025-11-25 session.
func TestTransparentToServerEverything(t *testing.T) {
	tp := startTap(t, startEverything(t))
	h := startHTTPProxyUpstream(t, "http://"+tp.addr+"/mcp", "--fault", "clean", "--schema", "as-is")
	s := newHTTPSession(h.url, false)
	var got []seenAnswer
	post := func(id int, method string, params map[string]any) httpAnswer {
		a := s.post(t, id, method, params)
		got = append(got, seen(a.resp, a.body))
		return a
	}
	init := post(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw-http", "version": "1"}})
	if s.sid = init.resp.Header.Get("Mcp-Session-Id"); s.sid == "" || !bytes.Contains(init.msg, []byte(`"protocolVersion":"2025-11-25"`)) {
		t.Fatalf("initialize: session %q, %s", s.sid, init.msg)
	}
	s.version = "2025-11-25"
	post(0, "notifications/initialized", nil)
	list := post(2, "tools/list", map[string]any{})
	if !bytes.Contains(list.msg, []byte(`"get-structured-content"`)) {
		t.Fatalf("tools/list: %s", list.msg)
	}
	for i, p := range []map[string]any{
		{"name": "echo", "arguments": map[string]any{"message": "héllo \u2028 <b>&amp;</b>"}},
		{"name": "get-sum", "arguments": map[string]any{"a": 1.5e3, "b": 2}},
		{"name": "get-structured-content", "arguments": map[string]any{"location": "Chicago"}},
		{"name": "get-tiny-image", "arguments": map[string]any{}},
		{"name": "trigger-long-running-operation", "arguments": map[string]any{"duration": 0.3, "steps": 3}, "_meta": map[string]any{"progressToken": 7}},
	} {
		a := post(3+i, "tools/call", p)
		if bytes.Contains(a.msg, []byte(`"error"`)) {
			t.Errorf("%s: %s", p["name"], a.msg)
		}
	}
	if progress := got[len(got)-1].Body; !bytes.Contains([]byte(progress), []byte(`notifications/progress`)) {
		t.Errorf("the long operation's stream carried no progress: %s", progress)
	}
	h.stop(t)
	server := tp.answers(t)
	for i, g := range got {
		found := false
		for _, w := range server {
			if sameAnswer(g, w) {
				found = true
				break
			}
		}
		if !found {
			var near seenAnswer
			for _, w := range server {
				if w.Status == g.Status && w.Header.Get("Content-Type") == g.Header.Get("Content-Type") && w.Body[:min(len(w.Body), 8)] == g.Body[:min(len(g.Body), 8)] {
					near = w
				}
			}
			t.Errorf("answer %d is not what the server sent:\n got %s\nnear %s", i, showAnswer(g), showAnswer(near))
		}
	}
	if len(server) != len(got) {
		t.Errorf("the server sent %d answers, the client got %d", len(server), len(got))
	}
}

// sameAnswer says the client got the server's answer. How a body is framed belongs to each hop:
// a body the server sent chunked may reach the client with a Content-Length (Go's server adds
// one to a short answer), if it is the body's length.
func sameAnswer(got, sent seenAnswer) bool {
	if cl := got.Header.Get("Content-Length"); cl != "" && sent.Header.Get("Content-Length") == "" && cl == strconv.Itoa(len(got.Body)) {
		got.Header = got.Header.Clone()
		got.Header.Del("Content-Length")
	}
	return reflect.DeepEqual(got, sent)
}

func showAnswer(a seenAnswer) string {
	b, _ := json.Marshal(a)
	return string(b)
}
