package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"

	"github.com/toolscore/toolscore/runner/proc"
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
