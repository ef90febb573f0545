package agent

import (
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/model"
	"github.com/toolscore/toolscore/record"
)

// responses is the scripted exchange as Codex 0.171.0 recorded it (cut to what the view reads):
// the tool deferred behind the tool search, loaded by its output, called, and its output.
func responses(t *testing.T, out string) []model.Request {
	t.Helper()
	tools := `"tools":[{"type":"function","name":"list_mcp_resources"},{"type":"tool_search","execution":"client"}]`
	prompt := `{"type":"message","role":"user","content":[{"type":"input_text","text":"balance?"}]}`
	search := `{"type":"tool_search_call","call_id":"` + model.ResponsesSearchID + `","execution":"client","arguments":{"query":"get_account_balance"}},
		{"type":"tool_search_output","call_id":"` + model.ResponsesSearchID + `","execution":"client","tools":[{"type":"namespace","name":"mcp__scenario","tools":[
			{"type":"function","name":"get_account_balance","defer_loading":true,"parameters":{"type":"object"}}]}]}`
	call := `{"type":"function_call","name":"get_account_balance","namespace":"mcp__scenario","arguments":"{}","call_id":"` + model.ResponsesCallID + `"}`
	post := func(body string) model.Request {
		r := request(t, body)
		r.Path = "/v1/responses"
		return r
	}
	reqs := []model.Request{
		post(`{"model":"gpt-5.5",` + tools + `,"input":[` + prompt + `]}`),
		post(`{"model":"gpt-5.5",` + tools + `,"input":[` + prompt + `,` + search + `]}`),
		{Method: "GET", Path: "/v1/models?client_version=0.171.0"},
	}
	if out != "" {
		reqs = append(reqs, post(`{"model":"gpt-5.5",`+tools+`,"input":[`+prompt+`,`+search+`,`+call+`,
			{"type":"function_call_output","call_id":"`+model.ResponsesCallID+`","output":`+out+`}]}`))
	}
	return reqs
}

// The model's view is the function_call_output after the call, less Codex's wall-time frame:
// structuredContent's JSON, the text blocks (an isError result among them: Codex sets no
// flag), Codex's own message for a failed call (an error), nothing.
func TestResponsesView(t *testing.T) {
	for _, c := range []struct {
		out, kind, excerpt string
	}{
		{`"Wall time: 0.0031 seconds\nOutput:\n{\"balance_minor\":4071877}"`, record.ViewStructured, `{"balance_minor":4071877}`},
		{`"Wall time: 0.0073 seconds\nOutput:\n[{\"balance_minor\":4071877}]"`, record.ViewStructured, `[{"balance_minor":4071877}]`},
		{`[{"type":"input_text","text":"Wall time: 0.0030 seconds\nOutput:"},{"type":"input_text","text":"upstream ledger service unavailable (503): try again later"}]`, record.ViewText, "upstream ledger service unavailable (503): try again later"},
		{`[{"type":"input_text","text":"Wall time: 0.0303 seconds\nOutput:"},{"type":"input_text","text":"tool call error: tool call failed for ` + "`scenario/get_account_balance`" + `\n\nCaused by:\n    Mcp error: -32603: Internal error"}]`, record.ViewError, "tool call error: tool call failed for `scenario/get_account_balance`\n\nCaused by:\n    Mcp error: -32603: Internal error"},
		{`[{"type":"input_text","text":"Wall time: 0.0057 seconds\nOutput:"}]`, record.ViewNone, ""},
	} {
		v, called := responsesView(responses(t, c.out), "get_account_balance")
		if v.Kind != c.kind || v.Excerpt != c.excerpt || (v.Kind == record.ViewError) != v.IsError {
			t.Errorf("%s: %s %q (error %v), want %s %q", c.out, v.Kind, v.Excerpt, v.IsError, c.kind, c.excerpt)
		}
		if called != "mcp__scenario__get_account_balance" || !strings.Contains(string(v.ToolDef), `"defer_loading":true`) || v.SchemaSent {
			t.Errorf("%s: called %q, tool definition %s, schema sent %v", c.out, called, v.ToolDef, v.SchemaSent)
		}
		if !strings.Contains(string(v.Block), model.ResponsesCallID) {
			t.Errorf("%s: block %s", c.out, v.Block)
		}
	}
	v, called := responsesView(responses(t, ""), "get_account_balance")
	if v.Kind != record.ViewNone || v.Block != nil || called != "" || v.ToolDef == nil {
		t.Errorf("no output: %+v, called %q", v, called)
	}
	if m := requestedModel(responses(t, "")); m != "gpt-5.5" {
		t.Errorf("model %q", m)
	}
}

