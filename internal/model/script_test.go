package model

import (
	"encoding/json"
	"testing"
)

// Each vendor's request carrying the same tool result, in the shape its agent sends it, gets the
// same answer: the script's rule is one, so the agents stay comparable. A request without the
// tool gets the same reply too.
func TestOneAnswerForEveryVendor(t *testing.T) {
	anthropicResult := func(result string) string {
		return `{"model":"m","tools":[{"name":"mcp__scenario__get_account_balance"}],"messages":[{"role":"user","content":"balance?"},
			{"role":"assistant","content":[{"type":"tool_use","id":"` + CallID + `","name":"mcp__scenario__get_account_balance","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + CallID + `",` + result + `}]}]}`
	}
	openaiOutput := func(out string) string {
		return `{"model":"m","tools":[{"type":"namespace","name":"mcp__scenario","tools":[{"type":"function","name":"get_account_balance"}]}],
			"input":[` + codexPrompt + `,` + codexCalled + `,` + output(out) + `]}`
	}
	geminiResponse := func(response string) string {
		return `{"contents":[` + geminiUser + `,` + geminiCall + `,{"role":"user","parts":[{"functionResponse":{"name":"mcp_scenario_get_account_balance","response":` + response + `,"id":"` + GeminiCallID + `"}}]}],
			"tools":[{"functionDeclarations":[` + geminiDecl + `]}]}`
	}
	for _, c := range []struct {
		name                      string
		anthropic, openai, gemini string // the request, in each vendor's shape
		want                      string
		// wantOpenAI is the Responses answer where it must differ: that API has no error flag,
		// and Codex sends an isError result as its bare text, which the rule can only quote.
		wantOpenAI string
	}{
		{
			name:      "structured",
			anthropic: anthropicResult(`"content":"{\"balance_minor\":4071877}"`),
			openai:    openaiOutput(`"Wall time: 0.0031 seconds\nOutput:\n{\"balance_minor\":4071877}"`),
			gemini:    geminiResponse(`{"balance_minor":4071877}`),
			want:      `The tool returned: {"balance_minor":4071877}`,
		},
		{
			name:      "text",
			anthropic: anthropicResult(`"content":[{"type":"text","text":"ACC-4471: balance 40,718.77 USD"}]`),
			openai:    openaiOutput(`[{"type":"input_text","text":"Wall time: 0.0030 seconds\nOutput:"},{"type":"input_text","text":"ACC-4471: balance 40,718.77 USD"}]`),
			gemini:    geminiResponse(`{"output":"ACC-4471: balance 40,718.77 USD"}`),
			want:      "The tool returned: ACC-4471: balance 40,718.77 USD",
		},
		{
			name:      "both",
			anthropic: anthropicResult(`"content":[{"type":"text","text":"ACC-4471: balance 40,718.77 USD"},{"type":"text","text":"{\"balance_minor\":4071877}"}]`),
			openai:    openaiOutput(`[{"type":"input_text","text":"Wall time: 0.0030 seconds\nOutput:"},{"type":"input_text","text":"ACC-4471: balance 40,718.77 USD"},{"type":"input_text","text":"{\"balance_minor\":4071877}"}]`),
			gemini:    geminiResponse(`{"output":"ACC-4471: balance 40,718.77 USD\n{\"balance_minor\":4071877}"}`),
			want:      "The tool returned: ACC-4471: balance 40,718.77 USD\n{\"balance_minor\":4071877}",
		},
		{
			name:       "error",
			anthropic:  anthropicResult(`"is_error":true,"content":[{"type":"text","text":"account ACC-4471 is locked"}]`),
			openai:     openaiOutput(`"Wall time: 0.0029 seconds\nOutput:\naccount ACC-4471 is locked"`),
			gemini:     geminiResponse(`{"error":"account ACC-4471 is locked"}`),
			want:       "The tool call failed: account ACC-4471 is locked",
			wantOpenAI: "The tool returned: account ACC-4471 is locked",
		},
		{
			name:      "empty",
			anthropic: anthropicResult(`"content":[]`),
			openai:    openaiOutput(`[{"type":"input_text","text":"Wall time: 0.0057 seconds\nOutput:"}]`),
			gemini:    geminiResponse(`{}`),
			want:      "The tool returned nothing I can use.",
		},
		{
			name:      "no tool",
			anthropic: `{"model":"m","tools":[{"name":"mcp__scenario__list_accounts"}],"messages":[{"role":"user","content":"balance?"}]}`,
			openai:    `{"model":"m","tools":[{"type":"function","name":"list_accounts"}],"input":"balance?"}`,
			gemini:    `{"contents":[` + geminiUser + `],"tools":[{"functionDeclarations":[{"name":"mcp_scenario_list_accounts"}]}]}`,
			want:      "I have no tool named get_account_balance.",
		},
	} {
		wantOpenAI := c.want
		if c.wantOpenAI != "" {
			wantOpenAI = c.wantOpenAI
		}
		for _, v := range []struct {
			vendor     string
			server     Vendor
			path, body string
			text       func(map[string]any) any
			want       string
		}{
			{"anthropic", Anthropic, "/v1/messages", c.anthropic, func(m map[string]any) any {
				return m["content"].([]any)[0].(map[string]any)["text"]
			}, c.want},
			{"openai", OpenAI, "/v1/responses", c.openai, func(m map[string]any) any {
				return m["output"].([]any)[0].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]
			}, wantOpenAI},
			{"gemini", Gemini, "/v1beta/models/gemini-3.8-flash:generateContent", c.gemini, func(m map[string]any) any {
				return m["candidates"].([]any)[0].(map[string]any)["content"].(map[string]any)["parts"].([]any)[0].(map[string]any)["text"]
			}, c.want},
		} {
			s, err := Start(v.server, script, nil)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.NewDecoder(post(t, s, v.path, v.body).Body).Decode(&m); err != nil {
				t.Fatalf("%s, %s: %v", c.name, v.vendor, err)
			}
			s.Close()
			if got := v.text(m); got != v.want {
				t.Errorf("%s, %s: answered %q, want %q", c.name, v.vendor, got, v.want)
			}
		}
	}
}
