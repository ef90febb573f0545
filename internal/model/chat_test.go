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

// A request shaped like an OpenAI-compatible agent's (Qwen Code's): the MCP tool under a
// prefixed name among the agent's own, then its call and the tool message answering it.
const (
	chatTools  = `"tools":[{"type":"function","function":{"name":"read_file","parameters":{"type":"object"}}},{"type":"function","function":{"name":"mcp__scenario__get_account_balance","description":"d","parameters":{"type":"object","properties":{"account_id":{"type":"string"}}}}}]`
	chatPrompt = `{"role":"system","content":"be brief"},{"role":"user","content":"What is the balance of ledger account ACC-4471?"}`
	chatCalled = `{"role":"assistant","content":null,"tool_calls":[{"id":"` + ChatCallID + `","type":"function","function":{"name":"mcp__scenario__get_account_balance","arguments":"{\"account_id\":\"ACC-4471\"}"}}]}`
)

func chatReq(stream bool, messages string) string {
	s := "false"
	if stream {
		s = `true,"stream_options":{"include_usage":true}`
	}
	return `{"model":"qwen3-coder-plus","stream":` + s + `,` + chatTools + `,"messages":[` + messages + `]}`
}

// readChatSSE reads a chat completion stream: its chunks, and whether it ended with [DONE].
func readChatSSE(t *testing.T, r io.Reader) (chunks []map[string]any, done bool) {
	t.Helper()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "data: ") {
			if line != "" {
				t.Errorf("unexpected line %q", line)
			}
			continue
		}
		data := strings.TrimPrefix(line, "data: ")
		if data == "[DONE]" {
			done = true
			continue
		}
		if done {
			t.Errorf("a chunk after [DONE]: %s", data)
		}
		var c map[string]any
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("chunk is not JSON: %v", err)
		}
		chunks = append(chunks, c)
	}
	return chunks, done
}

// accumulateChat joins the deltas the way the OpenAI SDK's stream helpers do: content, tool
// calls by index (id and name from the first, arguments appended), the finish reason, usage.
func accumulateChat(chunks []map[string]any) (content, callID, name, args, finish string, usage map[string]any) {
	for _, c := range chunks {
		if u, ok := c["usage"].(map[string]any); ok {
			usage = u
		}
		if c["object"] != "chat.completion.chunk" {
			finish = "bad object " + c["object"].(string)
		}
		for _, ch := range c["choices"].([]any) {
			ch := ch.(map[string]any)
			if f, ok := ch["finish_reason"].(string); ok {
				finish = f
			}
			d := ch["delta"].(map[string]any)
			if s, ok := d["content"].(string); ok {
				content += s
			}
			calls, _ := d["tool_calls"].([]any)
			for _, tc := range calls {
				tc := tc.(map[string]any)
				if tc["index"].(float64) != 0 {
					continue
				}
				if id, ok := tc["id"].(string); ok {
					callID = id
				}
				f := tc["function"].(map[string]any)
				if n, ok := f["name"].(string); ok {
					name += n
				}
				if a, ok := f["arguments"].(string); ok {
					args += a
				}
			}
		}
	}
	return
}

// The scripted model calls the tool under the name the agent exposes, streamed in pieces, then
// answers from the tool message, quoting it; the recording keeps both requests.
func TestChatStreamsTheCallThenAnswers(t *testing.T) {
	var rec bytes.Buffer
	s, err := Start(Chat, script, &rec)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	resp := post(t, s, "/v1/chat/completions", chatReq(true, chatPrompt))
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type %q", ct)
	}
	chunks, done := readChatSSE(t, resp.Body)
	if !done || len(chunks) != 6 {
		t.Errorf("%d chunks, done %v; want 6 (role, call, 2 argument pieces, finish, usage) and [DONE]", len(chunks), done)
	}
	content, id, name, args, finish, usage := accumulateChat(chunks)
	if content != "" || id != ChatCallID || name != "mcp__scenario__get_account_balance" || args != `{"account_id":"ACC-4471"}` || finish != "tool_calls" {
		t.Errorf("call turn: content %q, id %q, name %q, args %q, finish %q", content, id, name, args, finish)
	}
	if usage == nil || usage["total_tokens"] == nil {
		t.Errorf("no usage chunk: %v", usage)
	}

	tool := `{"role":"tool","tool_call_id":"` + ChatCallID + `","content":"{\"account_id\":\"ACC-4471\",\"balance_minor\":\"4071877\"}"}`
	chunks, done = readChatSSE(t, post(t, s, "/chat/completions", chatReq(true, chatPrompt+","+chatCalled+","+tool)).Body)
	content, id, _, _, finish, _ = accumulateChat(chunks)
	if !done || id != "" || finish != "stop" || content != `The tool returned: {"account_id":"ACC-4471","balance_minor":"4071877"}` {
		t.Errorf("answer turn: content %q, call %q, finish %q, done %v", content, id, finish, done)
	}

	reqs, err := ReadRequests(&rec)
	if err != nil || len(reqs) != 2 {
		t.Fatalf("recorded %d requests (%v)", len(reqs), err)
	}
	if reqs[0].Reply != "call mcp__scenario__get_account_balance" || reqs[1].Reply != "answer" || reqs[1].Path != "/chat/completions" {
		t.Errorf("recorded %+v", reqs)
	}
	var cr ChatRequest
	if err := json.Unmarshal(reqs[1].Body, &cr); err != nil {
		t.Fatal(err)
	}
	m := cr.FindToolMessage(ChatCallID)
	if m == nil || string(m.Raw) != tool || !reflect.DeepEqual(m.Parts(), []string{`{"account_id":"ACC-4471","balance_minor":"4071877"}`}) {
		t.Errorf("tool message %+v", m)
	}
	if cr.CalledName(ChatCallID) != "mcp__scenario__get_account_balance" || cr.ToolDef("mcp__scenario__get_account_balance") == nil || cr.ToolDef("nope") != nil {
		t.Errorf("called %q", cr.CalledName(ChatCallID))
	}
}

