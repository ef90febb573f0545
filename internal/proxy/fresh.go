package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os/exec"
	"strings"

	"github.com/toolscore/toolscore/internal/proc"
)

// fresh is a fresh instance of the server, initialized over raw JSON-RPC, for a question the
// proxy asks on its own behalf (a neighbouring record, the published schemas) without touching
// the client's session.
type fresh struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	lr  *lineReader
	// stop ends the watch that kills the server when ctx ends.
	stop func() bool
}

// startFresh starts srv and performs the handshake as client name; the caller closes it.
func startFresh(ctx context.Context, srv Server, name string) (*fresh, error) {
	cmd := srv.cmd()
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := proc.Start(cmd); err != nil {
		return nil, fmt.Errorf("starting a fresh server: %w", err)
	}
	f := &fresh{cmd: cmd, in: in, lr: newLineReader(out)}
	f.stop = context.AfterFunc(ctx, func() { _ = cmd.Process.Kill() })
	if _, err := f.request(name+"-init", "initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": name, "version": "1"},
	}); err != nil {
		f.close()
		return nil, err
	}
	if err := f.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		f.close()
		return nil, err
	}
	return f, nil
}

func (f *fresh) send(v any) error {
	b, err := marshal(v)
	if err == nil {
		_, err = f.in.Write(b)
	}
	return err
}

// request sends one request with the string id and returns its result, skipping every other
// frame; a JSON-RPC error is an error.
func (f *fresh) request(id, method string, params any) (json.RawMessage, error) {
	if err := f.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	want := idKey(json.RawMessage(fmt.Sprintf("%q", id)))
	for {
		frame, err := f.lr.next()
		if err != nil && len(frame) == 0 {
			return nil, fmt.Errorf("the fresh server closed before answering %s: %w", method, err)
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(frame, &msg) != nil || idKey(msg.ID) != want {
			continue
		}
		if msg.Error != nil {
			return nil, fmt.Errorf("the fresh server answered %s with an error: %s", method, msg.Error)
		}
		return msg.Result, nil
	}
}

// close ends the server: its stdin closed, then killed, and waited for.
func (f *fresh) close() {
	f.stop()
	_ = f.in.Close()
	_ = f.cmd.Process.Kill()
	_ = f.cmd.Wait()
}

// freshHTTP is a session of the proxy's own with a streamable HTTP server, for the same
// questions: the client's session never sees it.
type freshHTTP struct {
	ctx      context.Context
	up       Upstream
	session  string
	protocol string
}

// startFreshHTTP opens a session with the server at up as client name; the caller closes it.
func startFreshHTTP(ctx context.Context, up Upstream, name string) (*freshHTTP, error) {
	s := &freshHTTP{ctx: ctx, up: up}
	raw, err := s.request(name+"-init", "initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": name, "version": "1"},
	})
	if err != nil {
		return nil, err
	}
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(raw, &init)
	s.protocol = init.ProtocolVersion
	resp, err := s.post(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	if err != nil {
		s.close()
		return nil, err
	}
	resp.Body.Close()
	return s, nil
}

// post sends one message and returns the response, its body still to read.
func (s *freshHTTP) post(msg any) (*http.Response, error) {
	body, err := marshal(msg)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(s.ctx, http.MethodPost, s.up.URL.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	s.headers(req)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := lookupClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("asking the server: %w", err)
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" && s.session == "" {
		s.session = id
	}
	if resp.StatusCode/100 != 2 {
		resp.Body.Close()
		return nil, fmt.Errorf("the server answered %s", resp.Status)
	}
	return resp, nil
}

func (s *freshHTTP) headers(req *http.Request) {
	for name, vs := range s.up.Header {
		req.Header[name] = vs
	}
	if s.session != "" {
		req.Header.Set("Mcp-Session-Id", s.session)
	}
	if s.protocol != "" {
		req.Header.Set("MCP-Protocol-Version", s.protocol)
	}
}

// request sends one request with the string id and returns its result, from a JSON body or the
// SSE event that carries it.
func (s *freshHTTP) request(id, method string, params any) (json.RawMessage, error) {
	resp, err := s.post(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	want := idKey(json.RawMessage(fmt.Sprintf("%q", id)))
	answer := func(data []byte) (json.RawMessage, bool, error) {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(data, &msg) != nil || idKey(msg.ID) != want {
			return nil, false, nil
		}
		if msg.Error != nil {
			return nil, true, fmt.Errorf("the server answered %s with an error: %s", method, msg.Error)
		}
		return msg.Result, true, nil
	}
	// What the proxy reads of an answer to its own question is bounded, whatever the server sends.
	body := io.LimitReader(resp.Body, 64<<20)
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		body, err := io.ReadAll(body)
		if err != nil {
			return nil, err
		}
		if r, ok, err := answer(body); ok {
			return r, err
		}
		return nil, fmt.Errorf("the server's answer to %s is not its response", method)
	}
	lr := newLineReader(body)
	var data []byte
	for {
		line, err := lr.next()
		name, value := sseField(bytes.TrimRight(line, "\r\n"))
		switch {
		case name == "data":
			data = append(append(data, value...), '\n')
		case len(bytes.TrimRight(line, "\r\n")) == 0 && len(data) > 0:
			if r, ok, err := answer(data); ok {
				return r, err
			}
			data = nil
		}
		if err != nil {
			return nil, fmt.Errorf("the server's stream ended before it answered %s: %w", method, err)
		}
	}
}

// close ends the session, as a client does, with a DELETE.
func (s *freshHTTP) close() {
	if s.session == "" {
		return
	}
	req, err := http.NewRequestWithContext(s.ctx, http.MethodDelete, s.up.URL.String(), nil)
	if err != nil {
		return
	}
	s.headers(req)
	if resp, err := lookupClient.Do(req); err == nil {
		resp.Body.Close()
	}
}

// lookupClient asks the proxy's own questions of an HTTP server. It follows a redirect only
// within the origin it was sent to: the headers it carries (--header, a credential) never go to
// another scheme, host or port, whatever the server answers.
var lookupClient = &http.Client{CheckRedirect: sameOrigin}

func sameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return fmt.Errorf("stopped after %d redirects", len(via))
	}
	if from := via[0].URL; origin(req.URL) != origin(from) {
		return fmt.Errorf("the server redirected to another origin (%s, from %s): not followed, so the proxy's headers are not sent there", origin(req.URL), origin(from))
	}
	return nil
}

// origin is a URL's scheme, host and port, the port made explicit.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}
