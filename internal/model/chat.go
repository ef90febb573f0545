package model

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// Chat is the OpenAI Chat Completions API (POST /v1/chat/completions, streaming or not, and
// GET /v1/models), as the agents that speak to an "OpenAI-compatible" provider call it (Qwen
// Code, opencode's openai-compatible provider, Copilot CLI's own providers). The base URL may
// or may not carry the /v1: both paths are served.
var Chat Vendor = chat{}

type chat struct{}

// ChatCallID is the id of the scripted model's tool call: fixed, so the tool message
// answering it is found by its tool_call_id in the next request.
const ChatCallID = "call_toolscore_chat"

var chatSeq atomic.Int64

func (chat) handle(s *Server, w http.ResponseWriter, r *http.Request, body []byte) string {
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case r.Method == http.MethodPost && (path == "/v1/chat/completions" || path == "/chat/completions"):
		var req ChatRequest
		if err := json.Unmarshal(body, &req); err != nil {
			openaiError(w, http.StatusBadRequest, "invalid_request_error", "the body is not a Chat Completions request: "+err.Error())
			return "refused: " + err.Error()
		}
		st := s.script.play(req.seen(s.script.Tool))
		id := fmt.Sprintf("chatcmpl-toolscore-%d", chatSeq.Add(1))
		in, out := tokens(body), outTokens(st)
		if req.Stream {
			streamChat(w, id, req.Model, st, in, out, req.StreamOptions.IncludeUsage)
		} else {
			msg := map[string]any{"role": "assistant", "content": nil}
			finish := "tool_calls"
			if st.Tool != "" {
				args, _ := json.Marshal(st.Input)
				msg["tool_calls"] = []any{map[string]any{"id": TryID(ChatCallID, st.Try), "type": "function",
					"function": map[string]any{"name": st.Tool, "arguments": string(args)}}}
			} else {
				msg["content"], finish = st.Text, "stop"
			}
			writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
				"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
				"usage":   chatUsage(in, out)})
		}
		return st.String()
	case r.Method == http.MethodGet && (path == "/v1/models" || path == "/models"):
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{map[string]any{
			"id": ScriptedChatModel, "object": "model", "created": 0, "owned_by": "toolscore"}}})
		return "models"
	case r.Method == http.MethodGet && (strings.HasPrefix(path, "/v1/models/") || strings.HasPrefix(path, "/models/")):
		id := path[strings.LastIndex(path, "/models/")+len("/models/"):]
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "model", "created": 0, "owned_by": "toolscore"})
		return "model"
	}
	openaiError(w, http.StatusNotFound, "not_found_error", "the scripted model serves only /v1/chat/completions and /v1/models")
	return "not found"
}

// ScriptedChatModel is the model id the scripted Chat Completions model lists.
const ScriptedChatModel = "toolscore-scripted"

func chatUsage(in, out int) map[string]any {
	return map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out}
}

// streamChat writes the completion as chat.completion.chunk events ended by [DONE]: the role,
// then the tool call (its id and name, the arguments in two pieces) or the text in two pieces,
// then the finish reason, then the usage when the request asked for it.
func streamChat(w http.ResponseWriter, id, mdl string, st step, in, out int, usage bool) {
	sse := startSSE(w)
	created := time.Now().Unix()
	chunk := func(delta map[string]any, finish any) {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": mdl,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}}}
		b, _ := json.Marshal(c)
		fmt.Fprintf(sse.w, "data: %s\n\n", b)
		sse.flush()
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	finish := "stop"
	if st.Tool != "" {
		finish = "tool_calls"
		args, _ := json.Marshal(st.Input)
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": TryID(ChatCallID, st.Try), "type": "function",
			"function": map[string]any{"name": st.Tool, "arguments": ""}}}}, nil)
		for _, part := range halves(string(args)) {
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": part}}}}, nil)
		}
	} else {
		for _, part := range halves(st.Text) {
			chunk(map[string]any{"content": part}, nil)
		}
	}
	chunk(map[string]any{}, finish)
	if usage {
		b, _ := json.Marshal(map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": mdl,
			"choices": []any{}, "usage": chatUsage(in, out)})
		fmt.Fprintf(sse.w, "data: %s\n\n", b)
	}
	fmt.Fprint(sse.w, "data: [DONE]\n\n")
	sse.flush()
}

// ChatRequest is the part of a Chat Completions request the script and the adapters read.
type ChatRequest struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []ChatMessage     `json:"messages"`
}

// ChatMessage is one message of a Chat Completions request.
type ChatMessage struct {
	Role string `json:"role"`
	// Content is a string, a list of content parts, or null.
	Content    json.RawMessage `json:"content,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls,omitempty"`
	// Raw is the message exactly as it was in the request.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON keeps the message's bytes as Raw.
func (m *ChatMessage) UnmarshalJSON(b []byte) error {
	type plain ChatMessage
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*m = ChatMessage(p)
	m.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// Parts is the message's content as text parts: the string, or the text of each text part of
// a list.
func (m ChatMessage) Parts() []string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []string{s}
	}
	var list []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &list)
	var parts []string
	for _, c := range list {
		if c.Type == "text" || c.Type == "input_text" {
			parts = append(parts, c.Text)
		}
	}
	return parts
}

// FindToolMessage returns the last tool message answering call id, if the request carries one.
func (r *ChatRequest) FindToolMessage(id string) *ChatMessage {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "tool" && r.Messages[i].ToolCallID == id {
			return &r.Messages[i]
		}
	}
	return nil
}

// CalledName is the name the assistant message of the request called call id by, or "".
func (r *ChatRequest) CalledName(id string) string {
	for _, m := range r.Messages {
		for _, c := range m.ToolCalls {
			if c.ID == id {
				return c.Function.Name
			}
		}
	}
	return ""
}

type chatTool struct {
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

// ToolNames lists the function tools the request offers.
func (r *ChatRequest) ToolNames() []string {
	var names []string
	for _, raw := range r.Tools {
		var t chatTool
		if json.Unmarshal(raw, &t) == nil && t.Function.Name != "" {
			names = append(names, t.Function.Name)
		}
	}
	return names
}

// ToolDef returns the request's definition of the function tool name, as sent.
func (r *ChatRequest) ToolDef(name string) json.RawMessage {
	for _, raw := range r.Tools {
		var t chatTool
		if json.Unmarshal(raw, &t) == nil && t.Function.Name == name {
			return raw
		}
	}
	return nil
}

// seen reads the request into the script's form: the scripted call's tool message (the API
// has no error flag on it; an agent that marks errors does so in the text, which is quoted with
// the rest); else the tool, under the name the agent exposes it by.
func (r *ChatRequest) seen(tool string) seen {
	last, tries := lastTry(ChatCallID, func(id string) *result {
		if m := r.FindToolMessage(id); m != nil {
			return &result{Text: strings.Join(m.Parts(), "\n")}
		}
		return nil
	})
	if last != nil {
		return seen{Result: last, Tries: tries, Tool: r.CalledName(ChatCallID)}
	}
	if q := exposedName(r.ToolNames(), tool); q != "" {
		return seen{Tool: q}
	}
	return seen{}
}

// authorize puts the key in the bearer token the API reads.
func (chat) authorize(h http.Header, key string) {
	h.Del("Api-Key")
	h.Set("Authorization", "Bearer "+key)
}
