package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/toolscore/toolscore/runner/proc"
)

// fetchOnce starts a fresh instance of the server, calls one tool with args over raw JSON-RPC
// and returns its result, so a fault can present a real neighbouring record without touching the
// client's own session.
func fetchOnce(ctx context.Context, srv Server, tool string, args json.RawMessage, tee *Tee) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
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
		return nil, fmt.Errorf("starting the server for the decoy: %w", err)
	}
	defer func() {
		_ = in.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	go func() {
		<-ctx.Done()
		_ = cmd.Process.Kill()
	}()
	send := func(v any) error {
		b, err := marshal(v)
		if err == nil {
			_, err = in.Write(b)
		}
		return err
	}
	lr := newLineReader(out)
	await := func(id string) (json.RawMessage, error) {
		for {
			frame, err := lr.next()
			if err != nil {
				return nil, fmt.Errorf("the decoy server closed before answering: %w", err)
			}
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(frame, &msg) != nil || idKey(msg.ID) != id {
				continue
			}
			if msg.Error != nil {
				return nil, fmt.Errorf("the decoy call failed: %s", msg.Error)
			}
			return msg.Result, nil
		}
	}
	if err := send(map[string]any{"jsonrpc": "2.0", "id": "toolscore-decoy-init", "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "toolscore-decoy", "version": "1"},
	}}); err != nil {
		return nil, err
	}
	if _, err := await(`"toolscore-decoy-init"`); err != nil {
		return nil, err
	}
	_ = send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	if err := send(map[string]any{"jsonrpc": "2.0", "id": "toolscore-decoy-call", "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}}); err != nil {
		return nil, err
	}
	raw, err := await(`"toolscore-decoy-call"`)
	if err != nil {
		return nil, err
	}
	tee.Write(&Record{Dir: Event, Event: "decoy", Note: "fetched a real record for the fault from a fresh server", Detail: map[string]any{"arguments": args, "result": raw}})
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var result map[string]any
	if err := dec.Decode(&result); err != nil || result == nil {
		return nil, errors.New("the decoy call returned no result object")
	}
	return result, nil
}
