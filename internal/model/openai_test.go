package model

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// Requests shaped like Codex 0.171.0's (cut to what the script reads): the MCP server's tools
// deferred behind the client-executed tool_search, then loaded by the tool_search_output as a
// namespace mcp__scenario, then the function_call_output in Codex's wall-time frame.
const (
	codexTools = `"tools":[{"type":"function","name":"list_mcp_resources","parameters":{"type":"object"}},
		{"type":"custom","name":"apply_patch"},
		{"type":"tool_search","execution":"client","parameters":{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"number"}}}}]`
	codexPrompt  = `{"type":"message","role":"user","content":[{"type":"input_text","text":"What is the balance of ledger account ACC-4471?"}]}`
	codexSearch  = `{"type":"tool_search_call","id":"ts_1","call_id":"` + ResponsesSearchID + `","status":"completed","execution":"client","arguments":{"limit":1,"query":"get_account_balance"}}`
	codexLoaded  = `{"type":"tool_search_output","id":"tso_1","call_id":"` + ResponsesSearchID + `","status":"completed","execution":"client","tools":[{"type":"namespace","name":"mcp__scenario","description":"Tools in the mcp__scenario namespace.","tools":[{"type":"function","name":"get_account_balance","strict":false,"defer_loading":true,"parameters":{"type":"object","properties":{"account_id":{"type":"string"}}}}]}]}`
	codexCalled  = `{"type":"function_call","status":"completed","id":"fc_2","name":"get_account_balance","namespace":"mcp__scenario","arguments":"{\"account_id\":\"ACC-4471\"}","call_id":"` + ResponsesCallID + `"}`
	responsesReq = `{"model":"gpt-5.5","stream":true,"tool_choice":"auto","store":false,` + codexTools + `,"input":[`
)

func output(out string) string {
	return `{"type":"function_call_output","id":"fco_3","call_id":"` + ResponsesCallID + `","output":` + out + `}`
}

// accumulateResponse joins a Responses stream the way Codex does: the items of
// output_item.done, the text and argument deltas, and the completed response.
func accumulateResponse(t *testing.T, events []sse) (items []map[string]any, deltas string, completed map[string]any) {
	t.Helper()
	for _, e := range events {
		switch e.Event {
		case "response.output_item.done":
			items = append(items, e.Data["item"].(map[string]any))
		case "response.output_text.delta", "response.function_call_arguments.delta":
			deltas += e.Data["delta"].(string)
		case "response.completed":
			completed = e.Data["response"].(map[string]any)
		}
	}
	if completed == nil {
		t.Fatalf("no response.completed in %v", types(events))
	}
	return items, deltas, completed
}

