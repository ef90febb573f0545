package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/toolscore/toolscore/internal/transcript"
)

// fetchOnce starts a fresh instance of the server, calls one tool with args over raw JSON-RPC
// and returns its result, so a fault can present a real neighbouring record without touching the
// client's own session.
func fetchOnce(ctx context.Context, srv Server, tool string, args json.RawMessage, tee *transcript.Tee) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	f, err := startFresh(ctx, srv, "toolscore-decoy")
	if err != nil {
		return nil, err
	}
	defer f.close()
	raw, err := f.request("toolscore-decoy-call", "tools/call", map[string]any{"name": tool, "arguments": args})
	if err != nil {
		return nil, err
	}
	tee.Write(&transcript.Record{Dir: transcript.Event, Event: "decoy", Note: "fetched a real record for the fault from a fresh server", Detail: map[string]any{"tool": tool, "arguments": args, "result": raw}})
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var result map[string]any
	if err := dec.Decode(&result); err != nil || result == nil {
		return nil, errors.New("the decoy call returned no result object")
	}
	return result, nil
}
