package agent

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/toolscore/toolscore/internal/model"
	"github.com/toolscore/toolscore/record"
)

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		isError bool
		parts   []string
		want    string
	}{
		{false, []string{`{"balance_minor":4071877}`}, record.ViewStructured},
		{false, []string{`[{"balance_minor":4071877}]`}, record.ViewStructured},
		{false, []string{"ACC-4471: balance 40,718.77 USD", `{"balance_minor":4071877}`}, record.ViewStructured},
		{false, []string{"ACC-4471: balance 40,718.77 USD"}, record.ViewText},
		{false, []string{"{not json"}, record.ViewText},
		{true, []string{`{"balance_minor":4071877}`}, record.ViewError},
		{false, []string{"<tool_use_error>Error: No such tool available</tool_use_error>"}, record.ViewError},
		{false, []string{" "}, record.ViewNone},
		{false, nil, record.ViewNone},
	} {
		if got := Classify(c.isError, c.parts); got != c.want {
			t.Errorf("Classify(%v, %q) = %s, want %s", c.isError, c.parts, got, c.want)
		}
	}
}

func request(t *testing.T, body string) model.Request {
	t.Helper()
	if !json.Valid([]byte(body)) {
		t.Fatalf("not JSON: %s", body)
	}
	return model.Request{Method: "POST", Path: "/v1/messages?beta=true", Body: json.RawMessage(body)}
}

// The model's view is the tool_result of the request after the call, verbatim; Claude Code's
// placeholder for an empty result is none.
func TestAnthropicView(t *testing.T) {
	def := `{"name":"mcp__scenario__get_account_balance","input_schema":{"type":"object"}}`
	first := request(t, `{"tools":[`+def+`],"messages":[{"role":"user","content":"balance?"}]}`)
	after := func(result string) model.Request {
		return request(t, `{"tools":[`+def+`],"messages":[{"role":"user","content":"balance?"},
			{"role":"assistant","content":[{"type":"tool_use","id":"`+model.CallID+`","name":"mcp__scenario__get_account_balance","input":{}}]},
			{"role":"user","content":[`+result+`]}]}`)
	}
	count := request(t, `{"messages":[]}`)
	count.Path = "/v1/messages/count_tokens"
	for _, c := range []struct {
		result, kind, excerpt string
	}{
		{`{"tool_use_id":"` + model.CallID + `","type":"tool_result","content":"{\"balance_minor\":4071877}","cache_control":{"type":"ephemeral"}}`, record.ViewStructured, `{"balance_minor":4071877}`},
		{`{"type":"tool_result","tool_use_id":"` + model.CallID + `","content":"Internal error","is_error":true}`, record.ViewError, "Internal error"},
		{`{"type":"tool_result","tool_use_id":"` + model.CallID + `","content":"(mcp__scenario__get_account_balance completed with no output)"}`, record.ViewNone, "(mcp__scenario__get_account_balance completed with no output)"},
		{`{"type":"tool_result","tool_use_id":"` + model.CallID + `","content":[{"type":"text","text":"ACC-4471: balance 40,7"}]}`, record.ViewText, "ACC-4471: balance 40,7"},
	} {
		v := anthropicView([]model.Request{count, first, after(c.result)}, "mcp__scenario__get_account_balance")
		if v.Kind != c.kind || v.Excerpt != c.excerpt || string(v.Block) != c.result || string(v.ToolDef) != def {
			t.Errorf("%s: got %s %q block %s def %s", c.result, v.Kind, v.Excerpt, v.Block, v.ToolDef)
		}
	}
	if v := anthropicView([]model.Request{first}, "mcp__scenario__get_account_balance"); v.Kind != record.ViewNone || v.Block != nil {
		t.Errorf("no tool result: %+v", v)
	}
}

func TestParseClaudeStream(t *testing.T) {
	stream := `{"type":"system","subtype":"init","model":"claude-opus-5-5","claude_code_version":"2.1.332","tools":["mcp__scenario__get_account_balance"]}
{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_toolscore_call","name":"mcp__scenario__get_account_balance","input":{}}]}}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_toolscore_call","type":"tool_result","content":"{\"balance_minor\":4071877}"}]}}
not json
{"type":"result","subtype":"success","is_error":false,"result":"The tool returned: {\"balance_minor\":4071877}"}
`
	s := parseClaudeStream([]byte(stream))
	if s.version != "2.1.332" || s.model != "claude-opus-5-5" || s.result != `The tool returned: {"balance_minor":4071877}` || s.errText != "" {
		t.Errorf("parsed %+v", s)
	}
	if !sameResult(s.toolResult, json.RawMessage(`{"type":"tool_result","tool_use_id":"toolu_toolscore_call","content":"{\"balance_minor\":4071877}","cache_control":{"type":"ephemeral"}}`)) {
		t.Errorf("tool result %s", s.toolResult)
	}
	if sameResult(s.toolResult, json.RawMessage(`{"type":"tool_result","content":"{\"balance_minor\":4071877}","is_error":true}`)) {
		t.Error("an error flag made no difference")
	}
}

// The Agent SDK's version is the one query.mjs printed first; the executable's, in the init
// message, is not it.
func TestSDKVersion(t *testing.T) {
	rec := []byte(`{"type":"toolscore","sdk_version":"0.3.337"}
{"type":"system","subtype":"init","claude_code_version":"2.1.337","model":"claude-opus-5-5"}
`)
	if got := sdkVersion(rec); got != "0.3.337" {
		t.Errorf("sdkVersion = %q, want 0.3.337", got)
	}
	if got := sdkVersion(rec[bytes.IndexByte(rec, '\n')+1:]); got != "unknown" {
		t.Errorf("sdkVersion without query.mjs's line = %q, want unknown", got)
	}
	if s := parseClaudeStream(rec); s.version != "2.1.337" || s.model != "claude-opus-5-5" {
		t.Errorf("the init message read as version %q, model %q", s.version, s.model)
	}
}
