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

// The requests below are cut down from what Gemini CLI 0.61.0 sent the scripted model in its
// cell (system instructions and the session context shortened, everything else as recorded).
const (
	geminiRouter = `{"contents":[{"role":"user","parts":[{"text":"<session_context>\nThis is the Gemini CLI.</session_context>"}]},
		{"role":"user","parts":[{"text":"What is the balance of ledger account ACC-4471?"}]}],
		"systemInstruction":{"parts":[{"text":"You are a specialized Task Routing AI."}]},
		"generationConfig":{"temperature":1,"topP":0.95,"topK":64,"responseMimeType":"application/json",
		"responseJsonSchema":{"type":"OBJECT","properties":{"complexity_reasoning":{"type":"STRING","description":"Brief explanation for the score."},
		"complexity_score":{"type":"INTEGER","description":"Complexity score from 1-100."}},"required":["complexity_reasoning","complexity_score"]},
		"thinkingConfig":{"includeThoughts":true,"thinkingLevel":"HIGH"}}}`
	geminiDecl = `{"name":"mcp_scenario_get_account_balance","description":"Returns the balance of one ledger account.",
		"parametersJsonSchema":{"type":"object","properties":{"account_id":{"type":"string"},"wait_for_previous":{"type":"boolean"}},"required":["account_id"],"additionalProperties":false}}`
	geminiUser = `{"role":"user","parts":[{"text":"<session_context>\nThis is the Gemini CLI.</session_context>"},{"text":"What is the balance of ledger account ACC-4471?"}]}`
	geminiCall = `{"role":"model","parts":[{"functionCall":{"id":"toolscore_call","args":{"account_id":"ACC-4471"},"name":"mcp_scenario_get_account_balance"},"thoughtSignature":"skip_thought_signature_validator"}]}`
)

func geminiTurn1() string {
	return `{"contents":[` + geminiUser + `],"tools":[{"functionDeclarations":[` + geminiDecl + `]}],
		"systemInstruction":{"parts":[{"text":"You are Gemini CLI."}]},"generationConfig":{"temperature":1,"thinkingConfig":{"includeThoughts":true}}}`
}

func geminiTurn2(response string) string {
	return `{"contents":[` + geminiUser + `,` + geminiCall + `,{"role":"user","parts":[{"functionResponse":{"name":"mcp_scenario_get_account_balance","response":` + response + `,"id":"toolscore_call"}}]}],
		"tools":[{"functionDeclarations":[` + geminiDecl + `]}],"generationConfig":{"temperature":1}}`
}

// readGeminiSSE reads a streamGenerateContent?alt=sse body: data lines, each a response.
func readGeminiSSE(t *testing.T, r io.Reader) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "data: ") {
			t.Fatalf("not an SSE data line: %q", line)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m); err != nil {
			t.Fatalf("data is not JSON: %v", err)
		}
		out = append(out, m)
	}
	return out
}

// parts joins the candidates' parts of a stream, and gives the last finish reason.
func geminiParts(chunks []map[string]any) (parts []map[string]any, text, finish string) {
	for _, c := range chunks {
		cands, _ := c["candidates"].([]any)
		for _, cd := range cands {
			cand := cd.(map[string]any)
			if f, ok := cand["finishReason"].(string); ok {
				finish = f
			}
			content, _ := cand["content"].(map[string]any)
			ps, _ := content["parts"].([]any)
			for _, p := range ps {
				pm := p.(map[string]any)
				parts = append(parts, pm)
				if s, ok := pm["text"].(string); ok {
					text += s
				}
			}
		}
	}
	return parts, text, finish
}

// The router's JSON-mode call gets JSON of the schema it gives, in range (a score of 1-100).
func TestGeminiAnswersTheRouterWithJSON(t *testing.T) {
	s, err := Start(Gemini, script, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	resp := post(t, s, "/v1beta/models/gemini-3.5-flash-lite:generateContent", geminiRouter)
	var r map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	_, text, finish := geminiParts([]map[string]any{r})
	var got struct {
		Reasoning string   `json:"complexity_reasoning"`
		Score     *float64 `json:"complexity_score"`
	}
	if err := json.Unmarshal([]byte(text), &got); err != nil || got.Reasoning == "" || got.Score == nil || *got.Score < 1 || *got.Score > 100 || finish != "STOP" {
		t.Errorf("router answer %q (%v), finish %q", text, err, finish)
	}
	if _, ok := r["usageMetadata"]; !ok {
		t.Errorf("no usageMetadata: %v", r)
	}
	// A choice of model is answered with one of its values.
	var req GeminiRequest
	_ = json.Unmarshal([]byte(`{"generationConfig":{"responseMimeType":"application/json","responseSchema":{"type":"object","properties":{"reasoning":{"type":"string"},"model_choice":{"type":"string","enum":["flash","pro"]}}}}}`), &req)
	var choice map[string]any
	if err := json.Unmarshal([]byte(jsonFor(req.GenerationConfig)), &choice); err != nil || choice["model_choice"] != "flash" || choice["reasoning"] == "" {
		t.Errorf("model choice %v (%v)", choice, err)
	}
}

// The main turn gets the call of the tool under the name the CLI declares it, with the
// scenario's arguments and the fixed id, streamed as SSE.
func TestGeminiStreamsTheFunctionCall(t *testing.T) {
	var rec bytes.Buffer
	s, err := Start(Gemini, script, &rec)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	resp := post(t, s, "/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse", geminiTurn1())
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type %q", ct)
	}
	parts, _, finish := geminiParts(readGeminiSSE(t, resp.Body))
	if len(parts) != 1 || finish != "STOP" {
		t.Fatalf("parts %v, finish %q", parts, finish)
	}
	fc, _ := parts[0]["functionCall"].(map[string]any)
	if fc["name"] != "mcp_scenario_get_account_balance" || fc["id"] != GeminiCallID || !reflect.DeepEqual(fc["args"], script.Arguments) {
		t.Errorf("functionCall %v", fc)
	}
	s.Close()
	recs, err := ReadRequests(&rec)
	if err != nil || len(recs) != 1 || recs[0].Reply != "call mcp_scenario_get_account_balance" {
		t.Fatalf("recorded %+v (%v)", recs, err)
	}
	var body GeminiRequest
	if err := json.Unmarshal(recs[0].Body, &body); err != nil || !reflect.DeepEqual(body.ToolNames(), []string{"mcp_scenario_get_account_balance"}) ||
		!json.Valid(body.ToolDef("mcp_scenario_get_account_balance")) || body.WantsJSON() {
		t.Errorf("the recorded body is not the request: %v %v", err, body.ToolNames())
	}
}

