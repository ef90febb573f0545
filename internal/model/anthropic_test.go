package model

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

var script = Script{Tool: "get_account_balance", Arguments: map[string]any{"account_id": "ACC-4471"}}

// sse is one server-sent event.
type sse struct {
	Event string
	Data  map[string]any
}

func post(t *testing.T, s *Server, path, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.URL+path, strings.NewReader(body))
	req.Header.Set("content-type", "application/json")
	req.Header.Set("x-api-key", "dummy")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// readSSE reads a whole event stream, checking that every event's data names its own type.
func readSSE(t *testing.T, r io.Reader) []sse {
	t.Helper()
	var out []sse
	var cur sse
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.Event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.Data); err != nil {
				t.Fatalf("event %s: data is not JSON: %v", cur.Event, err)
			}
		case line == "":
			if cur.Data["type"] != cur.Event {
				t.Errorf("event %q carries data of type %v", cur.Event, cur.Data["type"])
			}
			out = append(out, cur)
			cur = sse{}
		}
	}
	return out
}

func types(events []sse) []string {
	var ts []string
	for _, e := range events {
		ts = append(ts, e.Event)
	}
	return ts
}

// accumulate joins the deltas of block 0 the way the Anthropic SDK does.
func accumulate(events []sse) (start map[string]any, joined string) {
	for _, e := range events {
		switch e.Event {
		case "content_block_start":
			start = e.Data["content_block"].(map[string]any)
		case "content_block_delta":
			d := e.Data["delta"].(map[string]any)
			if s, ok := d["partial_json"].(string); ok {
				joined += s
			}
			if s, ok := d["text"].(string); ok {
				joined += s
			}
		}
	}
	return start, joined
}

var wantOrder = []string{"message_start", "content_block_start", "content_block_delta", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}

