package agent

import (
	"encoding/json"
	"testing"

	"github.com/toolscore/toolscore/internal/model"
	"github.com/toolscore/toolscore/record"
)

func chatRequest(t *testing.T, body string) model.Request {
	t.Helper()
	if !json.Valid([]byte(body)) {
		t.Fatalf("not JSON: %s", body)
	}
	return model.Request{Method: "POST", Path: "/v1/chat/completions", Body: json.RawMessage(body)}
}

// The model's view of a Chat Completions agent is the tool message answering the scripted call;
// a request without tools (opencode's title) is passed over; the JSON an agent adds beside the
// text makes the view structured, in Qwen Code's order (JSON first) and Copilot CLI's (text,
// blank line, JSON); the error flag comes from the agent's own record.
func TestChatViews(t *testing.T) {
	def := `{"type":"function","function":{"name":"scenario-get_account_balance","parameters":{"type":"object"}}}`
	user := `{"role":"user","content":"balance?"}`
	call := `{"role":"assistant","content":null,"tool_calls":[{"id":"` + model.ChatCallID + `","type":"function","function":{"name":"scenario-get_account_balance","arguments":"{}"}}]}`
	title := chatRequest(t, `{"model":"m","messages":[`+user+`]}`)
	first := chatRequest(t, `{"model":"m","tools":[`+def+`],"messages":[`+user+`]}`)
	after := func(content string) model.Request {
		return chatRequest(t, `{"model":"m","tools":[`+def+`],"messages":[`+user+`,`+call+`,{"role":"tool","tool_call_id":"`+model.ChatCallID+`","content":`+content+`}]}`)
	}
	const js = `{"balance_minor":4071877}`
	for _, c := range []struct {
		name, content, kind, excerpt string
		isErr                        bool
		shape                        func(record.ModelView) record.ModelView
	}{
		{"text", `"ACC-4471: balance 40,718.77 USD"`, record.ViewText, "ACC-4471: balance 40,718.77 USD", false, nil},
		{"qwen's JSON then text", `[{"type":"text","text":"{\"balance_minor\":4071877}\nACC-4471: balance"}]`, record.ViewStructured, js, false, qwenStructured},
		{"qwen's text alone", `"ACC-4471: balance"`, record.ViewText, "ACC-4471: balance", false, qwenStructured},
		{"copilot's text then JSON", `"ACC-4471: balance\n\n{\"balance_minor\":4071877}"`, record.ViewStructured, js, false, copilotStructured},
		{"copilot's text with a blank line", `"one\n\ntwo"`, record.ViewText, "one\n\ntwo", false, copilotStructured},
		{"an error by the record", `"MCP server 'scenario': down"`, record.ViewError, "MCP server 'scenario': down", true, nil},
	} {
		v, called, asked := chatView([]model.Request{title, first, after(c.content)}, "get_account_balance", func(string) bool { return c.isErr })
		if c.shape != nil {
			v = c.shape(v)
		}
		if v.Kind != c.kind || v.Excerpt != c.excerpt || v.IsError != c.isErr || string(v.ToolDef) != def || called != "scenario-get_account_balance" || asked != "m" {
			t.Errorf("%s: %s %q (error %v), def %s, called %q, asked %q", c.name, v.Kind, v.Excerpt, v.IsError, v.ToolDef, called, asked)
		}
	}
	if v, _, _ := chatView([]model.Request{title, first}, "get_account_balance", nil); v.Kind != record.ViewNone || v.Block != nil || v.ToolDef == nil {
		t.Errorf("no tool message: %+v", v)
	}
}

// Each CLI's own record: the tool result of the scripted call and whether it failed, the answer.
func TestChatAgentRecords(t *testing.T) {
	q := parseQwenStream([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"` + model.ChatCallID + `","is_error":true,"content":"Invalid result"}]}}
{"type":"result","subtype":"success","result":"The tool call failed"}`))
	if !q.isError || q.text != "Invalid result" || q.answer != "The tool call failed" || q.errText != "" {
		t.Errorf("qwen: %+v", q)
	}
	o := parseOpencodeEvents([]byte(`{"type":"tool_use","part":{"type":"tool","callID":"` + model.ChatCallID + `","state":{"status":"error","error":"MCP error -32602: x"}}}
{"type":"text","part":{"type":"text","text":"The tool call failed"}}`))
	if !o.isError || o.text != "MCP error -32602: x" || o.answer != "The tool call failed" {
		t.Errorf("opencode: %+v", o)
	}
	c := parseCopilotEvents([]byte(`{"type":"tool.execution_complete","data":{"toolCallId":"` + model.ChatCallID + `","success":false,"result":{"content":"MCP server 'scenario': down"}}}
{"type":"assistant.message","data":{"content":"The tool returned"}}`))
	if !c.isError || c.text != "MCP server 'scenario': down" || c.answer != "The tool returned" {
		t.Errorf("copilot: %+v", c)
	}
}
