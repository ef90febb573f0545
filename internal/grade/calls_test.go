package grade

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

// TestCallsClaudeCodeRetry counts a real transcript: Claude Code 2.1.332 (local backend) on the
// scripted model told to try again once (retries: 1), against the transient fault. The model
// called the tool again after the first call's isError result, and Claude Code sent the call
// again (ids 2 and 3), waiting for the model's second turn between them: with the manifest's
// side_effects: true a duplicate; without it, the ledger lists no annotations, so none.
func TestCallsClaudeCodeRetry(t *testing.T) {
	entries, c, err := transcript.ReadForGradingCalls("testdata/claude-code-retry.tee.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	got := calls(c, entries, &yes)
	if got.Sent != 2 || !reflect.DeepEqual(got.IDs, []string{"2", "3"}) || len(got.Cancelled) != 0 || !got.Duplicate {
		t.Errorf("calls %+v, want 2 sent (ids 2, 3), none cancelled, a duplicate", got)
	}
	// The second call came 2.7 s after the first one's answer: the model's turn in between.
	if len(got.WaitsMillis) != 1 || got.WaitsMillis[0] < 2000 || got.WaitsMillis[0] > 3500 {
		t.Errorf("waits %v, want one of about 2.7 s", got.WaitsMillis)
	}
	if got := calls(c, entries, nil); got.Duplicate || got.SideEffects != "" {
		t.Errorf("no side_effects and no annotations: %+v, want no duplicate", got)
	}
	no := false
	if got := calls(c, entries, &no); got.Duplicate {
		t.Errorf("side_effects: false: %+v, want no duplicate", got)
	}
}

// TestSideEffectsFromAnnotations: the tool's annotations in the tools/list answer decide, when the
// manifest does not: destructive or not read-only, and not idempotent.
func TestSideEffectsFromAnnotations(t *testing.T) {
	for _, c := range []struct{ annotations, want string }{
		{``, ""},
		{`,"annotations":{}`, ""},
		{`,"annotations":{"destructiveHint":true}`, "destructiveHint: true"},
		{`,"annotations":{"readOnlyHint":false}`, "readOnlyHint: false"},
		{`,"annotations":{"readOnlyHint":true,"destructiveHint":true}`, ""},
		{`,"annotations":{"destructiveHint":true,"idempotentHint":true}`, ""},
		{`,"annotations":{"destructiveHint":false}`, ""},
	} {
		entries := []transcript.Entry{
			{Record: transcript.Record{Dir: transcript.ClientToServer, Wire: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)}},
			{Record: transcript.Record{Dir: transcript.ServerToClient, Wire: []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"other","annotations":{"destructiveHint":true}},{"name":"pay"` + c.annotations + `}]}}`)}},
			{Record: transcript.Record{Dir: transcript.ClientToServer, Match: &transcript.Match{Tool: "pay", N: 1}, Wire: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"pay"}}`)}},
		}
		got := calls(record.Calls{Sent: 2}, entries, nil)
		if got.SideEffects != c.want || got.Duplicate != (c.want != "") {
			b, _ := json.Marshal(got)
			t.Errorf("annotations %q: %s, want side effects %q", c.annotations, b, c.want)
		}
	}
}
