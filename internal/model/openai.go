package model

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"time"
)

// OpenAI is the Responses API (POST /v1/responses, streaming or not, and GET /v1/models), as
// Codex calls it: Codex speaks only this API to a model provider.
var OpenAI Vendor = openai{}

type openai struct{}

// The call_ids of the scripted model's calls: fixed, so the tool's output is found by its id
// in the next request.
const (
	ResponsesCallID   = "call_toolscore_call"
	ResponsesSearchID = "call_toolscore_search"
)

var respSeq atomic.Int64

func (openai) handle(s *Server, w http.ResponseWriter, r *http.Request, body []byte) string {
	path := r.URL.Path
	switch {
	case r.Method == http.MethodPost && path == "/v1/responses":
		var req ResponsesRequest
		if err := json.Unmarshal(body, &req); err != nil {
			openaiError(w, http.StatusBadRequest, "invalid_request_error", "the body is not a Responses request: "+err.Error())
			return "refused: " + err.Error()
		}
		st := s.script.play(req.seen(s.script.Tool))
		id := fmt.Sprintf("resp_toolscore_%d", respSeq.Add(1))
		if req.Stream {
			streamResponse(w, id, req.Model, st, req.item(id, st), tokens(body))
		} else {
			writeJSON(w, http.StatusOK, response(id, req.Model, "completed", []any{req.item(id, st)}, usageOf(tokens(body), outTokens(st))))
		}
		return st.String()
	case r.Method == http.MethodGet && (path == "/v1/models" || strings.HasPrefix(path, "/v1/models/")):
		// Both list shapes: the API's ("data") and the one Codex reads for its model catalogue
		// ("models"), empty so it keeps its built-in model info.
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{map[string]any{
			"id": "toolscore-scripted", "object": "model", "created": 0, "owned_by": "toolscore"}}, "models": []any{}})
		return "models"
	}
	openaiError(w, http.StatusNotFound, "not_found_error", "the scripted model serves only /v1/responses")
	return "not found"
}

// ResponsesRequest is the part of a Responses API request the script and the adapters read.
type ResponsesRequest struct {
	Model  string            `json:"model"`
	Stream bool              `json:"stream"`
	Tools  []json.RawMessage `json:"tools"`
	// Input is a string or a list of items.
	Input json.RawMessage `json:"input"`
}

// Item is one input item of a Responses request: a message, a function_call, a
// function_call_output...
type Item struct {
	Type      string          `json:"type"`
	Role      string          `json:"role,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	ID        string          `json:"id,omitempty"`
	CallID    string          `json:"call_id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Namespace string          `json:"namespace,omitempty"`
	Arguments string          `json:"arguments,omitempty"`
	// Output is a function_call_output's output: a string or a list of content items.
	Output json.RawMessage `json:"output,omitempty"`
	// Tools are the tools a tool_search_output (or additional_tools item) adds.
	Tools []json.RawMessage `json:"tools,omitempty"`
	// Raw is the item exactly as it was in the request.
	Raw json.RawMessage `json:"-"`
}

// Items decodes the request's input: a plain string is one user message.
func (r *ResponsesRequest) Items() []Item {
	var s string
	if json.Unmarshal(r.Input, &s) == nil {
		c, _ := json.Marshal(s)
		return []Item{{Type: "message", Role: "user", Content: c}}
	}
	var raws []json.RawMessage
	_ = json.Unmarshal(r.Input, &raws)
	items := make([]Item, 0, len(raws))
	for _, raw := range raws {
		var it Item
		_ = json.Unmarshal(raw, &it)
		it.Raw = raw
		items = append(items, it)
	}
	return items
}

// FindCallOutput returns the function_call_output item answering call id, if the request
// carries one.
func (r *ResponsesRequest) FindCallOutput(id string) *Item {
	items := r.Items()
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Type == "function_call_output" && items[i].CallID == id {
			return &items[i]
		}
	}
	return nil
}

// findItem returns the last input item of type typ with call id.
func (r *ResponsesRequest) findItem(typ, id string) *Item {
	items := r.Items()
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Type == typ && items[i].CallID == id {
			return &items[i]
		}
	}
	return nil
}

// FindCall returns the function_call item with call id, if the request carries one.
func (r *ResponsesRequest) FindCall(id string) *Item {
	for _, it := range r.Items() {
		if it.Type == "function_call" && it.CallID == id {
			return &it
		}
	}
	return nil
}

// OutputParts is a function_call_output's output as text parts: the string, or the text of
// each input_text/output_text item of a list; other says whether the list had anything else
// (an image, say).
func (it Item) OutputParts() (parts []string, other bool) {
	var s string
	if json.Unmarshal(it.Output, &s) == nil {
		return []string{s}, false
	}
	var list []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(it.Output, &list)
	for _, c := range list {
		if c.Type == "input_text" || c.Type == "output_text" || c.Type == "text" {
			parts = append(parts, c.Text)
		} else {
			other = true
		}
	}
	return parts, other
}