// Non-streaming: one chat.completion with the tool call, then the answer; content given as a
// list of text parts is read part by part, joined by newlines.
func TestChatNonStreaming(t *testing.T) {
	s, err := Start(Chat, script, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var r struct {
		Object  string `json:"object"`
		Choices []struct {
			FinishReason string `json:"finish_reason"`
			Message      struct {
				Content   *string `json:"content"`
				ToolCalls []struct {
					ID       string `json:"id"`
					Type     string `json:"type"`
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
		Usage map[string]int `json:"usage"`
	}
	if err := json.NewDecoder(post(t, s, "/v1/chat/completions", chatReq(false, chatPrompt)).Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r.Object != "chat.completion" || len(r.Choices) != 1 || r.Choices[0].FinishReason != "tool_calls" || r.Choices[0].Message.Content != nil ||
		len(r.Choices[0].Message.ToolCalls) != 1 || r.Choices[0].Message.ToolCalls[0].ID != ChatCallID || r.Choices[0].Message.ToolCalls[0].Type != "function" ||
		r.Choices[0].Message.ToolCalls[0].Function.Name != "mcp__scenario__get_account_balance" || r.Usage["total_tokens"] == 0 {
		t.Fatalf("call turn: %+v", r)
	}
	tool := `{"role":"tool","tool_call_id":"` + ChatCallID + `","content":[{"type":"text","text":"Error: upstream down"},{"type":"text","text":"try later"}]}`
	r.Choices = nil
	if err := json.NewDecoder(post(t, s, "/v1/chat/completions", chatReq(false, chatPrompt+","+chatCalled+","+tool)).Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if len(r.Choices) != 1 || r.Choices[0].FinishReason != "stop" || r.Choices[0].Message.Content == nil ||
		*r.Choices[0].Message.Content != "The tool returned: Error: upstream down\ntry later" {
		t.Errorf("answer turn: %+v", r)
	}
}

// The models list names the scripted model; a request without the tool gets the script's
// words; a body that is not JSON and another path are refused as the API refuses them.
func TestChatOtherRoutes(t *testing.T) {
	s, err := Start(Chat, script, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, p := range []string{"/v1/models", "/models"} {
		resp, err := http.Get(s.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		var l struct {
			Object string
			Data   []struct{ ID string }
		}
		_ = json.NewDecoder(resp.Body).Decode(&l)
		resp.Body.Close()
		if l.Object != "list" || len(l.Data) != 1 || l.Data[0].ID != ScriptedChatModel {
			t.Errorf("%s: %+v", p, l)
		}
	}
	chunks, _ := readChatSSE(t, post(t, s, "/v1/chat/completions", `{"model":"m","stream":true,"messages":[`+chatPrompt+`]}`).Body)
	if content, _, _, _, finish, usage := accumulateChat(chunks); content != "I have no tool named get_account_balance." || finish != "stop" || usage != nil {
		t.Errorf("without the tool: %q %q %v", content, finish, usage)
	}
	if resp := post(t, s, "/v1/chat/completions", `not json`); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("bad body: %d", resp.StatusCode)
	}
	if resp := post(t, s, "/v1/responses", `{}`); resp.StatusCode != http.StatusNotFound {
		t.Errorf("responses path: %d", resp.StatusCode)
	}
	// A name the agent gives with a single underscore (<server>_<tool>) is found too.
	if n := Exposed([]string{"bash", "scenario_get_account_balance"}, "get_account_balance"); n != "scenario_get_account_balance" {
		t.Errorf("exposed %q", n)
	}
}
