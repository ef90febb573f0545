package model

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
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
		st := s.script.play(req.seen(body, s.script.Tool))
		if req.Stream {
			streamMessage(w, req.Model, st, tokens(body))
		} else {
			writeJSON(w, http.StatusOK, message(req.Model, st, tokens(body)))
		}
		return st.String()
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

// seen reads the request into the script's form: the scripted call's tool_result; the tool,
// once the agent offers it (some agents add a tool the search loaded to tools, others only say
// so); the ToolSearch call that selects it, when the agent defers it.
func (r *MessagesRequest) seen(body []byte, tool string) seen {
	last, tries := lastTry(CallID, func(id string) *result {
		if b := r.FindToolResult(id); b != nil {
			text, _ := b.ToolResultText()
			return &result{Text: text, IsError: b.IsError}
		}
		return nil
	})
	if last != nil {
		return seen{Result: last, Tries: tries, Tool: r.calledName(CallID)}
	}
	callable, deferred := r.ToolNames()
	name := exposedName(callable, tool)
	if name == "" && r.FindToolResult(SearchID) != nil {
		name = exposedName(append(deferred, mentioned(body, tool)...), tool)
	}
	if name != "" {
		return seen{Tool: name}
	}
	if search := exposedName(callable, "ToolSearch"); search != "" {
		if target := exposedName(append(deferred, mentioned(body, tool)...), tool); target != "" {
			return seen{Search: &step{Tool: search, Input: map[string]any{"query": "select:" + target, "max_results": 1}, Search: true}}
		}
	}
	return seen{}
}

// calledName is the name the assistant's tool_use block with id called, or "".
func (r *MessagesRequest) calledName(id string) string {
	for _, m := range r.Messages {
		for _, b := range m.Blocks() {
			if b.Type == "tool_use" && b.ID == id {
				return b.Name
			}
		}
	}
	return ""
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

// blocks is the step as the response's content, and its stop reason.
func blocks(st step) ([]map[string]any, string) {
	if st.Tool != "" {
		return []map[string]any{{"type": "tool_use", "id": toolUseID(st), "name": st.Tool, "input": st.Input}}, "tool_use"
	}
	return []map[string]any{{"type": "text", "text": st.Text}}, "end_turn"
}

// toolUseID is the fixed id of the step's call.
func toolUseID(st step) string {
	if st.Search {
		return SearchID
	}
	return TryID(CallID, st.Try)
}

func usage(in, out int) map[string]any {
	return map[string]any{"input_tokens": in, "output_tokens": out, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
}

// message is the non-streaming response.
func message(model string, st step, in int) map[string]any {
	content, stop := blocks(st)
	return map[string]any{
		"id": fmt.Sprintf("msg_toolscore_%d", msgSeq.Add(1)), "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage(in, outTokens(st)),
	}
}

// streamMessage writes the response as the Messages API's server-sent events: message_start,
// a content block with its deltas (text_delta, or input_json_delta for a tool_use), its stop,
// message_delta with the stop reason, message_stop; deltas in two pieces.
func streamMessage(w http.ResponseWriter, model string, st step, in int) {
	send := startSSE(w).event
	_, stop := blocks(st)
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_toolscore_%d", msgSeq.Add(1)), "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage(in, 1),
	}})
	if st.Tool != "" {
		send("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": toolUseID(st), "name": st.Tool, "input": map[string]any{}}})
		args, _ := json.Marshal(st.Input)
		for _, part := range halves(string(args)) {
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
		}
	} else {
		send("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		for _, part := range halves(st.Text) {
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "text_delta", "text": part}})
		}
	}
	send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": outTokens(st)}})
	send("message_stop", map[string]any{"type": "message_stop"})
}

func anthropicError(w http.ResponseWriter, code int, typ, msg string) {
	writeJSON(w, code, map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}

// authorize puts the key in x-api-key, the Messages API's header, and drops any bearer token.
func (anthropic) authorize(h http.Header, key string) {
	h.Del("Authorization")
	h.Set("X-Api-Key", key)
}