// frame is what Codex puts in front of every MCP tool output it gives the model
// ("Wall time: 0.0031 seconds\nOutput:"), a part of its own or the start of the output
// string; the lines between are those it adds when it cuts a long output.
var frame = regexp.MustCompile(`^Wall time: [0-9.]+ seconds\n(?:(?:Original token count|Total output lines|Exit code|Process exited)[^\n]*\n)*Output:(?:\n|$)`)

// Body is the output's text parts less the agent's frame (Codex's wall time): the result as
// the model got it, the JSON of structuredContent, the text blocks or the agent's message.
func (it Item) Body() []string {
	parts, _ := it.OutputParts()
	if len(parts) > 0 {
		if loc := frame.FindStringIndex(parts[0]); loc != nil {
			if rest := parts[0][loc[1]:]; rest != "" {
				parts[0] = rest
			} else {
				parts = parts[1:]
			}
		}
	}
	return parts
}

// responsesTool is a tool of a Responses request: a function, or a namespace holding functions
// (its name is the prefix of theirs).
type responsesTool struct {
	Type  string          `json:"type"`
	Name  string          `json:"name"`
	Tools json.RawMessage `json:"tools"`
}

// allTools are the request's tools and those its input items add: the tool search's
// outputs, and additional_tools items.
func (r *ResponsesRequest) allTools() []json.RawMessage {
	tools := append([]json.RawMessage(nil), r.Tools...)
	for _, it := range r.Items() {
		if it.Type == "tool_search_output" || it.Type == "additional_tools" {
			tools = append(tools, it.Tools...)
		}
	}
	return tools
}

// ToolNames lists the function tools the model may call, those a tool search loaded included;
// a namespaced one under its qualified name (see Qualified).
func (r *ResponsesRequest) ToolNames() []string {
	var names []string
	walkTools(r.allTools(), "", func(ns, name string, _ json.RawMessage) { names = append(names, Qualified(ns, name)) })
	return names
}

// HasToolSearch says whether the request offers the client-executed tool search.
func (r *ResponsesRequest) HasToolSearch() bool {
	for _, raw := range r.Tools {
		var t responsesTool
		if json.Unmarshal(raw, &t) == nil && t.Type == "tool_search" {
			return true
		}
	}
	return false
}

// ToolDef returns the request's definition of the function tool of qualified name q, as sent.
func (r *ResponsesRequest) ToolDef(q string) json.RawMessage {
	var def json.RawMessage
	walkTools(r.allTools(), "", func(ns, name string, raw json.RawMessage) {
		if Qualified(ns, name) == q && def == nil {
			def = raw
		}
	})
	return def
}

// Qualified is the one name of a function tool in a namespace: Codex lists an MCP server's
// tools as functions in a namespace mcp__<server>, and calls them mcp__<server>__<tool>.
func Qualified(namespace, name string) string {
	switch {
	case namespace == "":
		return name
	case strings.HasSuffix(namespace, "__"):
		return namespace + name
	}
	return namespace + "__" + name
}

// splitQualified finds the namespace and the name of a qualified tool name among the request's
// tools.
func (r *ResponsesRequest) splitQualified(q string) (namespace, name string) {
	name = q
	walkTools(r.allTools(), "", func(ns, n string, _ json.RawMessage) {
		if Qualified(ns, n) == q {
			namespace, name = ns, n
		}
	})
	return namespace, name
}

func walkTools(tools []json.RawMessage, namespace string, f func(namespace, name string, raw json.RawMessage)) {
	for _, raw := range tools {
		var t responsesTool
		if json.Unmarshal(raw, &t) != nil {
			continue
		}
		switch t.Type {
		case "function":
			if t.Name != "" {
				f(namespace, t.Name, raw)
			}
		case "namespace":
			var sub []json.RawMessage
			if json.Unmarshal(t.Tools, &sub) == nil {
				walkTools(sub, t.Name, f)
			}
		}
	}
}