// The request carrying the functionResponse gets the answer from it: the output as it was, an
// error as an error, nothing as nothing; streamed in two pieces, or whole without alt=sse and
// from generateContent.
func TestGeminiAnswersFromTheFunctionResponse(t *testing.T) {
	s, err := Start(Gemini, script, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct{ response, want string }{
		{`{"output":"<untrusted_context>\nACC-4471: balance 40,718.77 USD as of 2026-03-31\n</untrusted_context>"}`,
			"The tool returned: <untrusted_context>\nACC-4471: balance 40,718.77 USD as of 2026-03-31\n</untrusted_context>"},
		{`{"error":"MCP tool 'get_account_balance' reported tool error"}`, "The tool call failed: MCP tool 'get_account_balance' reported tool error"},
		{`{}`, "The tool returned nothing I can use."},
	} {
		resp := post(t, s, "/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse", geminiTurn2(c.response))
		chunks := readGeminiSSE(t, resp.Body)
		parts, text, finish := geminiParts(chunks)
		if text != c.want || finish != "STOP" || len(chunks) != 2 {
			t.Errorf("%s: %d chunks, %q (finish %q), want %q", c.response, len(chunks), text, finish, c.want)
		}
		for _, p := range parts {
			if _, ok := p["functionCall"]; ok {
				t.Errorf("%s: called again", c.response)
			}
		}
		resp = post(t, s, "/v1beta/models/gemini-3.8-flash:generateContent", geminiTurn2(c.response))
		var whole map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&whole)
		if _, text, _ := geminiParts([]map[string]any{whole}); text != c.want {
			t.Errorf("%s: generateContent %q", c.response, text)
		}
		resp = post(t, s, "/v1beta/models/gemini-3.8-flash:streamGenerateContent", geminiTurn2(c.response))
		var arr []map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&arr); err != nil {
			t.Errorf("%s: streamGenerateContent without sse is not a JSON array: %v", c.response, err)
		} else if _, text, _ := geminiParts(arr); text != c.want {
			t.Errorf("%s: streamGenerateContent %q", c.response, text)
		}
	}
}

func TestGeminiSideRoutes(t *testing.T) {
	s, err := Start(Gemini, script, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n map[string]any
	if err := json.NewDecoder(post(t, s, "/v1beta/models/gemini-3.8-flash:countTokens", geminiTurn1()).Body).Decode(&n); err != nil || n["totalTokens"] == nil {
		t.Errorf("countTokens %v (%v)", n, err)
	}
	for path, key := range map[string]string{"/v1beta/models": "models", "/v1beta/models/gemini-3.8-flash": "name"} {
		resp, err := http.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
		if resp.StatusCode != 200 || m[key] == nil {
			t.Errorf("GET %s: %d %v", path, resp.StatusCode, m)
		}
	}
	resp := post(t, s, "/v1beta/models/gemini-3.8-flash:generateContent", "not json")
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a body that is not JSON: %d", resp.StatusCode)
	}
	resp = post(t, s, "/v1/other", "{}")
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown route: %d", resp.StatusCode)
	}
}

// A turn without the tool declared answers so, and never calls anything.
func TestGeminiWithoutTheTool(t *testing.T) {
	var req GeminiRequest
	_ = json.Unmarshal([]byte(`{"contents":[`+geminiUser+`],"tools":[{"functionDeclarations":[]}]}`), &req)
	if st := script.geminiStep(&req); st.Tool != "" || !strings.Contains(st.Text, "no tool named get_account_balance") {
		t.Errorf("step %+v", st)
	}
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"mcp_scenario_list_accounts", "mcp_scenario_get_account_balance"}, "mcp_scenario_get_account_balance"},
		{[]string{"get_account_balance"}, "get_account_balance"},
		{[]string{"mcp_scenario_list_accounts", "account_balance"}, ""},
	} {
		if got := Exposed(c.names, "get_account_balance"); got != c.want {
			t.Errorf("Exposed(%v) = %q, want %q", c.names, got, c.want)
		}
	}
}

func TestFunctionResponseOutput(t *testing.T) {
	for _, c := range []struct {
		response, text string
		isError        bool
	}{
		{`{"output":"hi"}`, "hi", false},
		{`{"error":"boom"}`, "boom", true},
		{`{"error":{"message":"boom"}}`, `{"message":"boom"}`, true},
		{`{}`, "", false},
		{`{"output":"hi","other":1}`, `{"output":"hi","other":1}`, false},
	} {
		f := FunctionResponse{Response: json.RawMessage(c.response)}
		if text, isError := f.Output(); text != c.text || isError != c.isError {
			t.Errorf("%s: %q %v", c.response, text, isError)
		}
	}
}
