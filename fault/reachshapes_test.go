package fault_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/fault"
)

// TestOversizeSizes: each oversize fault grows the ledger's text to its size exactly, the
// server's text first and structuredContent untouched, and lists no introduced value (a run's
// record would carry it); the note says how the text grew.
func TestOversizeSizes(t *testing.T) {
	for name, size := range map[string]int{"oversize-25k": 100_000, "oversize-100k": 400_000, "oversize-1mb": 1 << 20} {
		eff := applyTo(t, name, "", "", modernBalance, 1)
		text := eff.Result["content"].([]any)[0].(map[string]any)["text"].(string)
		if len(text) != size || !strings.HasPrefix(text, "ACC-4471: balance 40,718.77 USD as of 2026-03-31\nline 000001 ") {
			t.Errorf("%s: %d bytes of text beginning %.80q, want %d after the server's", name, len(text), text, size)
		}
		if strings.Count(text, "40,718.77") != 1 || eff.Introduced != nil || !strings.Contains(eff.Note, "grew from 48 to") {
			t.Errorf("%s: the padding repeats the value, or introduced %v, note %q", name, eff.Introduced, eff.Note)
		}
		if got := mustJSON(t, eff.Result["structuredContent"]); got != `{"account_id":"ACC-4471","as_of":"2026-03-31","balance_minor":4071877,"currency":"USD"}` {
			t.Errorf("%s: structuredContent %s", name, got)
		}
	}
	if eff := applyTo(t, "oversize-25k", `{"bytes":10}`, "", modernBalance, 1); eff.Result != nil || !strings.Contains(eff.Note, "already 48 bytes") {
		t.Errorf("a text already larger: %v, note %q", eff.Result, eff.Note)
	}
	if eff := applyTo(t, "oversize-25k", `{"bytes":50}`, "", `{"content":[],"structuredContent":{}}`, 1); mustJSON(t, eff.Result) != `{"content":[{"text":"\nline 000001 of the statement: no entry\nline 00000","type":"text"}],"structuredContent":{}}` || eff.Note == "" {
		t.Errorf("a result without text: %s, note %q", mustJSON(t, eff.Result), eff.Note)
	}
	for _, opt := range []string{`{"bytes":0}`, `{"bytes":-1}`, `{"bytes":1e12}`} {
		if err := fault.Check("oversize-1mb", json.RawMessage(opt)); err == nil || !strings.Contains(err.Error(), "option bytes") {
			t.Errorf("%s: %v", opt, err)
		}
	}
}

// TestShapeFaultsLeaveWhatTheyCannotSplit: a result that lacks the part a shape fault moves the
// data to or out of is sent as the server sent it, with a note, never made into an empty
// answer that would stand for another fault.
func TestShapeFaultsLeaveWhatTheyCannotSplit(t *testing.T) {
	textOnly := `{"content":[{"type":"text","text":"hi"}]}`
	for _, c := range []struct{ fault, result, note string }{
		{"summary-split", textOnly, "no structuredContent to leave the data in"},
		{"structured-only", textOnly, "no structuredContent: emptying its content"},
		{"structured-only", `{"content":[],"structuredContent":{"n":1}}`, "already empty"},
		{"text-only", textOnly, "no structuredContent to remove"},
	} {
		if eff := applyTo(t, c.fault, "", "", c.result, 1); eff.Result != nil || !strings.Contains(eff.Note, c.note) {
			t.Errorf("%s on %s: %v, note %q; want the server's answer and a note saying %q", c.fault, c.result, eff.Result, eff.Note, c.note)
		}
	}
	if eff := applyTo(t, "text-only", "", "", `{"content":[],"structuredContent":{"n":1}}`, 1); mustJSON(t, eff.Result) != `{"content":[]}` || !strings.Contains(eff.Note, "carries no data") {
		t.Errorf("text-only without text: %s, note %q", mustJSON(t, eff.Result), eff.Note)
	}
	// A result whose content is not a list still gets its block, said in the note.
	if eff := applyTo(t, "resource-link", "", "", `{"structuredContent":{"n":1}}`, 1); len(eff.Result["content"].([]any)) != 1 || !strings.Contains(eff.Note, "no content list") {
		t.Errorf("resource-link without content: %s, note %q", mustJSON(t, eff.Result), eff.Note)
	}
}
