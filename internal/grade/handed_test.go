package grade

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

// TestSDKHanded: a framework that hands its model a text or an error value instead of returning
// the result is graded as an agent's view is: the wire's words unchanged pass, other words are
// altered, an error value where the wire had a result is rejected (never passed), and one
// where the wire had isError passes.
func TestSDKHanded(t *testing.T) {
	dir := t.TempDir()
	entries := func(result string) []transcript.Entry { return callOfT(t, dir, result) }
	ok := `{"content":[{"type":"text","text":"{\"n\":1}"}],"structuredContent":{"n":1}}`
	for _, c := range []struct {
		name, result, handed string
		outcome              record.Outcome
		evidence             string
	}{
		{"the wire's text", ok, `{"kind":"text","excerpt":"{\"n\":1}"}`, record.Passed, ""},
		{"the structured JSON", ok, `{"kind":"structured","excerpt":"{\"n\": 1}"}`, record.Passed, ""},
		{"other words", ok, `{"kind":"text","excerpt":"n is 2"}`, record.Altered, "the model got the text"},
		{"a validation error", ok, `{"kind":"error","excerpt":"Tool t output validation failed: n must be string"}`, record.Rejected, "Tool t output validation failed"},
		{"an isError result as an error", `{"content":[{"type":"text","text":"boom"}],"isError":true}`, `{"kind":"error","excerpt":"boom"}`, record.Passed, ""},
		// A result without content (no-content): the evidence says the wire had none, not null.
		{"a text made up for a result without content", `{"structuredContent":{"n":1}}`, `{"kind":"text","excerpt":"[]"}`, record.Altered, `the model got the text "[]" where the wire had no text content`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, "stdout")
			os.WriteFile(out, []byte(`{"client":"f","handed":`+c.handed+"}\n"), 0o644)
			g := SDK(Run{Stdout: out}, entries(c.result))
			if g.Outcome != c.outcome || !strings.HasPrefix(g.Evidence, c.evidence) {
				t.Errorf("%s: %s", g.Outcome, g.Evidence)
			}
			if c.evidence == "" && g.Evidence != "" {
				t.Errorf("evidence %q for a passed run", g.Evidence)
			}
			if g.ModelView == "" || g.Observation.Handed == nil {
				t.Errorf("no model view kept: %+v", g)
			}
		})
	}
}

// TestSDKReturnedContentTheWireLacked: a client that returns a content list made up for a
// result without one is altered, and the evidence says the wire had none (not the empty list
// a missing content is compared as).
func TestSDKReturnedContentTheWireLacked(t *testing.T) {
	dir := t.TempDir()
	tr := callOfT(t, dir, `{"structuredContent":{"n":1}}`)
	out := filepath.Join(dir, "stdout")
	os.WriteFile(out, []byte(`{"client":"f","returned":{"content":[{"type":"text","text":"{\"n\":1}"}],"structuredContent":{"n":1}}}`+"\n"), 0o644)
	g := SDK(Run{Stdout: out}, tr)
	if want := `content [{"text":"{\"n\":1}","type":"text"}] where the wire had none`; g.Outcome != record.Altered || g.Evidence != want {
		t.Errorf("%s: %q, want altered: %q", g.Outcome, g.Evidence, want)
	}
}

