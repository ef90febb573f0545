package proxy

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/fault"
)

// TestFaultByIDValue: the proxy finds the answer to a target call by the id's value, as the
// Go SDKs do, so corrupt applies to an answer whose id the server spelt 3.0 or 3e0 (kept as it
// spelt it); an answer with the string "3" is not the answer to request 3, and goes untouched.
func TestFaultByIDValue(t *testing.T) {
	result := `"result":{"content":[{"type":"text","text":"ACC-4471: balance 40,718.77 USD"}],"structuredContent":{"account_id":"ACC-4471","balance_minor":4071877}}}` + "\n"
	for _, tc := range []struct {
		id      string
		faulted bool
	}{{"3", true}, {"3.0", true}, {"3e0", true}, {"30E-1", true}, {`"3"`, false}, {"4", false}} {
		ft, _ := fault.New("corrupt", nil)
		p := New(Config{Fault: ft, FaultName: "corrupt", Probability: 1, Seed: 1}, nil)
		var toServer, toClient bytes.Buffer
		call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{}}}` + "\n"
		if err := p.ClientToServer(context.Background(), strings.NewReader(call), &toServer, &toClient); err != nil {
			t.Fatal(err)
		}
		answer := `{"jsonrpc":"2.0","id":` + tc.id + `,` + result
		if err := p.ServerToClient(context.Background(), strings.NewReader(answer), &toClient); err != nil {
			t.Fatal(err)
		}
		got := toClient.String()
		if faulted := got != answer; faulted != tc.faulted {
			t.Errorf("id %s: faulted %v, want %v: %s", tc.id, faulted, tc.faulted, got)
		}
		if tc.faulted && !strings.HasPrefix(got, `{"id":`+tc.id+`,`) {
			t.Errorf("id %s: the faulted answer does not keep the server's id: %s", tc.id, got)
		}
		if un := p.Unanswered(); tc.faulted != (len(un) == 0) {
			t.Errorf("id %s: unanswered %q", tc.id, un)
		}
	}
}