// The scripted model searches for the deferred tool, calls it under its namespace once the
// search loaded it, then answers from its output; each turn streams the events Codex reads.
func TestOpenAIScriptThroughCodexTurns(t *testing.T) {
	var rec bytes.Buffer
	s, err := Start(OpenAI, script, &rec)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	resp := post(t, s, "/v1/responses", responsesReq+codexPrompt+`]}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type %q", ct)
	}
	events := readSSE(t, resp.Body)
	want := []string{"response.created", "response.in_progress", "response.output_item.added", "response.output_item.done", "response.completed"}
	if got := types(events); !reflect.DeepEqual(got, want) {
		t.Fatalf("search turn: events %v, want %v", got, want)
	}
	items, _, done := accumulateResponse(t, events)
	if len(items) != 1 || items[0]["type"] != "tool_search_call" || items[0]["call_id"] != ResponsesSearchID || items[0]["execution"] != "client" ||
		!reflect.DeepEqual(items[0]["arguments"], map[string]any{"query": "get_account_balance", "limit": float64(1)}) {
		t.Errorf("search turn: %v", items)
	}
	if done["status"] != "completed" || done["usage"].(map[string]any)["total_tokens"] == nil {
		t.Errorf("search turn: completed %v", done)
	}

	events = readSSE(t, post(t, s, "/v1/responses", responsesReq+codexPrompt+`,`+codexSearch+`,`+codexLoaded+`]}`).Body)
	want = []string{"response.created", "response.in_progress", "response.output_item.added", "response.function_call_arguments.delta",
		"response.function_call_arguments.delta", "response.function_call_arguments.done", "response.output_item.done", "response.completed"}
	if got := types(events); !reflect.DeepEqual(got, want) {
		t.Fatalf("call turn: events %v, want %v", got, want)
	}
	items, args, _ := accumulateResponse(t, events)
	if len(items) != 1 || items[0]["type"] != "function_call" || items[0]["name"] != "get_account_balance" || items[0]["namespace"] != "mcp__scenario" ||
		items[0]["call_id"] != ResponsesCallID || items[0]["arguments"] != args {
		t.Errorf("call turn: %v (deltas %q)", items, args)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(args), &got); err != nil || !reflect.DeepEqual(got, script.Arguments) {
		t.Errorf("arguments %q (%v), want the scenario's", args, err)
	}

	prior := responsesReq + codexPrompt + `,` + codexSearch + `,` + codexLoaded + `,` + codexCalled + `,`
	for _, c := range []struct{ out, want string }{
		{`"Wall time: 0.0031 seconds\nOutput:\n{\"balance_minor\":4071877}"`, `The tool returned: {"balance_minor":4071877}`},
		{`[{"type":"input_text","text":"Wall time: 0.0030 seconds\nOutput:"},{"type":"input_text","text":"ACC-4471: balance 40,718.77 USD"}]`, "The tool returned: ACC-4471: balance 40,718.77 USD"},
		{`[{"type":"input_text","text":"Wall time: 0.0057 seconds\nOutput:"}]`, "The tool returned nothing I can use."},
		{`"plain"`, "The tool returned: plain"},
	} {
		events = readSSE(t, post(t, s, "/v1/responses", prior+output(c.out)+`]}`).Body)
		want = []string{"response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
			"response.output_text.delta", "response.output_text.delta", "response.output_text.done", "response.content_part.done",
			"response.output_item.done", "response.completed"}
		if got := types(events); !reflect.DeepEqual(got, want) {
			t.Fatalf("answer turn: events %v", got)
		}
		items, text, _ := accumulateResponse(t, events)
		content := items[0]["content"].([]any)[0].(map[string]any)
		if items[0]["type"] != "message" || items[0]["role"] != "assistant" || text != c.want || content["text"] != c.want {
			t.Errorf("answer to %s: %v, deltas %q; want %q", c.out, items[0], text, c.want)
		}
	}
	s.Close()
	recs, err := ReadRequests(&rec)
	if err != nil || len(recs) != 6 {
		t.Fatalf("recorded %d requests (%v)", len(recs), err)
	}
	if recs[0].Reply != "call tool_search" || recs[1].Reply != "call mcp__scenario__get_account_balance" || recs[2].Reply != "answer" {
		t.Errorf("replies %q, %q, %q", recs[0].Reply, recs[1].Reply, recs[2].Reply)
	}
}

// The request helpers the adapter reads the model's view with: the tool under its qualified
// name (from the request's tools or the search's output), its definition as sent, the call,
// and the output less Codex's frame.
func TestResponsesRequestHelpers(t *testing.T) {
	var r ResponsesRequest
	body := responsesReq + codexPrompt + `,` + codexSearch + `,` + codexLoaded + `,` + codexCalled + `,` +
		output(`"Wall time: 0.0031 seconds\nOutput:\n[{\"balance_minor\":4071877}]"`) + `]}`
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatal(err)
	}
	if got := r.ToolNames(); !reflect.DeepEqual(got, []string{"list_mcp_resources", "mcp__scenario__get_account_balance"}) {
		t.Errorf("ToolNames %v", got)
	}
	if !r.HasToolSearch() {
		t.Error("no tool search found")
	}
	if def := r.ToolDef("mcp__scenario__get_account_balance"); !strings.Contains(string(def), `"defer_loading":true`) {
		t.Errorf("ToolDef %s", def)
	}
	if c := r.FindCall(ResponsesCallID); c == nil || Qualified(c.Namespace, c.Name) != "mcp__scenario__get_account_balance" {
		t.Errorf("FindCall %+v", c)
	}
	out := r.FindCallOutput(ResponsesCallID)
	if out == nil || !strings.HasPrefix(string(out.Raw), `{"type":"function_call_output"`) {
		t.Fatalf("FindCallOutput %+v", out)
	}
	if got := out.Body(); !reflect.DeepEqual(got, []string{`[{"balance_minor":4071877}]`}) {
		t.Errorf("Body %q", got)
	}
	if r.FindCallOutput("call_other") != nil {
		t.Error("found an output for another call")
	}
	for _, c := range []struct {
		out  string
		want []string
	}{
		{`[{"type":"input_text","text":"Wall time: 0.0030 seconds\nOutput:"},{"type":"input_text","text":"a"},{"type":"input_text","text":"b"}]`, []string{"a", "b"}},
		{`[{"type":"input_text","text":"Wall time: 0.0030 seconds\nOutput:"}]`, []string{}},
		{`"Wall time: 1.5 seconds\nTotal output lines: 3\nOutput:\nx"`, []string{"x"}},
		{`"Wall time is not a frame"`, []string{"Wall time is not a frame"}},
	} {
		it := Item{Output: json.RawMessage(c.out)}
		if got := it.Body(); len(got) != len(c.want) || (len(got) > 0 && !reflect.DeepEqual(got, c.want)) {
			t.Errorf("Body of %s = %q, want %q", c.out, got, c.want)
		}
	}
	if Qualified("", "t") != "t" || Qualified("mcp__s__", "t") != "mcp__s__t" || Qualified("mcp__s", "t") != "mcp__s__t" {
		t.Error("Qualified")
	}
}

// A tool listed directly (no search) is called at once; non-streaming requests get the whole
// response, /v1/models a list, other routes 404.
func TestOpenAIDirectToolsAndOtherRoutes(t *testing.T) {
	s, err := Start(OpenAI, script, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var first map[string]any
	resp := post(t, s, "/v1/responses", `{"model":"m","tools":[{"type":"namespace","name":"mcp__scenario","tools":[{"type":"function","name":"get_account_balance"}]}],"input":"balance?"}`)
	if err := json.NewDecoder(resp.Body).Decode(&first); err != nil {
		t.Fatal(err)
	}
	item := first["output"].([]any)[0].(map[string]any)
	if first["status"] != "completed" || item["type"] != "function_call" || item["name"] != "get_account_balance" || item["namespace"] != "mcp__scenario" {
		t.Errorf("non-streaming call %v", first)
	}
	resp = post(t, s, "/v1/responses", `{"model":"m","tools":[{"type":"function","name":"other"}],"input":"balance?"}`)
	var none map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&none)
	if text := none["output"].([]any)[0].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]; text != "I have no tool named get_account_balance." {
		t.Errorf("without the tool: %v", text)
	}
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/v1/models?client_version=0.171.0", nil)
	mr, err := http.DefaultClient.Do(req)
	if err != nil || mr.StatusCode != http.StatusOK {
		t.Fatalf("models: %v %v", mr, err)
	}
	mr.Body.Close()
	if resp := post(t, s, "/v1/chat/completions", `{}`); resp.StatusCode != http.StatusNotFound {
		t.Errorf("chat completions: %d", resp.StatusCode)
	}
	if resp := post(t, s, "/v1/responses", `not json`); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("bad body: %d", resp.StatusCode)
	}
}
