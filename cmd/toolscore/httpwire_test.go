package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolscore/toolscore/internal/transcript"
)

// httpProxy is `toolscore proxy --listen 127.0.0.1:0 ... -- toolscore ledger --http ...` running.
type httpProxy struct {
	url, tee string
	cmd      *exec.Cmd
	stderr   bytes.Buffer
}

// startHTTPProxy starts the real proxy binary around the real ledger over streamable HTTP and
// reads the endpoint URL it prints. ledgerFlags go to the ledger (--json, --stateless).
func startHTTPProxy(t *testing.T, proxyFlags, ledgerFlags []string) *httpProxy {
	t.Helper()
	h := &httpProxy{tee: filepath.Join(t.TempDir(), "tee.jsonl")}
	args := append([]string{"proxy", "--listen", "127.0.0.1:0", "--tee", h.tee}, proxyFlags...)
	args = append(append(args, "--", os.Args[0], "ledger", "--http", "127.0.0.1:{port}"), ledgerFlags...)
	h.cmd = exec.Command(os.Args[0], args...)
	h.cmd.Stderr = &h.stderr
	out, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = h.cmd.Process.Kill()
		_ = h.cmd.Wait()
		t.Fatalf("the proxy printed no URL: %v; stderr: %s", err, h.stderr.String())
	}
	h.url = strings.TrimSpace(line)
	t.Cleanup(func() { h.stop(t) })
	return h
}

// stop sends SIGTERM and waits, so the transcript is complete.
func (h *httpProxy) stop(t *testing.T) {
	if h.cmd.ProcessState != nil {
		return
	}
	_ = h.cmd.Process.Signal(syscall.SIGTERM)
	_ = h.cmd.Wait()
}

// httpSession is a bare streamable HTTP client: every request and the bytes of every answer as
// they came, with nothing an SDK would hide.
type httpSession struct {
	url     string
	sid     string // Mcp-Session-Id, once the server gave one
	version string // MCP-Protocol-Version sent with every request but initialize
	modern  bool   // 2026-07-28: the Mcp-Method and Mcp-Name headers, _meta in every request
	client  *http.Client
}

func newHTTPSession(url string, modern bool) *httpSession {
	s := &httpSession{url: url, modern: modern, client: &http.Client{Transport: &http.Transport{DisableCompression: true}}}
	if modern {
		s.version = modernRevision
	}
	return s
}

// httpAnswer is one HTTP answer: the response, its whole body, and the JSON-RPC message in it.
type httpAnswer struct {
	resp *http.Response
	body []byte
	msg  []byte
	// eventID is the id of the SSE event that carried msg.
	eventID string
}

// post sends one JSON-RPC message and reads the whole answer; id 0 sends a notification.
func (s *httpSession) post(t *testing.T, id int, method string, params map[string]any) httpAnswer {
	t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if s.modern {
		params = modernMeta(params)
	}
	if params != nil {
		msg["params"] = params
	}
	if id != 0 {
		msg["id"] = id
	}
	b, _ := json.Marshal(msg)
	req, _ := http.NewRequest(http.MethodPost, s.url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.sid != "" {
		req.Header.Set("Mcp-Session-Id", s.sid)
	}
	if s.version != "" && method != "initialize" {
		req.Header.Set("MCP-Protocol-Version", s.version)
	}
	if s.modern {
		req.Header.Set("Mcp-Method", method)
		if name, ok := params["name"].(string); ok {
			req.Header.Set("Mcp-Name", name)
		}
	}
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: reading the answer: %v", method, err)
	}
	a := httpAnswer{resp: resp, body: body}
	if id == 0 {
		return a
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: status %d: %s", method, resp.StatusCode, body)
	}
	a.msg, a.eventID = findMessage(t, resp.Header.Get("Content-Type"), body, id)
	return a
}

// findMessage is the message answering id in a JSON body or an SSE stream.
func findMessage(t *testing.T, contentType string, body []byte, id int) ([]byte, string) {
	t.Helper()
	ct, _, _ := mime.ParseMediaType(contentType)
	if ct == "application/json" {
		return body, ""
	}
	for _, e := range sseEvents(body) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(e.data, &m) == nil && m.Method == "" && string(m.ID) == fmt.Sprint(id) {
			return e.data, e.id
		}
	}
	t.Fatalf("no answer to request %d in the SSE stream:\n%s", id, body)
	return nil, ""
}

