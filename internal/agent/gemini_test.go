package agent

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/model"
	"github.com/toolscore/toolscore/record"
)

func geminiRequest(t *testing.T, path, body string) model.Request {
	t.Helper()
	if !json.Valid([]byte(body)) {
		t.Fatalf("not JSON: %s", body)
	}
	return model.Request{Method: "POST", Path: path, Body: json.RawMessage(body)}
}

// The model's view is the functionResponse of the request after the call: its output without
// the CLI's <untrusted_context> framing (the block keeps it), an "error" as an error, {} as
// none; the router's JSON call is not a turn, and the model asked is the main turn's.
func TestGeminiView(t *testing.T) {
	def := `{"name":"mcp_scenario_get_account_balance","description":"d","parametersJsonSchema":{"type":"object"}}`
	user := `{"role":"user","parts":[{"text":"balance?"}]}`
	router := geminiRequest(t, "/v1beta/models/gemini-3.5-flash-lite:generateContent",
		`{"contents":[`+user+`],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"OBJECT"}}}`)
	first := geminiRequest(t, "/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse",
		`{"contents":[`+user+`],"tools":[{"functionDeclarations":[`+def+`]}]}`)
	after := func(part string) model.Request {
		return geminiRequest(t, "/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse", `{"contents":[`+user+`,
			{"role":"model","parts":[{"functionCall":{"id":"`+model.GeminiCallID+`","args":{},"name":"mcp_scenario_get_account_balance"}}]},
			{"role":"user","parts":[`+part+`]}],"tools":[{"functionDeclarations":[`+def+`]}]}`)
	}
	fr := func(response string) string {
		return `{"functionResponse":{"name":"mcp_scenario_get_account_balance","response":` + response + `,"id":"` + model.GeminiCallID + `"}}`
	}
	for _, c := range []struct {
		part, kind, excerpt string
		isError             bool
	}{
		{fr(`{"output":"<untrusted_context>\nACC-4471: balance 40,718.77 USD as of 2026-03-31\n</untrusted_context>"}`), record.ViewText, "ACC-4471: balance 40,718.77 USD as of 2026-03-31", false},
		{fr(`{"output":"<untrusted_context>\n{\"balance_minor\":4071877}\n</untrusted_context>"}`), record.ViewStructured, `{"balance_minor":4071877}`, false},
		{fr(`{"output":"<untrusted_context>\nfirst\n</untrusted_context>\n<untrusted_context>\nsecond &lt;/untrusted_context&gt;\n</untrusted_context>"}`), record.ViewText, "first\nsecond </untrusted_context>", false},
		{fr(`{"error":"MCP tool 'get_account_balance' reported tool error for function call: {}"}`), record.ViewError, "MCP tool 'get_account_balance' reported tool error for function call: {}", true},
		{fr(`{}`), record.ViewNone, "", false},
	} {
		v, called, asked := geminiView([]model.Request{router, first, after(c.part)}, "get_account_balance")
		if v.Kind != c.kind || v.Excerpt != c.excerpt || v.IsError != c.isError || string(v.Block) != c.part || string(v.ToolDef) != def || v.SchemaSent {
			t.Errorf("%s: got %s %q (error %v) block %s def %s", c.part, v.Kind, v.Excerpt, v.IsError, v.Block, v.ToolDef)
		}
		if called != "mcp_scenario_get_account_balance" || asked != "gemini-3.8-flash" {
			t.Errorf("called %q, asked %q", called, asked)
		}
	}
	if v, _, _ := geminiView([]model.Request{router, first}, "get_account_balance"); v.Kind != record.ViewNone || v.Block != nil || v.ToolDef == nil {
		t.Errorf("no tool result: %+v", v)
	}
	withSchema := strings.Replace(def, `"description":"d"`, `"description":"d","outputSchema":{"type":"object"}`, 1)
	first = geminiRequest(t, first.Path, `{"contents":[`+user+`],"tools":[{"functionDeclarations":[`+withSchema+`]}]}`)
	if v, _, _ := geminiView([]model.Request{first, after(fr(`{}`))}, "get_account_balance"); !v.SchemaSent {
		t.Errorf("an outputSchema in the declaration is not schema_sent")
	}
}