// callOfT is the transcript of one call of the tool t answered with result, written in dir.
func callOfT(t *testing.T, dir, result string) []transcript.Entry {
	tee := filepath.Join(dir, "tee.jsonl")
	f, _ := os.Create(tee)
	w := transcript.NewTee(f)
	w.Write(&transcript.Record{Dir: transcript.ClientToServer, Match: &transcript.Match{Tool: "t", N: 1, Fires: true},
		Wire: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}}` + "\n")})
	w.Write(&transcript.Record{Dir: transcript.ServerToClient, Wire: []byte(`{"jsonrpc":"2.0","id":2,"result":` + result + "}\n")})
	w.Close()
	f.Close()
	tr, err := transcript.Read(tee)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestLargeHandedRecord: a framework that hands its model a text of 8 MiB, and an agent whose
// model view and answer are as large, are graded on what they handed (compared by digest with
// the wire's text), and the record of the run stays small: the large values are stood for by
// their first KiB, size and SHA-256, as returned is.
func TestLargeHandedRecord(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("x", 8<<20)
	wire := `{"content":[{"type":"text","text":"` + big + `"}]}`
	tr := callOfT(t, dir, wire)
	for _, c := range []struct {
		name, line string
		outcome    record.Outcome
		agent      bool
	}{
		{"handed, the wire's text", `{"client":"f","library":"f 1","handed":{"kind":"text","excerpt":"` + big + `","block":{"t":"` + big + `"}}}`, record.Passed, false},
		{"handed, other text", `{"client":"f","library":"f 1","handed":{"kind":"text","excerpt":"y` + big + `"}}`, record.Altered, false},
		{"agent, the wire's text", `{"client":"a","library":"a 1","agent":{"model_view":{"kind":"text","excerpt":"` + big + `","block":{"t":"` + big + `"},"tool_def":{"d":"` + big + `"}},"answer":"` + big + `","stream_excerpt":"` + big + `"}}`, record.Passed, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, "stdout")
			if err := os.WriteFile(out, []byte(c.line+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			var g Grade
			if c.agent {
				g = Agent(Run{Stdout: out}, tr, []string{"40718.77"})
			} else {
				g = SDK(Run{Stdout: out}, tr)
			}
			if g.Outcome != c.outcome {
				t.Errorf("%s: %s, want %s", g.Outcome, g.Evidence, c.outcome)
			}
			rec, err := json.Marshal(g)
			if err != nil {
				t.Fatal(err)
			}
			if len(rec) > 32<<10 {
				t.Errorf("the record is %d bytes, want under 32 KiB: %.300s", len(rec), rec)
			}
			v := g.Observation.Handed
			if c.agent {
				v = &g.Observation.Agent.ModelView
				if a := g.Observation.Agent; a.AnswerLarge == nil || a.AnswerLarge.Bytes != 8<<20 || a.StreamLarge == nil {
					t.Errorf("the answer and stream are not stood for: %+v %+v", a.AnswerLarge, a.StreamLarge)
				}
			}
			if v.ExcerptLarge == nil || v.ExcerptLarge.Bytes < 8<<20 || len(v.ExcerptLarge.SHA256) != 64 || v.Excerpt != "" {
				t.Errorf("the excerpt is not stood for by its prefix, size and hash: %+v", v.ExcerptLarge)
			}
		})
	}
}

// TestLargeToolDef: a tool definition past 64 KiB is still read whole for grading (the model got
// the output schema's properties in its description), and its record keeps an excerpt of it.
func TestLargeToolDef(t *testing.T) {
	def := `{"name":"mcp__scenario__get_account_balance","description":"` + strings.Repeat("pad ", 32<<10) + `account_id balance_minor currency as_of"}`
	line := `{"client":"a","library":"a 1","agent":{"model_view":{"kind":"structured","excerpt":` + strconv.Quote(cleanJSON) + `,"block":{},"tool_def":` + def + `},"answer":"40718.77"}}`
	g := Agent(Run{Stdout: stdoutFile([]byte(line + "\n"))}, entries(cleanResult, nil, true), ledgerTruth)
	v := g.Observation.Agent.ModelView
	if g.Outcome != record.Passed || !v.SchemaSent {
		t.Errorf("%s (%s), schema sent %v; want passed, sent", g.Outcome, g.Evidence, v.SchemaSent)
	}
	if v.ToolDef != nil || v.ToolDefLarge == nil || v.ToolDefLarge.Bytes != int64(len(def)) {
		t.Errorf("the record keeps the definition as %d bytes, excerpt %+v", len(v.ToolDef), v.ToolDefLarge)
	}
}
