package fault_test

import (
	"context"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/fault"
)

// The other way a server reports an unknown tool: an isError result the model can read.
func TestUnknownToolAsResult(t *testing.T) {
	f := mustNewWith(t, "unknown-tool", `{"as":"result"}`)
	eff, err := f.Apply(context.Background(), &fault.Call{Tool: "get_account_balance"})
	if err != nil {
		t.Fatal(err)
	}
	if got := mustJSON(t, eff.Result); got != `{"content":[{"text":"unknown tool: get_account_balance","type":"text"}],"isError":true}` || eff.RPCError != nil {
		t.Errorf("result %s, error %v", got, eff.RPCError)
	}
	if _, err := fault.New("unknown-tool", []byte(`{"as":"both"}`)); err == nil || !strings.Contains(err.Error(), `must be "error" or "result"`) {
		t.Errorf("as both: %v", err)
	}
}

// transient fails the first call with its inner fault and spares every later one; an inner fault
// of the exchange, one that needs the schema, or transient itself is refused.
func TestTransientSparesAllButTheFirst(t *testing.T) {
	f := mustNewWith(t, "transient", `{"inner":"rate-limited","options":{"retry_after":"3s"}}`)
	eff, err := f.Apply(context.Background(), &fault.Call{Tool: "get_account_balance"})
	if err != nil || eff.RPCError == nil || eff.RPCError.Code != -32023 || mustJSON(t, eff.RPCError.Data) != `{"retryAfter":3}` {
		t.Fatalf("first call: %+v, %v", eff, err)
	}
	for n, want := range map[int]bool{1: false, 2: true, 3: true} {
		if got, why := fault.Spared(f, n); got != want || why != "the fault is transient: only the first call fails" {
			t.Errorf("call %d spared %v (%s), want %v", n, got, why, want)
		}
	}
	if got, _ := fault.Spared(mustNewWith(t, "http-401", `{"after":2}`), 2); !got {
		t.Error("http-401 after 2 does not spare call 2")
	}
	if got, _ := fault.Spared(mustNewWith(t, "error", ``), 2); got {
		t.Error("error spares call 2")
	}
	for _, inner := range []string{"http-500", "type-swap", "transient", "nope"} {
		if _, err := fault.New("transient", []byte(`{"inner":"`+inner+`"}`)); err == nil || !strings.Contains(err.Error(), "option inner") {
			t.Errorf("inner %s: %v", inner, err)
		}
	}
	if _, err := fault.New("transient", []byte(`{"inner":"error","options":{"nope":1}}`)); err == nil || !strings.Contains(err.Error(), `fault error has no option "nope"`) {
		t.Errorf("bad inner options: %v", err)
	}
}

func mustNewWith(t *testing.T, name, options string) fault.Fault {
	t.Helper()
	f, err := fault.New(name, []byte(options))
	if err != nil {
		t.Fatal(err)
	}
	return f
}