// Codex's --json record: the mcp_tool_call item (its result, or its error), the final
// agent_message; and whether it agrees with what the model got.
func TestParseCodexEvents(t *testing.T) {
	events := `{"type":"thread.started","thread_id":"t"}
{"type":"turn.started"}
{"type":"item.started","item":{"id":"item_0","type":"mcp_tool_call","server":"scenario","tool":"get_account_balance","arguments":{"account_id":"ACC-4471"},"result":null,"error":null,"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_0","type":"mcp_tool_call","server":"scenario","tool":"get_account_balance","arguments":{"account_id":"ACC-4471"},"result":{"content":[{"type":"text","text":"ACC-4471: balance 40,718.77 USD as of 2026-03-31"}],"structured_content":{"balance_minor":4071877}},"error":null,"status":"completed"}}
{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"The tool returned: {\"balance_minor\":4071877}"}}
{"type":"turn.completed","usage":{"input_tokens":26005,"output_tokens":54}}
`
	s := parseCodexEvents([]byte(events))
	if s.answer != `The tool returned: {"balance_minor":4071877}` || s.tool == nil || s.tool.status != "completed" || s.errText != "" {
		t.Fatalf("parsed %+v", s)
	}
	v, _ := responsesView(responses(t, `"Wall time: 0.0031 seconds\nOutput:\n{\"balance_minor\": 4071877}"`), "get_account_balance")
	if !s.tool.agrees(v) {
		t.Error("the structured result does not agree with the model's view")
	}
	v, _ = responsesView(responses(t, `"Wall time: 0.0031 seconds\nOutput:\n{\"balance_minor\":4071870}"`), "get_account_balance")
	if s.tool.agrees(v) {
		t.Error("another value agrees")
	}

	failed := `{"type":"item.completed","item":{"id":"item_0","type":"mcp_tool_call","server":"scenario","tool":"get_account_balance","result":null,"error":{"message":"tool call error: boom"},"status":"failed"}}
{"type":"error","message":"stream disconnected"}
{"type":"turn.failed","error":{"message":"no response"}}
`
	s = parseCodexEvents([]byte(failed))
	if s.tool == nil || s.tool.err != "tool call error: boom" || s.errText != "stream disconnected no response" {
		t.Fatalf("parsed %+v", s)
	}
	v, _ = responsesView(responses(t, `[{"type":"input_text","text":"Wall time: 0.0303 seconds\nOutput:"},{"type":"input_text","text":"tool call error: boom"}]`), "get_account_balance")
	if !s.tool.agrees(v) {
		t.Error("the error does not agree with the model's view")
	}
	texts := parseCodexEvents([]byte(`{"type":"item.completed","item":{"type":"mcp_tool_call","result":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"structured_content":null},"status":"failed"}}`))
	v, _ = responsesView(responses(t, `[{"type":"input_text","text":"Wall time: 0.0030 seconds\nOutput:"},{"type":"input_text","text":"a"},{"type":"input_text","text":"b"}]`), "get_account_balance")
	if !texts.tool.agrees(v) {
		t.Error("the text blocks do not agree with the model's view")
	}
}

// The config holds the provider on the scripted model's URL, the scenario's server with its
// tools approved, and the built-ins and phoning home turned off.
func TestCodexConfig(t *testing.T) {
	c := codexConfig("gpt-5.5", "http://127.0.0.1:4242/v1", client.Request{Server: []string{"/opt/toolscore/toolscore", "proxy", "--", "a \"quoted\" arg", "tab\there\\"}})
	for _, want := range []string{
		`model = "gpt-5.5"`, `model_provider = "toolscore"`, `base_url = "http://127.0.0.1:4242/v1"`, `wire_api = "responses"`,
		`env_key = "` + codexKeyEnv + `"`, "[mcp_servers.scenario]", `command = "/opt/toolscore/toolscore"`,
		`args = ["proxy", "--", "a \"quoted\" arg", "tab\u0009here\\"]`, `default_tools_approval_mode = "approve"`, "shell_tool = false",
		"[analytics]\nenabled = false", "check_for_update_on_startup = false",
	} {
		if !strings.Contains(c, want) {
			t.Errorf("config lacks %q:\n%s", want, c)
		}
	}
}

// TestCodexConfigHTTP: on the http transport the server is a url entry, with no command.
func TestCodexConfigHTTP(t *testing.T) {
	c := codexConfig("gpt-5.5", "http://127.0.0.1:4242/v1", client.Request{URL: "http://127.0.0.1:4343/mcp"})
	if !strings.Contains(c, "[mcp_servers.scenario]\nurl = \"http://127.0.0.1:4343/mcp\"\nstartup_timeout_sec") || strings.Contains(c, "command =") {
		t.Errorf("config:\n%s", c)
	}
}
