package transcript

import (
	"reflect"
	"testing"

	"github.com/toolscore/toolscore/record"
)

// TestCallsTSSDKTimeout counts a real transcript: @modelcontextprotocol/sdk 1.32.2 (ts-sdk/call,
// local backend) against the latency fault of 61s, past its default request timeout. It sent the
// call once (id 1) and, 60 s later, notifications/cancelled for it: Protocol.request's timeout
// (dist/esm/shared/protocol.js:740, DEFAULT_REQUEST_TIMEOUT_MSEC = 60000 at :8) calls cancel
// (:741), which sends notifications/cancelled for the request (:705), and no second try.
func TestCallsTSSDKTimeout(t *testing.T) {
	_, calls, err := ReadForGradingCalls("testdata/ts-sdk-timeout.tee.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := record.Calls{Sent: 1, IDs: []string{"1"}, Cancelled: []string{"1"}}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("calls %+v, want %+v", calls, want)
	}
}
