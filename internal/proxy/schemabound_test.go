package proxy

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/internal/transcript"
)

// TestListFaultSchemaBounded: a fault of the listing (schema-ref) is handed the target tool's
// outputSchema; one of 200,000 allOf entries is past what the proxy works on, so the listing
// goes as the server sent it and its record says why.
func TestListFaultSchemaBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"a":{"type":"string"}},"allOf":[`)
	for i := range 200000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"required":["a"]}`)
	}
	b.WriteString("]}}]}}\n")
	frame := []byte(b.String())
	f, err := fault.New("schema-ref", nil)
	if err != nil {
		t.Fatal(err)
	}
	p := New(Config{Fault: f, FaultName: "schema-ref", Tool: "t", Probability: 1, Schema: AsIs}, nil)
	defer p.closeRefs()
	p.noteRequest("", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), &transcript.Record{})
	out, rec := p.answer(context.Background(), "", frame)
	if !bytes.Equal(out, frame) {
		t.Errorf("the listing was rewritten (%d bytes, was %d), want it as the server sent it", len(out), len(frame))
	}
	if !strings.Contains(rec.Note, "too large for the proxy to work on: it holds more than 10000 values") {
		t.Errorf("the record says %q, want why the schema was not worked on", rec.Note)
	}
}
