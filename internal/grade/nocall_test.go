package grade

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

// TestRaisedWithoutCall: an adapter that reports a raised error while the wire holds no
// tools/call and nothing from the server it could have raised on (it never spoke to the server,
// or only the proxy's own start and stop are recorded) is crashed, not threw: the wire shows
// no call. A raise the wire explains stays threw: a listing the library refused, a request the
// server never answered, a server that closed its end, a JSON-RPC error on the call.
func TestRaisedWithoutCall(t *testing.T) {
	const raised = `{"client":"liar","library":"liar 1","raised":{"class":"ToolError","message":"the tool failed"}}`
	initialize := &transcript.Record{Dir: transcript.ClientToServer, Wire: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n")}
	initialized := &transcript.Record{Dir: transcript.ServerToClient, Wire: []byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}` + "\n")}
	list := &transcript.Record{Dir: transcript.ClientToServer, Wire: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n")}
	listed := &transcript.Record{Dir: transcript.ServerToClient, Wire: []byte(`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"t","inputSchema":"not a schema"}]}}` + "\n")}
	call := &transcript.Record{Dir: transcript.ClientToServer, Match: &transcript.Match{Tool: "t", N: 1, Fires: true}, Wire: []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t"}}` + "\n")}
	rpcErr := &transcript.Record{Dir: transcript.ServerToClient, Wire: []byte(`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"boom"}}` + "\n")}
	start := &transcript.Record{Dir: transcript.Event, Event: "start"}
	stopped := &transcript.Record{Dir: transcript.Event, Event: "proxy-stopped"}
	closed := &transcript.Record{Dir: transcript.Event, Event: "server-stdout-closed"}
	const noCall = "the adapter reported an error but never called the tool (the wire holds no tools/call, nor anything from the server the client could have raised on); it reported ToolError: the tool failed"
	for _, c := range []struct {
		name     string
		records  []*transcript.Record // nil: no transcript at all (the adapter never started the proxy)
		outcome  record.Outcome
		evidence string
	}{
		{"no transcript", nil, record.Crashed, noCall},
		{"only the proxy's own events", []*transcript.Record{start, stopped}, record.Crashed, noCall},
		{"a listing the library refused", []*transcript.Record{start, initialize, initialized, list, listed, stopped}, record.Threw, "ToolError: the tool failed"},
		{"the handshake unanswered", []*transcript.Record{start, initialize, stopped}, record.Threw, "ToolError: the tool failed"},
		{"the server closed its end", []*transcript.Record{start, closed, stopped}, record.Threw, "ToolError: the tool failed"},
		{"the call's error", []*transcript.Record{start, initialize, initialized, call, rpcErr, stopped}, record.RPCError, "ToolError: the tool failed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var entries []transcript.Entry
			if c.records != nil {
				tee := filepath.Join(dir, "tee.jsonl")
				f, _ := os.Create(tee)
				w := transcript.NewTee(f)
				for _, r := range c.records {
					w.Write(r)
				}
				w.Close()
				f.Close()
				var err error
				if entries, err = transcript.ReadForGrading(tee); err != nil {
					t.Fatal(err)
				}
			}
			stdout := filepath.Join(dir, "stdout")
			os.WriteFile(stdout, []byte(raised+"\n"), 0o644)
			g := SDK(Run{Stdout: stdout}, entries)
			if g.Outcome != c.outcome || g.Evidence != c.evidence {
				t.Errorf("%s (%s), want %s (%s)", g.Outcome, g.Evidence, c.outcome, c.evidence)
			}
			// A transcript that could not be read whole may have held what explains the raise.
			if g = Unread(g, errors.New("cut")); c.outcome == record.Crashed && (g.Outcome != record.Threw || !strings.HasPrefix(g.Evidence, "ToolError: the tool failed; toolscore could not read")) {
				t.Errorf("with the transcript unread: %s (%s), want threw", g.Outcome, g.Evidence)
			}
		})
	}
}