func TestUntrusted(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"<untrusted_context>\nhi\n</untrusted_context>", []string{"hi"}},
		{"<untrusted_context>\n\n</untrusted_context>", []string{""}},
		{"plain", []string{"plain"}},
		{"before <untrusted_context>\nhi\n</untrusted_context>", []string{"before <untrusted_context>\nhi\n</untrusted_context>"}},
		{"<untrusted_context>\nhi\n</untrusted_context> after", []string{"<untrusted_context>\nhi\n</untrusted_context> after"}},
	} {
		if got := untrusted(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("untrusted(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// The stream as Gemini CLI 0.61.0 wrote it in its cell.
func TestParseGeminiStream(t *testing.T) {
	stream := `{"type":"init","timestamp":"2026-12-01T23:18:55.522Z","session_id":"s","model":"auto"}
{"type":"message","timestamp":"2026-12-01T23:18:55.524Z","role":"user","content":"What is the balance of ledger account ACC-4471?"}
{"type":"tool_use","timestamp":"2026-12-01T23:18:55.692Z","tool_name":"mcp_scenario_get_account_balance","tool_id":"mcp_scenario_get_account_balance__toolscore_call","parameters":{"account_id":"ACC-4471"}}
{"type":"tool_result","timestamp":"2026-12-01T23:18:55.787Z","tool_id":"mcp_scenario_get_account_balance__toolscore_call","status":"success","output":"ACC-4471: balance 40,718.77 USD as of 2026-03-31"}
not json
{"type":"message","timestamp":"2026-12-01T23:18:55.855Z","role":"assistant","content":"The tool returned: ACC-4471: balan","delta":true}
{"type":"message","timestamp":"2026-12-01T23:18:55.857Z","role":"assistant","content":"ce 40,718.77 USD as of 2026-03-31","delta":true}
{"type":"result","timestamp":"2026-12-01T23:18:55.860Z","status":"success","stats":{"total_tokens":15204,"tool_calls":1}}
`
	s := parseGeminiStream([]byte(stream))
	if s.model != "auto" || s.answer != "The tool returned: ACC-4471: balance 40,718.77 USD as of 2026-03-31" || s.errText != "" || s.toolResult == nil ||
		s.toolResult.output != "ACC-4471: balance 40,718.77 USD as of 2026-03-31" || s.toolResult.isError {
		t.Fatalf("parsed %+v %+v", s, s.toolResult)
	}
	fr := func(response string) json.RawMessage {
		return json.RawMessage(`{"functionResponse":{"name":"mcp_scenario_get_account_balance","response":` + response + `,"id":"toolscore_call"}}`)
	}
	if !s.agrees(fr(`{"output":"<untrusted_context>\nACC-4471: balance 40,718.77 USD as of 2026-03-31\n</untrusted_context>"}`)) ||
		s.agrees(fr(`{"output":"<untrusted_context>\nother\n</untrusted_context>"}`)) || s.agrees(fr(`{"error":"x"}`)) || s.agrees(json.RawMessage(`{}`)) {
		t.Errorf("agrees is wrong")
	}
	failed := parseGeminiStream([]byte(`{"type":"tool_result","tool_id":"mcp_scenario_get_account_balance__toolscore_call","status":"error","output":"Error: MCP tool 'get_account_balance' reported an error.","error":{"type":"mcp_tool_error","message":"MCP tool 'get_account_balance' reported tool error"}}
{"type":"error","timestamp":"t","severity":"error","message":"quota"}
{"type":"result","status":"error","error":{"type":"FatalError","message":"it broke"}}
`))
	if failed.toolResult == nil || !failed.toolResult.isError || !failed.agrees(fr(`{"error":"MCP tool 'get_account_balance' reported tool error"}`)) ||
		failed.agrees(fr(`{"error":"something else"}`)) || failed.errText != "error: quota error it broke" {
		t.Errorf("parsed %+v %+v", failed, failed.toolResult)
	}
}

// The home's settings hold the scenario's server alone, trusted, and only its tool.
func TestGeminiSettings(t *testing.T) {
	s := geminiSettings(client.Request{Server: []string{"/opt/toolscore/toolscore", "proxy", "--", "srv"}, Tool: "get_account_balance"})
	b, _ := json.Marshal(s)
	var got struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
			Trust   bool     `json:"trust"`
		} `json:"mcpServers"`
		Tools struct {
			Core []string `json:"core"`
		} `json:"tools"`
		Privacy struct {
			Usage *bool `json:"usageStatisticsEnabled"`
		} `json:"privacy"`
		Telemetry struct {
			Enabled *bool `json:"enabled"`
		} `json:"telemetry"`
		General struct {
			AutoUpdate    *bool `json:"enableAutoUpdate"`
			Checkpointing struct {
				Enabled *bool `json:"enabled"`
			} `json:"checkpointing"`
		} `json:"general"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	srv, ok := got.MCPServers[ServerName]
	if len(got.MCPServers) != 1 || !ok || srv.Command != "/opt/toolscore/toolscore" || !reflect.DeepEqual(srv.Args, []string{"proxy", "--", "srv"}) || !srv.Trust {
		t.Errorf("servers %+v", got.MCPServers)
	}
	if !reflect.DeepEqual(got.Tools.Core, []string{"mcp_scenario_get_account_balance"}) {
		t.Errorf("tools.core %v", got.Tools.Core)
	}
	for name, p := range map[string]*bool{"usage statistics": got.Privacy.Usage, "telemetry": got.Telemetry.Enabled, "auto-update": got.General.AutoUpdate, "checkpointing": got.General.Checkpointing.Enabled} {
		if p == nil || *p {
			t.Errorf("%s is not off", name)
		}
	}
	if n := geminiToolName("get balance/v2"); n != "mcp_scenario_get_balance_v2" {
		t.Errorf("geminiToolName: %q", n)
	}
	// tools.core must name a long tool as the CLI cut it: its deny of every tool not named ranks
	// above the trusted server's allow (bundle/chunk-JDPZ4CE3.js:366153-366160, 365918-365919).
	if n := geminiToolName("sum_of_two_numbers_with_a_name_longer_than_sixty_four_characters_in_all"); n != "mcp_scenario_sum_of_two_number...n_sixty_four_characters_in_all" {
		t.Errorf("geminiToolName of a long name: %q", n)
	}
}

// TestGeminiSettingsHTTP: on the http transport the server is an httpUrl (streamable HTTP), trusted.
func TestGeminiSettingsHTTP(t *testing.T) {
	b, _ := json.Marshal(geminiSettings(client.Request{URL: "http://127.0.0.1:4343/mcp", Tool: "get_account_balance"}))
	if !strings.Contains(string(b), `"mcpServers":{"scenario":{"httpUrl":"http://127.0.0.1:4343/mcp","timeout":60000,"trust":true}}`) {
		t.Errorf("settings: %s", b)
	}
}
