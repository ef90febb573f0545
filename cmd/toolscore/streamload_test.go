package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestNoLostCallUnderLoad: sessions of a client that can be asked (elicitation), each opening
// its GET stream and sending its call at once after notifications/initialized, through the real
// proxy binary to a real server process that behaves as the TypeScript SDK's (its elicitation
// goes on the session's GET stream, dropped when the server has none yet) and, loaded, takes
// 150 ms to answer notifications/initialized, with every core of the machine busy: no call is
// lost or hangs. Half the sessions start the call's request first, half the GET's. Before the
// proxy held a session's requests until its GET stream was open, a call sent after the 100 ms
// window that followed notifications/initialized went straight on and could reach the server
// ahead of the GET, its elicitation lost (the TypeScript SDK's server then waits 60 s for the
// answer): 6 to 8 of 20 sessions, 55 of 200. This Go client and server keep no order of their
// own between the two connections (directly, 100 of 200 lost here, where the TypeScript SDK's
// pair loses none): through the proxy the GET goes first whichever came first.
// 20 sessions in CI; 200 under TOOLSCORE_FULL=1 (scripts/nightly).
func TestNoLostCallUnderLoad(t *testing.T) {
	sessions := 20
	if fullProduct() {
		sessions = 200
	}
	server := serveOnPort(t, "the elicitation server", os.Args[0], "badserver", "elicit-http")
	hog(t)
	proxy := startHTTPProxyUpstream(t, "http://"+server+"/mcp", "--fault", "clean", "--schema", "as-is")
	var lost, hung, answered atomic.Int64
	var failures sync.Map
	var wg sync.WaitGroup
	slots := make(chan struct{}, 4) // a few sessions at a time, as a busy machine has them
	for i := range sessions {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			outcome, err := elicitSession(proxy.url, i%2 == 0)
			switch outcome {
			case "answered":
				answered.Add(1)
			case "lost":
				lost.Add(1)
			default:
				hung.Add(1)
			}
			if err != nil {
				failures.Store(i, err)
			}
		}()
	}
	wg.Wait()
	t.Logf("%d sessions through the proxy, every core busy: %d answered, %d lost, %d hung", sessions, answered.Load(), lost.Load(), hung.Load())
	failures.Range(func(k, v any) bool {
		t.Errorf("session %d: %v", k, v)
		return true
	})
	if lost.Load()+hung.Load() > 0 {
		t.Errorf("%d calls lost their elicitation and %d hung through the proxy; want none", lost.Load(), hung.Load())
	}
	// Every client opened its GET stream: no request waited out the bound.
	proxy.stop(t)
	tee, _ := os.ReadFile(proxy.tee)
	if bytes.Contains(tee, []byte("its bound")) {
		t.Errorf("a request waited the bound for a GET stream that came:\n%s", grepLines(tee, "held-for-stream"))
	}
}

// hog keeps every core busy until the test ends: a spinning process per CPU, each stopped by
// its pid.
func hog(t *testing.T) {
	t.Helper()
	for range runtime.NumCPU() {
		cmd := exec.Command(os.Args[0], "badserver", "spin")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
	}
}

func grepLines(b []byte, s string) []byte {
	var out []byte
	for line := range bytes.Lines(b) {
		if bytes.Contains(line, []byte(s)) {
			out = append(out, line...)
		}
	}
	return out
}