// seen reads the request into the script's form: the scripted call's output (the Responses
// API has no error flag on it; an agent that marks errors does so in the text, which is quoted
// with the rest); the tool, under the name the agent exposes it by; the tool search, when the
// agent offers one and has not searched yet.
func (r *ResponsesRequest) seen(tool string) seen {
	last, tries := lastTry(ResponsesCallID, func(id string) *result {
		if out := r.FindCallOutput(id); out != nil {
			return &result{Text: strings.Join(out.Body(), "\n")}
		}
		return nil
	})
	if last != nil {
		var name string
		if c := r.FindCall(ResponsesCallID); c != nil {
			name = Qualified(c.Namespace, c.Name)
		}
		return seen{Result: last, Tries: tries, Tool: name}
	}
	if q := exposedName(r.ToolNames(), tool); q != "" {
		return seen{Tool: q}
	}
	if r.HasToolSearch() && r.findItem("tool_search_output", ResponsesSearchID) == nil {
		return seen{Search: &step{Tool: "tool_search", Input: map[string]any{"query": tool, "limit": 1}, Search: true}}
	}
	return seen{}
}

// item is the step as one output item: a completed tool_search_call, function_call (named
// apart from its namespace, when the tool is in one) or assistant message.
func (r *ResponsesRequest) item(respID string, st step) map[string]any {
	if st.Search {
		return map[string]any{"type": "tool_search_call", "id": "ts_" + strings.TrimPrefix(respID, "resp_"), "call_id": ResponsesSearchID,
			"status": "completed", "execution": "client", "arguments": st.Input}
	}
	if st.Tool != "" {
		ns, name := r.splitQualified(st.Tool)
		args, _ := json.Marshal(st.Input)
		it := map[string]any{"type": "function_call", "id": "fc_" + strings.TrimPrefix(respID, "resp_"), "call_id": TryID(ResponsesCallID, st.Try),
			"name": name, "arguments": string(args), "status": "completed"}
		if ns != "" {
			it["namespace"] = ns
		}
		return it
	}
	return map[string]any{"type": "message", "id": "msg_" + strings.TrimPrefix(respID, "resp_"), "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": st.Text, "annotations": []any{}}}}
}

func usageOf(in, out int) map[string]any {
	return map[string]any{"input_tokens": in, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": out, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": in + out}
}

func response(id, model, status string, output []any, usage map[string]any) map[string]any {
	r := map[string]any{"id": id, "object": "response", "created_at": time.Now().Unix(), "status": status,
		"model": model, "output": output, "parallel_tool_calls": false, "tool_choice": "auto", "tools": []any{}}
	if usage != nil {
		r["usage"] = usage
	}
	return r
}

// streamResponse writes the response as the Responses API's server-sent events:
// response.created, response.in_progress, the output item added, its deltas (function call
// arguments, or a content part's text, in two pieces), its done events, response.completed
// with the usage. Every event's data carries its type and sequence number.
func streamResponse(w http.ResponseWriter, id, model string, st step, done map[string]any, in int) {
	sse := startSSE(w)
	seq := 0
	send := func(event string, data map[string]any) {
		data["type"] = event
		data["sequence_number"] = seq
		seq++
		sse.event(event, data)
	}
	send("response.created", map[string]any{"response": response(id, model, "in_progress", []any{}, nil)})
	send("response.in_progress", map[string]any{"response": response(id, model, "in_progress", []any{}, nil)})
	itemID := done["id"]
	switch {
	case st.Search:
		send("response.output_item.added", map[string]any{"output_index": 0, "item": done})
	case st.Tool != "":
		added := map[string]any{}
		for k, v := range done {
			added[k] = v
		}
		added["arguments"], added["status"] = "", "in_progress"
		send("response.output_item.added", map[string]any{"output_index": 0, "item": added})
		args := done["arguments"].(string)
		for _, part := range halves(args) {
			send("response.function_call_arguments.delta", map[string]any{"item_id": itemID, "output_index": 0, "delta": part})
		}
		send("response.function_call_arguments.done", map[string]any{"item_id": itemID, "output_index": 0, "arguments": args})
	default:
		send("response.output_item.added", map[string]any{"output_index": 0, "item": map[string]any{
			"type": "message", "id": itemID, "role": "assistant", "status": "in_progress", "content": []any{}}})
		send("response.content_part.added", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0,
			"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
		for _, part := range halves(st.Text) {
			send("response.output_text.delta", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0, "delta": part})
		}
		send("response.output_text.done", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0, "text": st.Text})
		send("response.content_part.done", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0,
			"part": map[string]any{"type": "output_text", "text": st.Text, "annotations": []any{}}})
	}
	send("response.output_item.done", map[string]any{"output_index": 0, "item": done})
	send("response.completed", map[string]any{"response": response(id, model, "completed", []any{done}, usageOf(in, outTokens(st)))})
}

func openaiError(w http.ResponseWriter, code int, typ, msg string) {
	writeJSON(w, code, map[string]any{"error": map[string]any{"type": typ, "message": msg, "code": nil, "param": nil}})
}

// authorize puts the key in the bearer token the Responses API reads.
func (openai) authorize(h http.Header, key string) {
	h.Set("Authorization", "Bearer "+key)
}
