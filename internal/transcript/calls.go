package transcript

import (
	"encoding/json"
	"time"

	"github.com/toolscore/toolscore/internal/jsonrpc"
	"github.com/toolscore/toolscore/record"
)

// maxCallKeys bounds the ids of target calls a tally remembers to match a cancellation to: a
// client in a loop sends many.
const maxCallKeys = 256

// callTally counts, over every record of a transcript (not only those ReadForGrading keeps),
// how the client sent the target call: record.Calls but for the side effects, which are the
// grader's to judge from the tools/list answer.
type callTally struct {
	calls record.Calls
	// sent and answered are when the last target call was sent and answered (zero: not yet);
	// last is its id's key.
	sent, answered time.Time
	last           string
	keys           map[string]bool // the target calls' id keys, up to maxCallKeys
}

// request counts a target call e, whose id key is key.
func (t *callTally) request(e *Entry, env jsonrpc.Message, key string) {
	c := &t.calls
	if c.Sent > 0 && len(c.WaitsMillis) < record.MaxCallIDs {
		from := t.sent
		if !t.answered.IsZero() {
			from = t.answered
		}
		c.WaitsMillis = append(c.WaitsMillis, max(e.Time.Sub(from), 0).Milliseconds())
	}
	c.Sent++
	if len(c.IDs) < record.MaxCallIDs {
		c.IDs = append(c.IDs, string(env.ID))
	}
	if t.keys == nil {
		t.keys = map[string]bool{}
	}
	if len(t.keys) < maxCallKeys {
		t.keys[key] = true
	}
	t.sent, t.answered, t.last = e.Time, time.Time{}, key
}

// answer notes the server's (or the proxy's) answer to the request whose id key is key, at at.
func (t *callTally) answer(key string, at time.Time) {
	if key == t.last && t.answered.IsZero() && !t.sent.IsZero() {
		t.answered = at
	}
}

// httpFault notes an HTTP status the proxy answered a request with itself (no JSON-RPC answer
// follows): the answer to the last target call, when it is still unanswered.
func (t *callTally) httpFault(at time.Time) { t.answer(t.last, at) }

// cancelled notes a notifications/cancelled the client sent, counted when it names a target call.
func (t *callTally) cancelled(env jsonrpc.Message) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(env.Params, &p) != nil || len(p.RequestID) == 0 || !t.keys[jsonrpc.IDKey(p.RequestID)] {
		return
	}
	if len(t.calls.Cancelled) < record.MaxCallIDs {
		t.calls.Cancelled = append(t.calls.Cancelled, string(p.RequestID))
	}
}