type sseEvent struct {
	id   string
	data []byte
}

// sseEvents splits an SSE stream into its events, as a browser's EventSource reads it.
func sseEvents(body []byte) []sseEvent {
	var out []sseEvent
	var e sseEvent
	var data [][]byte
	for _, line := range strings.Split(strings.ReplaceAll(string(body), "\r\n", "\n"), "\n") {
		if line == "" {
			if data != nil || e.id != "" {
				e.data = bytes.Join(data, []byte("\n"))
				out = append(out, e)
			}
			e, data = sseEvent{}, nil
			continue
		}
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "data":
			data = append(data, []byte(value))
		case "id":
			e.id = value
		}
	}
	return out
}

var callParams = func() map[string]any {
	return map[string]any{"name": "get_account_balance", "arguments": map[string]any{"account_id": "ACC-4471"}}
}

// httpExchange makes a whole session against url and returns the tools/list and tools/call
// answers: a 2025-11-25 session (initialize, the session id on every later request) or a
// 2026-07-28 one (server/discover, then sessionless requests with the Mcp-* headers).
func httpExchange(t *testing.T, url string, modern bool) (list, call httpAnswer, took time.Duration) {
	t.Helper()
	s := newHTTPSession(url, modern)
	if modern {
		d := s.post(t, 1, "server/discover", map[string]any{})
		if d.resp.Header.Get("Mcp-Session-Id") != "" {
			t.Errorf("a 2026-07-28 answer carries a session id: %v", d.resp.Header)
		}
	} else {
		init := s.post(t, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw-http", "version": "1"}})
		if s.sid = init.resp.Header.Get("Mcp-Session-Id"); s.sid == "" {
			t.Fatalf("initialize gave no Mcp-Session-Id: %v", init.resp.Header)
		}
		s.version = "2025-11-25"
		if n := s.post(t, 0, "notifications/initialized", nil); n.resp.StatusCode != http.StatusAccepted {
			t.Fatalf("notifications/initialized: status %d, want 202", n.resp.StatusCode)
		}
	}
	list = s.post(t, 2, "tools/list", map[string]any{})
	start := time.Now()
	call = s.post(t, 3, "tools/call", callParams())
	return list, call, time.Since(start)
}

// directLedger serves the ledger over HTTP without any proxy, for the bytes a fault starts from.
func directLedger(t *testing.T, flags ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"ledger", "--http", "127.0.0.1:0"}, flags...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the ledger printed no URL: %v", err)
	}
	return strings.TrimSpace(line)
}

// TestEveryFaultOverHTTP runs every fault of the catalogue through the real proxy binary around
// the real ledger over streamable HTTP, in both answer forms (SSE, and --json bodies) and under
// both protocol generations, and checks the bytes the client received and the transcript.
func TestEveryFaultOverHTTP(t *testing.T) {
	if len(checkFault) != len(resultFaults()) {
		t.Fatalf("checks for %d faults, registry has %d: %v", len(checkFault), len(resultFaults()), resultFaults())
	}
	for _, form := range []string{"sse", "json"} {
		for _, protocol := range []string{"2025-11-25", modernRevision} {
			modern := protocol == modernRevision
			var ledgerFlags []string
			if form == "json" {
				ledgerFlags = append(ledgerFlags, "--json")
			}
			if modern {
				// The go-sdk serves 2026-07-28 over HTTP only without sessions.
				ledgerFlags = append(ledgerFlags, "--stateless")
			}
			directList, directCall, _ := httpExchange(t, directLedger(t, ledgerFlags...), modern)
			for _, name := range resultFaults() {
				// A fault of the listing changes what a published schema says: it is seen there too.
				schemas := []string{"hidden"}
				if checkListFault[name] != nil {
					schemas = append(schemas, "published")
				}
				for _, schema := range schemas {
					label := name + "/" + form + "/" + protocol
					if schema != "hidden" {
						label += "/" + schema
					}
					t.Run(label, func(t *testing.T) {
						t.Parallel()
						flags := []string{"--fault", name, "--tool", "get_account_balance", "--schema", schema, "--protocol", protocol}
						if name == "latency" {
							flags = append(flags, "--options", `{"latency":"150ms"}`)
						}
						h := startHTTPProxy(t, flags, ledgerFlags)
						list, call, took := httpExchange(t, h.url, modern)
						if check, ok := checkListFault[name]; ok {
							check(t, schema, list.msg, directList.msg)
						} else {
							checkSchemaMode(t, schema, list.msg, directList.msg)
						}
						checkFault[name](t, decode(t, call.msg), directCall.msg, call.msg)
						if name == "latency" && took < 150*time.Millisecond {
							t.Errorf("latency answered after %v, want at least 150ms", took)
						}
						if name == "schema-drift" {
							// Its notification goes before the answer: a JSON answer becomes a stream.
							checkForm(t, "sse", call)
						} else {
							checkForm(t, form, call)
						}
						checkForm(t, form, list)
						h.stop(t)
						checkTee(t, h.tee, name, call.msg)
						checkIntroduced(t, h.tee, name, call.msg)
						checkHTTPTee(t, h.tee, name, call, modern)
						if checkListFault[name] != nil {
							checkListTee(t, h.tee, name, schema, list.msg)
						}
					})
				}
			}
		}
	}
}

