package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/toolscore/toolscore/internal/jsonrpc"
	"github.com/toolscore/toolscore/internal/proc"
	"github.com/toolscore/toolscore/record"
)

func init() {
	Register(Descriptor{Name: "raw", Does: "reports exactly what was on the wire", Run: func(ctx context.Context, r Request, _ string) (*record.Observation, error) { return Raw(ctx, r) }})
}

// Raw calls the tool over bare JSON-RPC, on stdio or streamable HTTP, and reports the result
// exactly as it was on the wire, or the JSON-RPC error as raised: the yardstick every library is
// compared with. An answer it cannot decode, a server that closes before answering, or an HTTP
// status other than 2xx, is raised too: that is what it saw.
func Raw(ctx context.Context, r Request) (*record.Observation, error) {
	var s interface {
		Request(ctx context.Context, method string, params any) (json.RawMessage, error)
		Close() error
	}
	var err error
	if r.URL != "" {
		s, _, err = StartRawHTTP(ctx, r.URL)
	} else {
		s, _, err = StartRaw(ctx, r.Server)
	}
	obs := &record.Observation{Client: "raw", Library: "toolscore raw JSON-RPC"}
	// What the client saw is the observation, as a library reports it: a raised error, in the
	// handshake as in the call.
	raised := func(err error) bool {
		var closed *ClosedError
		var status *HTTPStatusError
		switch {
		case errors.As(err, &closed):
			obs.Raised = &record.Raised{Class: "connection-closed", Message: err.Error()}
		case errors.As(err, &status):
			obs.Raised = &record.Raised{Class: "http-status", Message: err.Error()}
		}
		return obs.Raised != nil
	}
	if err != nil {
		if raised(err) {
			return obs, nil
		}
		return nil, err
	}
	defer s.Close()
	frame, err := s.Request(ctx, "tools/call", map[string]any{"name": r.Tool, "arguments": r.Arguments})
	if raised(err) {
		return obs, nil
	}
	if err != nil {
		return nil, err
	}
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(frame, &msg); err != nil {
		obs.Raised = &record.Raised{Class: "undecodable-answer", Message: fmt.Sprintf("the answer to tools/call came (%d bytes) but does not decode: %v", len(frame), err)}
		return obs, nil
	}
	if msg.Error != nil {
		obs.Raised = &record.Raised{Class: "jsonrpc-error", Code: &msg.Error.Code, Message: msg.Error.Message}
		return obs, nil
	}
	obs.Returned = msg.Result
	return obs, nil
}

// ProtocolVersion is the MCP revision the raw client asks for.
const ProtocolVersion = "2025-11-25"

// RawSession speaks bare JSON-RPC over a command's stdio: it shows exactly what came over the
// wire, with no library between.
type RawSession struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	nextID int
	done   chan error
}

// StartRaw starts command and initializes an MCP session with it.
func StartRaw(ctx context.Context, command []string) (*RawSession, json.RawMessage, error) {
	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	askToStop(cmd)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := proc.Start(cmd); err != nil {
		return nil, nil, fmt.Errorf("starting %q: %w", command[0], err)
	}
	s := &RawSession{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), done: make(chan error, 1)}
	init, err := s.Request(ctx, "initialize", map[string]any{
		"protocolVersion": ProtocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "toolscore-raw", "version": "1"},
	})
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	if err := s.Notify("notifications/initialized", nil); err != nil {
		s.Close()
		return nil, nil, err
	}
	return s, init, nil
}

// Notify sends a notification.
func (s *RawSession) Notify(method string, params any) error {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	return s.send(msg)
}

func (s *RawSession) send(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = s.in.Write(append(b, '\n'))
	return err
}

// Request sends a request and returns the whole response frame, as it came on the wire
// (without its newline). Frames in between (notifications, other ids) are skipped.
func (s *RawSession) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	s.nextID++
	id := s.nextID
	if err := s.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, fmt.Errorf("sending %s: %w", method, err)
	}
	type reply struct {
		frame []byte
		err   error
	}
	ch := make(chan reply, 1)
	// The answer is matched by value, as the libraries match it: 3.0 answers request 3.
	want := jsonrpc.IDKey([]byte(strconv.Itoa(id)))
	go func() {
		for {
			frame, err := s.out.ReadBytes('\n')
			if err != nil {
				ch <- reply{nil, &ClosedError{Method: method, Partial: len(frame), Err: err}}
				return
			}
			// A frame that names our id is the answer even when it does not decode: the caller
			// reports what came, where skipping it would wait out the timeout for nothing.
			got, m := envelope(frame)
			if m == "" && jsonrpc.IDKey(got) == want {
				ch <- reply{bytes.TrimRight(frame, "\r\n"), nil}
				return
			}
		}
	}()
	select {
	case r := <-ch:
		return r.frame, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("no answer to %s: %w", method, ctx.Err())
	}
}

// ClosedError is the server closing its end before it answered a request.
type ClosedError struct {
	Method string
	// Partial is how many bytes of an unfinished frame came before the end.
	Partial int
	Err     error
}

func (e *ClosedError) Error() string {
	s := "the server closed before answering " + e.Method
	if e.Partial > 0 {
		s += fmt.Sprintf(" (after %d bytes of an unfinished frame)", e.Partial)
	}
	return s + ": " + e.Err.Error()
}

func (e *ClosedError) Unwrap() error { return e.Err }

// envelope reads a frame's top-level id and method. When the frame does not decode whole, it
// walks the tokens, which encoding/json does without its nesting limit, so valid JSON deeper
// than that limit still shows whose answer it is; what came before a syntax error counts.
func envelope(frame []byte) (id json.RawMessage, method string) {
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(frame, &env) == nil {
		return env.ID, env.Method
	}
	dec := json.NewDecoder(bytes.NewReader(frame))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, ""
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return id, method
		}
		switch t {
		case "id":
			err = dec.Decode(&id)
		case "method":
			err = dec.Decode(&method)
		default:
			err = skipValue(dec)
		}
		if err != nil {
			return id, method
		}
	}
	return id, method
}

// skipValue reads past one value, token by token.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('['), json.Delim('{'):
			depth++
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// Close closes the server's stdin and waits for it to exit; a non-zero exit comes back as an
// *exec.ExitError.
func (s *RawSession) Close() error {
	_ = s.in.Close()
	return s.cmd.Wait()
}

// askToStop has a cancelled run ask the proxy to stop (SIGTERM) rather than kill it, so the
// proxy can still stop the server and record how it ended; it is killed if it is not gone soon.
func askToStop(cmd *exec.Cmd) {
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
}
