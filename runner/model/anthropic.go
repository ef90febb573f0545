package model

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
)

// Anthropic is the Messages API (POST /v1/messages, streaming or not, and count_tokens), as
// Claude Code calls it.
var Anthropic Vendor = anthropic{}

type anthropic struct{}

// The ids of the scripted model's tool calls: fixed, so a run's requests are the same bytes
// every time and the tool result is found by its tool_use_id.
const (
	CallID   = "toolu_toolscore_call"
	SearchID = "toolu_toolscore_search"
)

var msgSeq atomic.Int64

func (anthropic) handle(s *Server, w http.ResponseWriter, r *http.Request, body []byte) string {
	path := r.URL.Path
	switch {
	case r.Method == http.MethodPost && path == "/v1/messages/count_tokens":
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": tokens(body)})
		return "count_tokens"
	case r.Method == http.MethodPost && path == "/v1/messages":
		var req MessagesRequest
		if err := json.Unmarshal(body, &req); err != nil {
			anthropicError(w, http.StatusBadRequest, "invalid_request_error", "the body is not a Messages request: "+err.Error())
			return "refused: " + err.Error()
		}
		turn := s.script.anthropicTurn(&req, body)
		if req.Stream {
			streamMessage(w, req.Model, turn, tokens(body))
		} else {
			writeJSON(w, http.StatusOK, message(req.Model, turn, tokens(body)))
		}
		return turn.String()
	case r.Method == http.MethodGet && strings.HasPrefix(path, "/v1/models"):
		writeJSON(w, http.StatusOK, map[string]any{"data": []any{map[string]any{"type": "model", "id": "toolscore-scripted", "display_name": "toolscore scripted model"}}, "has_more": false})
		return "models"
	}
	anthropicError(w, http.StatusNotFound, "not_found_error", "the scripted model serves only /v1/messages")
	return "not found"
}

// MessagesRequest is the part of a Messages API request the script reads.
type MessagesRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []Message         `json:"messages"`
}

// Message is one message of a Messages request; Content is a string or a list of blocks.
type Message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// Block is a content block.
type Block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	// Raw is the block exactly as it was in the request.
	Raw json.RawMessage `json:"-"`
}

// Blocks decodes a message's content: a plain string is one text block.
func (m Message) Blocks() []Block {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []Block{{Type: "text", Text: s}}
	}
	var raws []json.RawMessage
	_ = json.Unmarshal(m.Content, &raws)
	bs := make([]Block, 0, len(raws))
	for _, raw := range raws {
		var b Block
		_ = json.Unmarshal(raw, &b)
		b.Raw = raw
		bs = append(bs, b)
	}
	return bs
}

// ToolResultText is the text of a tool_result block's content (a string, or the text blocks of
// a list, joined by newlines), and whether it had any non-text block.
func (b Block) ToolResultText() (text string, other bool) {
	var s string
	if json.Unmarshal(b.Content, &s) == nil {
		return s, false
	}
	var bs []Block
	_ = json.Unmarshal(b.Content, &bs)
	var parts []string
	for _, c := range bs {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		} else {
			other = true
		}
	}
	return strings.Join(parts, "\n"), other
}

type toolDef struct {
	Name         string `json:"name"`
	Type         string `json:"type"`
	DeferLoading bool   `json:"defer_loading"`
}

// ToolNames lists the request's tools: those the model may call now, and those deferred behind
// a tool search.
func (r *MessagesRequest) ToolNames() (callable, deferred []string) {
	for _, raw := range r.Tools {
		var t toolDef
		_ = json.Unmarshal(raw, &t)
		if t.DeferLoading {
			deferred = append(deferred, t.Name)
		} else if t.Name != "" {
			callable = append(callable, t.Name)
		}
	}
	return callable, deferred
}

// ToolDef returns the request's definition of the tool named name, as sent.
func (r *MessagesRequest) ToolDef(name string) json.RawMessage {
	for _, raw := range r.Tools {
		var t toolDef
		if json.Unmarshal(raw, &t) == nil && t.Name == name {
			return raw
		}
	}
	return nil
}

// FindToolResult returns the tool_result block answering the tool_use id, if the request
// carries one.
func (r *MessagesRequest) FindToolResult(id string) *Block {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		for _, b := range r.Messages[i].Blocks() {
			if b.Type == "tool_result" && b.ToolUseID == id {
				return &b
			}
		}
	}
	return nil
}

// turn is what the script says in one response.
type turn struct {
	Text     string
	ToolName string
	Input    any
	ToolID   string
}

func (t turn) String() string {
	if t.ToolName != "" {
		return "call " + t.ToolName
	}
	return "answer"
}