// checkForm checks an answer came in the form the server sends, with headers that fit its body.
func checkForm(t *testing.T, form string, a httpAnswer) {
	t.Helper()
	ct, _, _ := mime.ParseMediaType(a.resp.Header.Get("Content-Type"))
	switch form {
	case "json":
		if ct != "application/json" {
			t.Errorf("want an application/json answer, got %q", ct)
		}
		if a.resp.ContentLength != int64(len(a.body)) {
			t.Errorf("Content-Length %d, body %d bytes", a.resp.ContentLength, len(a.body))
		}
	case "sse":
		if ct != "text/event-stream" {
			t.Errorf("want a text/event-stream answer, got %q", ct)
		}
	}
}

// checkHTTPTee checks the HTTP facts of the transcript: the faulted answer's status and event id,
// the session id on the requests of a 2025 session, credentials masked.
func checkHTTPTee(t *testing.T, path, name string, call httpAnswer, modern bool) {
	t.Helper()
	entries, err := transcript.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	req, ans := transcript.TargetAnswer(entries)
	if req == nil || ans == nil {
		t.Fatalf("the transcript has no target call (%v) or no answer to it (%v)", req != nil, ans != nil)
	}
	wire := ans.Wire
	if ans.Large != nil {
		// Too large to hold in memory (oversize-1mb): read from the transcript's file.
		rc, err := ans.OpenWire()
		if err != nil {
			t.Fatal(err)
		}
		wire, err = io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		wire = bytes.TrimRight(wire, "\r\n")
	}
	if !bytes.Equal(wire, call.msg) {
		t.Errorf("the transcript's answer is not what the client got:\n got %.300s\nwant %.300s", wire, call.msg)
	}
	if req.HTTP == nil || req.HTTP.Method != "POST" || req.HTTP.Path != "/mcp" {
		t.Fatalf("the request's HTTP facts: %+v", req.HTTP)
	}
	if sid := req.HTTP.Header["Mcp-Session-Id"]; modern == (len(sid) == 1) {
		t.Errorf("the request's session id: %v (modern: %v)", sid, modern)
	}
	if modern && req.HTTP.Header["Mcp-Name"][0] != "get_account_balance" {
		t.Errorf("the request's Mcp-Name: %v", req.HTTP.Header["Mcp-Name"])
	}
	if ans.HTTP == nil || ans.HTTP.EventID != call.eventID {
		t.Errorf("the answer's HTTP facts %+v, want event id %q", ans.HTTP, call.eventID)
	}
}

// readEvents reads SSE events off a live stream until stop says enough, or the stream ends.
func readEvents(t *testing.T, body io.Reader, stop func(sseEvent) bool) []sseEvent {
	t.Helper()
	br := bufio.NewReader(body)
	var raw []byte
	var got []sseEvent
	for {
		line, err := br.ReadBytes('\n')
		raw = append(raw, line...)
		if bytes.Equal(bytes.TrimRight(line, "\r\n"), nil) && len(line) > 0 {
			evs := sseEvents(raw)
			if len(evs) > len(got) {
				e := evs[len(evs)-1]
				got = append(got, e)
				if stop(e) {
					return got
				}
			}
		}
		if err != nil {
			return got
		}
	}
}