// elicitSession is one session of a client that can be asked, as the TypeScript SDK's client
// opens it: initialize, notifications/initialized, then its GET stream and its call at once
// (callFirst: the call's request goes first), answering the server's elicitation on the stream.
// It says whether the call was answered, its elicitation lost (the server said it had no
// stream), or hung (no answer in 30 s).
func elicitSession(url string, callFirst bool) (string, error) {
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	post := func(sid, body string) (*http.Response, []byte, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp, b, err
	}
	resp, _, err := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"load","version":"1"}}}`)
	if err != nil {
		return "hung", fmt.Errorf("initialize: %w", err)
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	if _, _, err := post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return "hung", fmt.Errorf("notifications/initialized: %w", err)
	}
	type answer struct {
		body []byte
		err  error
	}
	called := make(chan answer, 1)
	call := func() {
		_, b, err := post(sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
		called <- answer{b, err}
	}
	streamErr := make(chan error, 1)
	stream := func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		resp, err := client.Do(req)
		if err != nil {
			streamErr <- err
			return
		}
		defer resp.Body.Close()
		lines := bufio.NewScanner(resp.Body)
		for lines.Scan() {
			data, ok := strings.CutPrefix(lines.Text(), "data: ")
			if !ok {
				continue
			}
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal([]byte(data), &msg) != nil || msg.Method != "elicitation/create" {
				continue
			}
			if _, _, err := post(sid, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"action":"accept","content":{}}}`); err != nil {
				streamErr <- fmt.Errorf("answering the elicitation: %w", err)
				return
			}
		}
	}
	if callFirst {
		go call()
		go stream()
	} else {
		go stream()
		go call()
	}
	select {
	case a := <-called:
		switch {
		case a.err != nil && ctx.Err() != nil:
			return "hung", nil
		case a.err != nil:
			return "hung", fmt.Errorf("the call: %w", a.err)
		case bytes.Contains(a.body, []byte(elicitLost)):
			return "lost", nil
		case bytes.Contains(a.body, []byte(`"result"`)):
			return "answered", nil
		default:
			return "hung", fmt.Errorf("the call was answered %s", a.body)
		}
	case err := <-streamErr:
		if errors.Is(err, context.DeadlineExceeded) {
			return "hung", nil
		}
		return "hung", fmt.Errorf("the GET stream: %w", err)
	}
}

// elicitLost is what the elicitation server answers a call whose elicitation it dropped.
const elicitLost = "dropped: the session had no GET stream"

// elicitServer serves streamable HTTP on 127.0.0.1:$PORT/mcp as the TypeScript SDK's server
// does for a tool that asks the user: a session per initialize, its GET stream stored before
// the stream's headers go out, and on tools/call an elicitation sent on that stream, dropped
// when the session has none; the call is answered once the client answered the elicitation.
// Where the TypeScript SDK's server would wait 60 s for an answer to the dropped elicitation,
// this one answers the call at once with an error that says so. It answers
// notifications/initialized after 150 ms, as a loaded server did (163 ms).
func elicitServer() int {
	type session struct {
		mu     sync.Mutex
		stream chan string
		answer chan struct{}
	}
	var mu sync.Mutex
	sessions := map[string]*session{}
	var n atomic.Int64
	jsonAnswer := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		s := sessions[r.Header.Get("Mcp-Session-Id")]
		mu.Unlock()
		if r.Method == http.MethodGet {
			if s == nil {
				http.Error(w, "no such session", http.StatusNotFound)
				return
			}
			ch := make(chan string, 1)
			s.mu.Lock()
			s.stream = ch
			s.mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			_ = http.NewResponseController(w).Flush()
			for {
				select {
				case msg := <-ch:
					_, _ = io.WriteString(w, "event: message\ndata: "+msg+"\n\n")
					_ = http.NewResponseController(w).Flush()
				case <-r.Context().Done():
					return
				}
			}
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &msg)
		if msg.Method == "initialize" {
			sid := "session-" + strconv.FormatInt(n.Add(1), 10)
			mu.Lock()
			sessions[sid] = &session{answer: make(chan struct{}, 1)}
			mu.Unlock()
			w.Header().Set("Mcp-Session-Id", sid)
			jsonAnswer(w, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"elicit","version":"1"}}}`)
			return
		}
		if s == nil {
			http.Error(w, "no such session", http.StatusNotFound)
			return
		}
		switch msg.Method {
		case "notifications/initialized":
			time.Sleep(150 * time.Millisecond)
			w.WriteHeader(http.StatusAccepted)
		case "": // the client's answer to the elicitation
			s.answer <- struct{}{}
			w.WriteHeader(http.StatusAccepted)
		case "tools/call":
			s.mu.Lock()
			stream := s.stream
			s.mu.Unlock()
			if stream == nil {
				jsonAnswer(w, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"error":{"code":-32603,"message":"the elicitation was `+elicitLost+`"}}`)
				return
			}
			stream <- `{"jsonrpc":"2.0","id":"elicit-1","method":"elicitation/create","params":{"message":"Go on?","requestedSchema":{"type":"object","properties":{}}}}`
			select {
			case <-s.answer:
				jsonAnswer(w, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"content":[{"type":"text","text":"done"}]}}`)
			case <-r.Context().Done():
			}
		default:
			jsonAnswer(w, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"error":{"code":-32601,"message":"Method not found"}}`)
		}
	})
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", os.Getenv("PORT")))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_ = http.Serve(l, mux)
	return 1
}