// anthropicTurn plays the script against one request: answer from the tool's result once it
// is there; before that, call the tool, selecting it through the tool search first when the
// agent defers it.
func (sc Script) anthropicTurn(req *MessagesRequest, body []byte) turn {
	if res := req.FindToolResult(CallID); res != nil {
		return turn{Text: AnswerFrom(res)}
	}
	callable, deferred := req.ToolNames()
	name := exposedName(callable, sc.Tool)
	if name == "" && req.FindToolResult(SearchID) != nil {
		// The search loaded the tool; some agents add it to tools, others only say so.
		name = exposedName(append(deferred, mentioned(body, sc.Tool)...), sc.Tool)
	}
	if name != "" {
		args := sc.Arguments
		if args == nil {
			args = map[string]any{}
		}
		return turn{ToolName: name, Input: args, ToolID: CallID}
	}
	if search := exposedName(callable, "ToolSearch"); search != "" {
		if target := exposedName(append(deferred, mentioned(body, sc.Tool)...), sc.Tool); target != "" {
			return turn{ToolName: search, Input: map[string]any{"query": "select:" + target, "max_results": 1}, ToolID: SearchID}
		}
	}
	return turn{Text: "I have no tool named " + sc.Tool + "."}
}

// mentioned finds prefixed names of tool anywhere in the request's strings (a deferred-tools
// list in a message, say).
func mentioned(body []byte, tool string) []string {
	re := regexp.MustCompile(`[A-Za-z0-9_.\-/]*(?:__|\.|/)` + regexp.QuoteMeta(tool) + `\b`)
	var doc any
	_ = json.Unmarshal(body, &doc)
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, re.FindAllString(v, -1)...)
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	return out
}

// AnswerFrom is the scripted model's final answer: it believes what it was shown, and says it
// back verbatim (so the answer carries exactly the values the model saw).
func AnswerFrom(res *Block) string {
	text, _ := res.ToolResultText()
	text = strings.TrimSpace(text)
	switch {
	case res.IsError:
		return "The tool call failed: " + text
	case text == "":
		return "The tool returned nothing I can use."
	}
	return "The tool returned: " + text
}

func (t turn) blocks() ([]map[string]any, string) {
	if t.ToolName != "" {
		return []map[string]any{{"type": "tool_use", "id": t.ToolID, "name": t.ToolName, "input": t.Input}}, "tool_use"
	}
	return []map[string]any{{"type": "text", "text": t.Text}}, "end_turn"
}

func usage(in, out int) map[string]any {
	return map[string]any{"input_tokens": in, "output_tokens": out, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
}

// message is the non-streaming response.
func message(model string, t turn, in int) map[string]any {
	content, stop := t.blocks()
	return map[string]any{
		"id": fmt.Sprintf("msg_toolscore_%d", msgSeq.Add(1)), "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage(in, outTokens(t)),
	}
}

// streamMessage writes the response as the Messages API's server-sent events: message_start,
// a content block with its deltas (text_delta, or input_json_delta for a tool_use), its stop,
// message_delta with the stop reason, message_stop. Deltas come in two pieces, as a real stream
// splits them, so the agent's accumulation is exercised.
func streamMessage(w http.ResponseWriter, model string, t turn, in int) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(event string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	_, stop := t.blocks()
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_toolscore_%d", msgSeq.Add(1)), "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage(in, 1),
	}})
	if t.ToolName != "" {
		send("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": t.ToolID, "name": t.ToolName, "input": map[string]any{}}})
		args, _ := json.Marshal(t.Input)
		for _, part := range halves(string(args)) {
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
		}
	} else {
		send("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		for _, part := range halves(t.Text) {
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "text_delta", "text": part}})
		}
	}
	send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": outTokens(t)}})
	send("message_stop", map[string]any{"type": "message_stop"})
}

// halves splits s in two at a rune boundary (one piece when it is too short to split).
func halves(s string) []string {
	r := []rune(s)
	if len(r) < 2 {
		return []string{s}
	}
	return []string{string(r[:len(r)/2]), string(r[len(r)/2:])}
}

func outTokens(t turn) int {
	if t.ToolName != "" {
		b, _ := json.Marshal(t.Input)
		return len(b)/4 + 1
	}
	return len(t.Text)/4 + 1
}

func tokens(body []byte) int { return len(body)/4 + 1 }

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func anthropicError(w http.ResponseWriter, code int, typ, msg string) {
	writeJSON(w, code, map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}

// authorize puts the key in x-api-key, the Messages API's header, and drops any bearer token.
func (anthropic) authorize(h http.Header, key string) {
	h.Del("Authorization")
	h.Set("X-Api-Key", key)
}
