package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/toolscore/toolscore/internal/jsonrpc"
)

// RawHTTPSession speaks bare JSON-RPC over streamable HTTP: each message one POST, each answer
// read exactly as it came, whether an application/json body or the data of the SSE event that
// carries it, with no library between.
type RawHTTPSession struct {
	url     string
	session string // Mcp-Session-Id, once the server gave one
	version string // the negotiated revision, sent as MCP-Protocol-Version after initialize
	nextID  int
}

// StartRawHTTP initializes an MCP session with the server at url.
func StartRawHTTP(ctx context.Context, url string) (*RawHTTPSession, json.RawMessage, error) {
	s := &RawHTTPSession{url: url}
	init, err := s.Request(ctx, "initialize", map[string]any{
		"protocolVersion": ProtocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "toolscore-raw", "version": "1"},
	})
	if err != nil {
		return nil, nil, err
	}
	var r struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	_ = json.Unmarshal(init, &r)
	s.version = r.Result.ProtocolVersion
	if err := s.Notify(ctx, "notifications/initialized", nil); err != nil {
		s.Close()
		return nil, nil, err
	}
	return s, init, nil
}

// HTTPStatusError is a POST answered with a status other than 2xx: what came, the status and
// the start of the body, is what the client saw.
type HTTPStatusError struct {
	Method string
	Status int
	Body   string
}

func (e *HTTPStatusError) Error() string {
	s := fmt.Sprintf("the server answered %s with HTTP %d", e.Method, e.Status)
	if e.Body != "" {
		s += ": " + e.Body
	}
	return s
}

// post sends one JSON-RPC message and returns the response, whose body the caller closes.
func (s *RawHTTPSession) post(ctx context.Context, method string, msg any) (*http.Response, error) {
	b, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.session != "" {
		req.Header.Set("Mcp-Session-Id", s.session)
	}
	if s.version != "" {
		req.Header.Set("MCP-Protocol-Version", s.version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("sending %s: %w", method, err)
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" && s.session == "" {
		s.session = id
	}
	if resp.StatusCode/100 != 2 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		return nil, &HTTPStatusError{Method: method, Status: resp.StatusCode, Body: strings.TrimSpace(string(body))}
	}
	return resp, nil
}

// Notify sends a notification; the server accepts it with 202 and no body.
func (s *RawHTTPSession) Notify(ctx context.Context, method string, params any) error {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	resp, err := s.post(ctx, method, msg)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// Request sends a request and returns its answer as it came: the JSON body, or the data of the
// SSE event that names its id (events in between, notifications and server requests, skipped).
func (s *RawHTTPSession) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	s.nextID++
	id := s.nextID
	resp, err := s.post(ctx, method, map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct != "text/event-stream" {
		body, err := io.ReadAll(resp.Body)
		if err != nil || len(bytes.TrimSpace(body)) == 0 {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return nil, &ClosedError{Method: method, Partial: len(body), Err: err}
		}
		return bytes.TrimRight(body, "\r\n"), nil
	}
	// An SSE stream: the answer is the event whose data is the frame naming our id; a frame that
	// names it is the answer even when it does not decode, as on stdio.
	r := bufio.NewReaderSize(resp.Body, 1<<20)
	var data []byte
	partial := 0
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return nil, &ClosedError{Method: method, Partial: partial + len(line), Err: fmt.Errorf("the event stream ended: %w", err)}
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0: // the event is complete
			if got, m := envelope(data); len(data) > 0 && m == "" && jsonrpc.IDKey(got) == jsonrpc.IDKey([]byte(strconv.Itoa(id))) {
				return data, nil
			}
			data, partial = nil, 0
		case bytes.HasPrefix(line, []byte("data:")):
			v := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, v...)
			partial = len(data)
		}
	}
}

// Close ends the session: a DELETE when the server gave a session id.
func (s *RawHTTPSession) Close() error {
	if s.session == "" {
		return nil
	}
	req, err := http.NewRequest(http.MethodDelete, s.url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Mcp-Session-Id", s.session)
	if s.version != "" {
		req.Header.Set("MCP-Protocol-Version", s.version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}
