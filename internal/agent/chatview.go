package agent

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/toolscore/toolscore/internal/model"
	"github.com/toolscore/toolscore/record"
)

// chatView finds the tool result the model got from an agent that speaks the Chat Completions
// API: the tool message answering the scripted call in the first request that carries it; the
// tool's definition and the name it was called by come from the requests before. isErr says
// whether the agent's text marks the result as a failure (the API has no error flag). Requests
// the agent makes besides its turns (a title, a summary: no tools offered) are skipped.
func chatView(reqs []model.Request, tool string, isErr func(string) bool) (record.ModelView, string, string) {
	var def json.RawMessage
	var called, asked string
	for _, q := range reqs {
		if !strings.HasSuffix(strings.TrimSuffix(q.Path, "/"), "/chat/completions") {
			continue
		}
		var cr model.ChatRequest
		if json.Unmarshal(q.Body, &cr) != nil {
			continue
		}
		if def == nil {
			if n := model.Exposed(cr.ToolNames(), tool); n != "" {
				def, called, asked = cr.ToolDef(n), n, cr.Model
			}
		}
		m := cr.FindToolMessage(model.ChatCallID)
		if m == nil {
			continue
		}
		if n := cr.CalledName(model.ChatCallID); n != "" {
			called = n
		}
		parts := m.Parts()
		text := strings.Join(parts, "\n")
		e := isErr != nil && isErr(text)
		return record.ModelView{Kind: Classify(e, parts), Excerpt: excerpt(text, 2000), IsError: e, Block: m.Raw, ToolDef: def,
			SchemaSent: bytes.Contains(def, []byte("outputSchema")) || bytes.Contains(def, []byte("output_schema"))}, called, asked
	}
	return record.ModelView{Kind: record.ViewNone, ToolDef: def}, called, asked
}