// A hand-made first request, shaped like Claude Code's: the scripted model calls the tool by
// the name the agent exposes it under, with the scenario's arguments, as a streamed tool_use.
func TestAnthropicStreamsTheToolCall(t *testing.T) {
	var rec bytes.Buffer
	s, err := Start(Anthropic, script, &rec)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	resp := post(t, s, "/v1/messages?beta=true", `{"model":"claude-opus-5-5","stream":true,"max_tokens":1024,
		"tools":[{"name":"mcp__scenario__list_accounts","input_schema":{"type":"object"}},
		         {"name":"mcp__scenario__get_account_balance","input_schema":{"type":"object","properties":{"account_id":{"type":"string"}}}}],
		"messages":[{"role":"user","content":[{"type":"text","text":"What is the balance of ACC-4471?"}]}]}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type %q", ct)
	}
	events := readSSE(t, resp.Body)
	if got := types(events); !reflect.DeepEqual(got, wantOrder) {
		t.Fatalf("events %v, want %v", got, wantOrder)
	}
	start, args := accumulate(events)
	if start["type"] != "tool_use" || start["name"] != "mcp__scenario__get_account_balance" || start["id"] != CallID {
		t.Errorf("content block %v", start)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(args), &got); err != nil || !reflect.DeepEqual(got, script.Arguments) {
		t.Errorf("input %q (%v), want the scenario's arguments", args, err)
	}
	if stop := events[5].Data["delta"].(map[string]any)["stop_reason"]; stop != "tool_use" {
		t.Errorf("stop_reason %v", stop)
	}
	msg := events[0].Data["message"].(map[string]any)
	if msg["role"] != "assistant" || msg["model"] != "claude-opus-5-5" {
		t.Errorf("message_start %v", msg)
	}
	s.Close()
	recs, err := ReadRequests(&rec)
	if err != nil || len(recs) != 1 || recs[0].Path != "/v1/messages?beta=true" || recs[0].Reply != "call mcp__scenario__get_account_balance" {
		t.Fatalf("recorded %+v (%v)", recs, err)
	}
	var body MessagesRequest
	if err := json.Unmarshal(recs[0].Body, &body); err != nil || len(body.Tools) != 2 {
		t.Errorf("the recorded body is not the request: %v", err)
	}
}

// The request carrying the tool_result gets the final answer, in text, from what it carried:
// the JSON as it was, an error as an error, nothing as nothing.
func TestAnthropicAnswersFromTheToolResult(t *testing.T) {
	s, err := Start(Anthropic, script, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct{ result, want string }{
		{`{"type":"tool_result","tool_use_id":"` + CallID + `","content":"{\"balance_minor\":4071877}"}`, `The tool returned: {"balance_minor":4071877}`},
		{`{"type":"tool_result","tool_use_id":"` + CallID + `","content":[{"type":"text","text":"ACC-4471: balance 40,718.77 USD"}]}`, "The tool returned: ACC-4471: balance 40,718.77 USD"},
		{`{"type":"tool_result","tool_use_id":"` + CallID + `","is_error":true,"content":"Internal error"}`, "The tool call failed: Internal error"},
		{`{"type":"tool_result","tool_use_id":"` + CallID + `","content":[]}`, "The tool returned nothing I can use."},
	} {
		body := `{"model":"m","stream":true,"tools":[{"name":"mcp__scenario__get_account_balance"}],"messages":[
			{"role":"user","content":"What is the balance?"},
			{"role":"assistant","content":[{"type":"tool_use","id":"` + CallID + `","name":"mcp__scenario__get_account_balance","input":{"account_id":"ACC-4471"}}]},
			{"role":"user","content":[` + c.result + `]}]}`
		events := readSSE(t, post(t, s, "/v1/messages", body).Body)
		if got := types(events); !reflect.DeepEqual(got, wantOrder) {
			t.Fatalf("events %v", got)
		}
		start, text := accumulate(events)
		if start["type"] != "text" || text != c.want {
			t.Errorf("answer %v %q, want %q", start["type"], text, c.want)
		}
		if stop := events[5].Data["delta"].(map[string]any)["stop_reason"]; stop != "end_turn" {
			t.Errorf("stop_reason %v", stop)
		}
	}
}

// A tool deferred behind a tool search is selected first, then called once the search result
// is in; non-streaming requests and count_tokens are answered too.
func TestAnthropicToolSearchAndOtherRoutes(t *testing.T) {
	s, err := Start(Anthropic, script, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	decode := func(resp *http.Response) map[string]any {
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	first := decode(post(t, s, "/v1/messages", `{"model":"m","tools":[{"name":"ToolSearch"},{"name":"DeferredToolPlaceholder","defer_loading":true}],
		"messages":[{"role":"user","content":"The following deferred tools are available:\nmcp__scenario__get_account_balance\nWebFetch"}]}`))
	block := first["content"].([]any)[0].(map[string]any)
	if block["name"] != "ToolSearch" || block["id"] != SearchID || !reflect.DeepEqual(block["input"], map[string]any{"query": "select:mcp__scenario__get_account_balance", "max_results": float64(1)}) {
		t.Errorf("first turn %v", block)
	}
	second := decode(post(t, s, "/v1/messages", `{"model":"m","tools":[{"name":"ToolSearch"},{"name":"mcp__scenario__get_account_balance","defer_loading":true}],
		"messages":[{"role":"user","content":"balance?"},
		{"role":"assistant","content":[{"type":"tool_use","id":"`+SearchID+`","name":"ToolSearch","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+SearchID+`","content":[{"type":"tool_reference","tool_name":"mcp__scenario__get_account_balance"}]}]}]}`))
	block = second["content"].([]any)[0].(map[string]any)
	if block["name"] != "mcp__scenario__get_account_balance" || block["id"] != CallID || second["stop_reason"] != "tool_use" {
		t.Errorf("second turn %v", second)
	}
	if n := decode(post(t, s, "/v1/messages/count_tokens", `{"messages":[]}`))["input_tokens"]; n == nil {
		t.Error("count_tokens gave no input_tokens")
	}
	if resp := post(t, s, "/v1/complete", `{}`); resp.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown route answered %d", resp.StatusCode)
	}
	noTool := decode(post(t, s, "/v1/messages", `{"model":"m","messages":[{"role":"user","content":"Write a title"}]}`))
	if block := noTool["content"].([]any)[0].(map[string]any); block["type"] != "text" {
		t.Errorf("a request without the tool got %v", block)
	}
	if len(s.Requests()) != 5 {
		t.Errorf("%d requests recorded, want 5", len(s.Requests()))
	}
}
