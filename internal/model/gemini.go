package model

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Gemini is the Gemini API (generateContent, streamGenerateContent with alt=sse, countTokens,
// the models list), as Gemini CLI calls it.
var Gemini Vendor = gemini{}

type gemini struct{}

// GeminiCallID is the id of the scripted model's function call. Gemini CLI keeps the id the
// model gives and sends it back on the functionResponse, so the tool result is found by it.
const GeminiCallID = "toolscore_call"

func (gemini) handle(s *Server, w http.ResponseWriter, r *http.Request, body []byte) string {
	path := r.URL.Path
	// /v1beta/models/{model}:{method} (the SDK may use another API version).
	model, method, isModel := geminiRoute(path)
	switch {
	case r.Method == http.MethodPost && isModel && method == "countTokens":
		writeJSON(w, http.StatusOK, map[string]any{"totalTokens": tokens(body)})
		return "countTokens"
	case r.Method == http.MethodPost && isModel && (method == "generateContent" || method == "streamGenerateContent"):
		var req GeminiRequest
		if err := json.Unmarshal(body, &req); err != nil {
			geminiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "the body is not a generateContent request: "+err.Error())
			return "refused: " + err.Error()
		}
		st := s.script.geminiStep(&req)
		candidate := geminiCandidate(st)
		resp := geminiResponse(model, candidate, tokens(body), outTokens(st))
		if method == "streamGenerateContent" {
			streamGemini(w, r.URL.Query().Get("alt") == "sse", model, candidate, resp)
		} else {
			writeJSON(w, http.StatusOK, resp)
		}
		return st.String()
	case r.Method == http.MethodGet && isModel:
		writeJSON(w, http.StatusOK, geminiModel(model))
		return "model"
	case r.Method == http.MethodGet && strings.HasSuffix(strings.TrimSuffix(path, "/"), "/models"):
		writeJSON(w, http.StatusOK, map[string]any{"models": []any{geminiModel("toolscore-scripted")}})
		return "models"
	}
	geminiError(w, http.StatusNotFound, "NOT_FOUND", "the scripted model serves only models/*:generateContent, :streamGenerateContent and :countTokens")
	return "not found"
}

// geminiRoute splits /<version>/models/<model>[:<method>].
func geminiRoute(path string) (model, method string, ok bool) {
	i := strings.Index(path, "/models/")
	if i < 0 {
		return "", "", false
	}
	rest := path[i+len("/models/"):]
	model, method, _ = strings.Cut(rest, ":")
	return model, method, model != ""
}

func geminiModel(name string) map[string]any {
	return map[string]any{"name": "models/" + name, "displayName": "toolscore scripted model",
		"inputTokenLimit": 1048576, "outputTokenLimit": 65536,
		"supportedGenerationMethods": []string{"generateContent", "streamGenerateContent", "countTokens"}}
}

// GeminiRequest is the part of a generateContent request the script reads.
type GeminiRequest struct {
	Contents          []GeminiContent   `json:"contents"`
	Tools             []GeminiTool      `json:"tools"`
	SystemInstruction json.RawMessage   `json:"systemInstruction,omitempty"`
	GenerationConfig  *GenerationConfig `json:"generationConfig,omitempty"`
}

// GenerationConfig is the part of a request's generationConfig that says it wants JSON.
type GenerationConfig struct {
	ResponseMimeType   string          `json:"responseMimeType,omitempty"`
	ResponseSchema     json.RawMessage `json:"responseSchema,omitempty"`
	ResponseJSONSchema json.RawMessage `json:"responseJsonSchema,omitempty"`
}

// GeminiContent is one turn of a request: its role and parts.
type GeminiContent struct {
	Role  string       `json:"role"`
	Parts []GeminiPart `json:"parts"`
}

// GeminiPart is one part of a turn; Raw is the part exactly as it was in the request.
type GeminiPart struct {
	Text             string            `json:"text,omitempty"`
	FunctionCall     *FunctionCall     `json:"functionCall,omitempty"`
	FunctionResponse *FunctionResponse `json:"functionResponse,omitempty"`
	Raw              json.RawMessage   `json:"-"`
}

