package model

import (
	"encoding/json"
	"testing"
)

// TestScriptRetries: told to try again (Script.Retries), the model calls the tool again after a
// failed result, under the same name with the next try's id, up to its count, then answers from
// the last result; untold, it answers from the first, as before. For each vendor's request shape.
func TestScriptRetries(t *testing.T) {
	tool := "get_account_balance"
	anthropic := func(results ...string) seen {
		msgs := `{"role":"user","content":"balance?"}`
		for i, r := range results {
			id := TryID(CallID, i+1)
			msgs += `,{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"mcp__scenario__get_account_balance","input":{}}]}` +
				`,{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `",` + r + `}]}`
		}
		var req MessagesRequest
		body := []byte(`{"model":"m","tools":[{"name":"mcp__scenario__get_account_balance"}],"messages":[` + msgs + `]}`)
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatal(err)
		}
		return req.seen(body, tool)
	}
	chat := func(results ...string) seen {
		msgs := `{"role":"user","content":"balance?"}`
		for i, r := range results {
			id := TryID(ChatCallID, i+1)
			msgs += `,{"role":"assistant","tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"mcp__scenario__get_account_balance","arguments":"{}"}}]}` +
				`,{"role":"tool","tool_call_id":"` + id + `","content":` + r + `}`
		}
		var req ChatRequest
		if err := json.Unmarshal([]byte(`{"model":"m","tools":[{"type":"function","function":{"name":"mcp__scenario__get_account_balance"}}],"messages":[`+msgs+`]}`), &req); err != nil {
			t.Fatal(err)
		}
		return req.seen(tool)
	}
	failedA, okA := `"is_error":true,"content":"upstream unavailable (503)"`, `"content":"ACC-4471: balance 40,718.77 USD"`
	failedC, okC := `"Error: upstream unavailable (503)"`, `"ACC-4471: balance 40,718.77 USD"`
	for _, c := range []struct {
		name    string
		retries int
		s       seen
		want    string // the step: "call <try id>" or the answer
	}{
		{"anthropic, untold", 0, anthropic(failedA), "The tool call failed: upstream unavailable (503)"},
		{"anthropic, told once", 1, anthropic(failedA), "call " + TryID(CallID, 2)},
		{"anthropic, second try passed", 1, anthropic(failedA, okA), "The tool returned: ACC-4471: balance 40,718.77 USD"},
		{"anthropic, tries used up", 1, anthropic(failedA, failedA), "The tool call failed: upstream unavailable (503)"},
		{"anthropic, first passed", 2, anthropic(okA), "The tool returned: ACC-4471: balance 40,718.77 USD"},
		{"chat, untold", 0, chat(failedC), "The tool returned: Error: upstream unavailable (503)"},
		{"chat, told twice", 2, chat(failedC, failedC), "call " + TryID(ChatCallID, 3)},
		{"chat, passed", 2, chat(failedC, okC), "The tool returned: ACC-4471: balance 40,718.77 USD"},
	} {
		st := Script{Tool: tool, Retries: c.retries}.play(c.s)
		got := st.Text
		if st.Tool != "" {
			got = "call " + TryID(map[bool]string{true: CallID, false: ChatCallID}[c.name[0] == 'a'], st.Try)
			if st.Tool != "mcp__scenario__get_account_balance" {
				t.Errorf("%s: calls %q, want the name the first try called", c.name, st.Tool)
			}
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