// TestHTTPSessionThroughTheProxy: a 2025-11-25 session's transport passes the proxy untouched:
// the GET stream, a POST stream cut by the client and resumed with Last-Event-ID (its answer
// still faulted, the header as the client sent it), and DELETE ending the session.
func TestHTTPSessionThroughTheProxy(t *testing.T) {
	h := startHTTPProxy(t, []string{"--fault", "corrupt", "--tool", "get_account_balance"}, nil)
	s := newHTTPSession(h.url, false)
	init := s.post(t, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw-http", "version": "1"}})
	s.sid, s.version = init.resp.Header.Get("Mcp-Session-Id"), "2025-11-25"
	s.post(t, 0, "notifications/initialized", nil)
	do := func(method string, body []byte, header ...string) *http.Response {
		req, _ := http.NewRequest(method, h.url, bytes.NewReader(body))
		req.Header.Set("Mcp-Session-Id", s.sid)
		req.Header.Set("MCP-Protocol-Version", s.version)
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer sekret-token")
		for i := 0; i < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := s.client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		return resp
	}

	// The GET stream opens as the server opens it.
	get := do(http.MethodGet, nil)
	if ct := get.Header.Get("Content-Type"); get.StatusCode != http.StatusOK || ct != "text/event-stream" {
		t.Fatalf("GET stream: status %d, %q", get.StatusCode, ct)
	}
	get.Body.Close()

	// A call whose stream the client cuts after the first event, then resumes.
	call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": callParams()})
	post := do(http.MethodPost, call)
	first := readEvents(t, post.Body, func(sseEvent) bool { return true })
	post.Body.Close()
	if len(first) != 1 || first[0].id == "" {
		t.Fatalf("want the stream's first event with an id to resume from, got %+v", first)
	}
	// Until the server has seen the cut, it holds the stream as the POST's and answers a resumption
	// 409 (go-sdk's acquireStream): the client tries again, as a resuming client waits its delay.
	resumed := do(http.MethodGet, nil, "Last-Event-ID", first[0].id)
	for deadline := time.Now().Add(10 * time.Second); resumed.StatusCode == http.StatusConflict && time.Now().Before(deadline); {
		resumed.Body.Close()
		time.Sleep(20 * time.Millisecond)
		resumed = do(http.MethodGet, nil, "Last-Event-ID", first[0].id)
	}
	defer resumed.Body.Close()
	if resumed.StatusCode != http.StatusOK {
		t.Fatalf("the resumption: status %d", resumed.StatusCode)
	}
	var answerEvent sseEvent
	readEvents(t, resumed.Body, func(e sseEvent) bool {
		if bytes.Contains(e.data, []byte(`"id":3`)) {
			answerEvent = e
			return true
		}
		return false
	})
	if answerEvent.data == nil {
		t.Fatal("the resumed stream never carried the call's answer")
	}
	checkFault["corrupt"](t, decode(t, answerEvent.data), nil, answerEvent.data)
	resumed.Body.Close()

	// DELETE ends the session; the server then knows it no more.
	if del := do(http.MethodDelete, nil); del.StatusCode >= 300 {
		t.Errorf("DELETE: status %d", del.StatusCode)
	}
	if after := do(http.MethodPost, call); after.StatusCode != http.StatusNotFound {
		t.Errorf("a POST after DELETE: status %d, want 404", after.StatusCode)
	}
	h.stop(t)

	// The transcript has the resumption's header exactly as sent, its answer faulted, and no
	// credential.
	if b, _ := os.ReadFile(h.tee); bytes.Contains(b, []byte("sekret-token")) || !bytes.Contains(b, []byte(`"Authorization":["[masked]"]`)) {
		t.Errorf("the transcript shows the Authorization header's value, or does not mask it")
	}
	var lastEventID bool
	faulted := 0
	for _, r := range readTee(t, h.tee) {
		facts, _ := r["http"].(map[string]any)
		hdr, _ := facts["header"].(map[string]any)
		if v, _ := hdr["Last-Event-Id"].([]any); len(v) == 1 && v[0] == first[0].id && facts["method"] == "GET" {
			lastEventID = true
		}
		if r["fault"] == "corrupt" {
			faulted++
		}
	}
	if !lastEventID || faulted == 0 {
		t.Errorf("the transcript lacks the GET with Last-Event-ID %s (%v) or the faulted answer (%d)", first[0].id, lastEventID, faulted)
	}
}

// TestGoSDKClientOverHTTP: the real go-sdk streamable client, through the proxy, in both answer
// forms, gets the fault's answer as the proxy sent it, and the ledger's tools without
// outputSchema under the hidden schema mode.
func TestGoSDKClientOverHTTP(t *testing.T) {
	for _, form := range []string{"sse", "json"} {
		t.Run(form, func(t *testing.T) {
			t.Parallel()
			var ledgerFlags []string
			if form == "json" {
				ledgerFlags = []string{"--json"}
			}
			h := startHTTPProxy(t, []string{"--fault", "type-swap", "--tool", "get_account_balance"}, ledgerFlags)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c := mcp.NewClient(&mcp.Implementation{Name: "gosdk-http", Version: "1"}, nil)
			cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: h.url}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range tools.Tools {
				if tool.OutputSchema != nil {
					t.Errorf("tool %s kept its outputSchema under the hidden mode", tool.Name)
				}
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_account_balance", Arguments: map[string]any{"account_id": "ACC-4471"}})
			if err != nil {
				t.Fatal(err)
			}
			s, _ := res.StructuredContent.(map[string]any)
			if s["balance_minor"] != "4071877" {
				t.Errorf(`the go-sdk client got balance_minor %#v, want the string "4071877"`, s["balance_minor"])
			}
		})
	}
}

// TestHTTPProtocolCap: under a cap below 2026-07-28 the proxy answers server/discover itself,
// in an application/json body, as a 2025-era server would; the server never sees it.
func TestHTTPProtocolCap(t *testing.T) {
	h := startHTTPProxy(t, []string{"--protocol", "2025-11-25"}, nil)
	s := newHTTPSession(h.url, true)
	s.version = ""
	d := s.post(t, 1, "server/discover", map[string]any{})
	if ct := d.resp.Header.Get("Content-Type"); ct != "application/json" || d.resp.ContentLength != int64(len(d.body)) {
		t.Errorf("the proxy's answer: %q, Content-Length %d for %d bytes", ct, d.resp.ContentLength, len(d.body))
	}
	if want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`; string(d.body) != want {
		t.Errorf("server/discover under 2025-11-25:\n got %s\nwant %s", d.body, want)
	}
	h.stop(t)
	for _, r := range readTee(t, h.tee) {
		if r["dir"] == "event" && r["event"] == "http-response" {
			t.Errorf("server/discover reached the server: %v", r)
		}
	}
}

// TestHTTPLatencyLeft: a client that leaves while latency holds its answer ends the wait.
func TestHTTPLatencyLeft(t *testing.T) {
	h := startHTTPProxy(t, []string{"--fault", "latency", "--options", `{"latency":"20s"}`, "--tool", "get_account_balance"}, []string{"--json"})
	s := newHTTPSession(h.url, false)
	init := s.post(t, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw-http", "version": "1"}})
	s.sid, s.version = init.resp.Header.Get("Mcp-Session-Id"), "2025-11-25"
	s.client.Timeout = 300 * time.Millisecond
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": callParams()})
	req, _ := http.NewRequest(http.MethodPost, h.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", s.sid)
	start := time.Now()
	if _, err := s.client.Do(req); err == nil {
		t.Fatal("the call answered before its 20s latency")
	}
	time.Sleep(200 * time.Millisecond)
	h.stop(t)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the proxy stopped %v after the client left: the latency still held the exchange", took)
	}
	found := false
	for _, r := range readTee(t, h.tee) {
		if r["fault"] == "latency" {
			found = true
		}
	}
	if !found {
		t.Error("the transcript lacks the held answer")
	}
}