// UnmarshalJSON keeps the part's bytes.
func (p *GeminiPart) UnmarshalJSON(b []byte) error {
	type plain GeminiPart
	var q plain
	if err := json.Unmarshal(b, &q); err != nil {
		return err
	}
	*p = GeminiPart(q)
	p.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// FunctionCall is a model's call of a declared function.
type FunctionCall struct {
	ID   string         `json:"id,omitempty"`
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

// FunctionResponse is what the agent sends back for a call: Response is an object (Gemini CLI
// puts the tool's text under "output", a failure under "error").
type FunctionResponse struct {
	ID       string          `json:"id,omitempty"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
	Parts    json.RawMessage `json:"parts,omitempty"`
}

// GeminiTool is one entry of a request's tools: its function declarations, as sent.
type GeminiTool struct {
	FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
}

type funcDecl struct {
	Name string `json:"name"`
}

// ToolNames lists the functions the request declares.
func (r *GeminiRequest) ToolNames() []string {
	var names []string
	for _, t := range r.Tools {
		for _, raw := range t.FunctionDeclarations {
			var d funcDecl
			if json.Unmarshal(raw, &d) == nil && d.Name != "" {
				names = append(names, d.Name)
			}
		}
	}
	return names
}

// ToolDef returns the request's declaration of the function named name, as sent.
func (r *GeminiRequest) ToolDef(name string) json.RawMessage {
	for _, t := range r.Tools {
		for _, raw := range t.FunctionDeclarations {
			var d funcDecl
			if json.Unmarshal(raw, &d) == nil && d.Name == name {
				return raw
			}
		}
	}
	return nil
}

// FindFunctionResponse returns the part carrying the functionResponse for the call id, if the
// request carries one.
func (r *GeminiRequest) FindFunctionResponse(id string) *GeminiPart {
	for i := len(r.Contents) - 1; i >= 0; i-- {
		for j := range r.Contents[i].Parts {
			p := r.Contents[i].Parts[j]
			if p.FunctionResponse != nil && p.FunctionResponse.ID == id {
				return &p
			}
		}
	}
	return nil
}

// WantsJSON says whether the request asks for a JSON answer (the CLI's router and other
// side calls), not a turn of the conversation.
func (r *GeminiRequest) WantsJSON() bool {
	g := r.GenerationConfig
	return g != nil && (g.ResponseMimeType == "application/json" || len(g.ResponseSchema) > 0 || len(g.ResponseJSONSchema) > 0)
}

// Output is the functionResponse's response as the model reads it: its "output" (or, for a
// failure, "error") text when it is a string, else the response's JSON; and whether it is
// marked as an error (an "error" key).
func (f *FunctionResponse) Output() (text string, isError bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(f.Response, &m) != nil {
		return strings.TrimSpace(string(f.Response)), false
	}
	if e, ok := m["error"]; ok {
		var s string
		if json.Unmarshal(e, &s) == nil {
			return s, true
		}
		return string(e), true
	}
	if o, ok := m["output"]; ok && len(m) == 1 {
		var s string
		if json.Unmarshal(o, &s) == nil {
			return s, false
		}
		return string(o), false
	}
	if len(m) == 0 {
		return "", false
	}
	return string(f.Response), false
}

// geminiStep plays the script against one request; a JSON-mode request without the tool's
// result is a side call of the CLI (its router), not a turn of the conversation, and gets the
// JSON it asks for.
func (sc Script) geminiStep(req *GeminiRequest) step {
	v := req.seen(sc.Tool)
	if req.WantsJSON() && v.Result == nil {
		return step{Text: jsonFor(req.GenerationConfig)}
	}
	return sc.play(v)
}

// seen reads the request into the script's form: the functionResponse of the scripted call,
// or the tool under the name the CLI declares it by.
func (r *GeminiRequest) seen(tool string) seen {
	last, tries := lastTry(GeminiCallID, func(id string) *result {
		if p := r.FindFunctionResponse(id); p != nil {
			text, isError := p.FunctionResponse.Output()
			return &result{Text: text, IsError: isError}
		}
		return nil
	})
	if last != nil {
		return seen{Result: last, Tries: tries, Tool: r.calledName(GeminiCallID)}
	}
	return seen{Tool: exposedName(r.ToolNames(), tool)}
}

// calledName is the name the model's functionCall with id called, or "".
func (r *GeminiRequest) calledName(id string) string {
	for _, c := range r.Contents {
		for _, p := range c.Parts {
			if p.FunctionCall != nil && p.FunctionCall.ID == id {
				return p.FunctionCall.Name
			}
		}
	}
	return ""
}

// geminiCandidate is the step as a candidate's content: the functionCall, or the text.
func geminiCandidate(st step) map[string]any {
	if st.Tool != "" {
		return map[string]any{"role": "model", "parts": []any{
			map[string]any{"functionCall": map[string]any{"id": TryID(GeminiCallID, st.Try), "name": st.Tool, "args": st.Input}}}}
	}
	return map[string]any{"role": "model", "parts": []any{map[string]any{"text": st.Text}}}
}

// jsonFor answers a JSON-mode request with a value of the schema it gives: the router's
// {reasoning, model_choice} picks a model, other objects get their required properties.
func jsonFor(g *GenerationConfig) string {
	schema := g.ResponseJSONSchema
	if len(schema) == 0 {
		schema = g.ResponseSchema
	}
	var s map[string]any
	_ = json.Unmarshal(schema, &s)
	b, _ := json.Marshal(valueFor(s, ""))
	return string(b)
}

// valueFor makes a value of a (JSON or OpenAPI-style) schema: the first enum value, else by type.
func valueFor(s map[string]any, key string) any {
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	typ, _ := s["type"].(string)
	switch strings.ToLower(typ) {
	case "object", "":
		props, _ := s["properties"].(map[string]any)
		out := map[string]any{}
		for k, p := range props {
			ps, _ := p.(map[string]any)
			out[k] = valueFor(ps, k)
		}
		if len(props) == 0 && typ == "" {
			return map[string]any{}
		}
		return out
	case "array":
		return []any{}
	case "boolean":
		return false
	case "integer", "number":
		// The router's complexity score is "1-100": the least in range, a simple task.
		if m, ok := s["minimum"].(float64); ok {
			return m
		}
		return 1
	}
	switch {
	case strings.Contains(key, "model"):
		return "flash"
	case strings.Contains(key, "reason"):
		return "The scripted model always takes the same route."
	}
	return ""
}

// geminiResponse is one GenerateContentResponse with the candidate.
func geminiResponse(model string, candidate map[string]any, in, out int) map[string]any {
	return map[string]any{
		"candidates":    []any{map[string]any{"content": candidate, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": in, "candidatesTokenCount": out, "totalTokenCount": in + out},
		"modelVersion":  model,
		"responseId":    fmt.Sprintf("toolscore_%d", msgSeq.Add(1)),
	}
}

// streamGemini writes the response as streamGenerateContent does: with alt=sse, server-sent
// events each carrying a GenerateContentResponse (text in two pieces, the finish reason on the
// last); without it, a JSON array of them.
func streamGemini(w http.ResponseWriter, sse bool, model string, candidate map[string]any, final map[string]any) {
	var chunks []map[string]any
	parts, _ := candidate["parts"].([]any)
	if len(parts) == 1 {
		if p, ok := parts[0].(map[string]any); ok {
			if text, ok := p["text"].(string); ok {
				if h := halves(text); len(h) == 2 {
					first := map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": h[0]}}}, "index": 0}},
						"modelVersion": model, "responseId": final["responseId"]}
					last := map[string]any{}
					for k, v := range final {
						last[k] = v
					}
					last["candidates"] = []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": h[1]}}}, "finishReason": "STOP", "index": 0}}
					chunks = []map[string]any{first, last}
				}
			}
		}
	}
	if chunks == nil {
		chunks = []map[string]any{final}
	}
	if !sse {
		writeJSON(w, http.StatusOK, chunks)
		return
	}
	events := startSSE(w)
	for _, c := range chunks {
		events.data(c)
	}
}

func geminiError(w http.ResponseWriter, code int, status, msg string) {
	writeJSON(w, code, map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status}})
}

// authorize puts the key in the header the Gemini API reads, and drops the placeholder wherever
// the CLI sent it.
func (gemini) authorize(h http.Header, key string) {
	h.Del("Authorization")
	h.Set("X-Goog-Api-Key", key)
}
