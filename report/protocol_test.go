package report

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// protocolSample is a sweep over two protocols, where one agent checks the schema under one
// and not the other, as Claude Code does against a 2026 server and a 2025 one.
func protocolSample() *tally.Results {
	r := &tally.Results{Scenario: "ledger balance", Toolscore: "v0.1.0", Backend: "docker", Started: t0, Finished: t0.Add(90e9)}
	for _, mode := range []string{"hidden", "published"} {
		for _, p := range []string{"2026-07-28", "2025-11-25"} {
			for _, f := range []string{"clean", "type-swap"} {
				for _, client := range []string{"raw", "claude-code"} {
					c := mkCell(client, f, mode, 3, "passed:3")
					c.Protocol = p
					c.Negotiated = map[string]int{p: 3}
					if client == "claude-code" && f == "type-swap" && mode == "published" && p == "2026-07-28" {
						c = mkCell(client, f, mode, 3, "rejected:3")
						c.Protocol = p
					}
					r.Cells = append(r.Cells, c)
				}
			}
		}
	}
	r.Expectations = []tally.Expectation{
		{Line: 30, Client: "claude-code", Fault: "type-swap", Schema: "published", Protocol: "2025-11-25", Outcome: "rejected", Status: tally.Unmet,
			Misses: []string{"claude-code × type-swap × published × 2025-11-25: passed 3/3"}},
	}
	return r
}

func TestProtocolChanges(t *testing.T) {
	got := ProtocolChanges(protocolSample())
	want := []ProtocolChange{{Client: "claude-code", Fault: "type-swap", Schema: "published", Transport: "stdio",
		Under: []ProtocolCounts{{"2026-07-28", "rejected 3/3"}, {"2025-11-25", "passed 3/3"}}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ProtocolChanges:\n%+v\nwant:\n%+v", got, want)
	}
	// One protocol alone has nothing to compare.
	one := &tally.Results{Cells: []*tally.Cell{mkCell("raw", "clean", "hidden", 3, "passed:3"), mkCell("raw", "clean", "published", 3, "threw:3")}}
	if got := ProtocolChanges(one); len(got) != 0 || manyProtocols(one) {
		t.Errorf("one protocol: ProtocolChanges = %+v, manyProtocols %v; want none, false", got, manyProtocols(one))
	}
}

// TestProtocolReports: every renderer names the protocol of each table, compares the
// protocols, and keys expectations by it.
func TestProtocolReports(t *testing.T) {
	r := protocolSample()
	var txt, md, sum bytes.Buffer
	if err := Text(&txt, r); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, r); err != nil {
		t.Fatal(err)
	}
	cmp := &Comparison{Baseline: "base.json", Changes: []tally.Change{{Cell: record.Cell{Client: "claude-code", Fault: "type-swap", Schema: "published", Protocol: "2025-11-25", Transport: "stdio"}, Kind: "changed", Before: "rejected 3/3", After: "passed 3/3"}}}
	if err := Summary(&sum, r, cmp); err != nil {
		t.Fatal(err)
	}
	golden(t, "protocols.txt", txt.Bytes())
	golden(t, "protocols.md", md.Bytes())
	// The text report's matrix names the protocols in the cells they tell apart.
	for _, want := range []string{"published, 2026-07-28:", "published, 2025-11-25:"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text report lacks %q", want)
		}
	}
	for name, out := range map[string]string{"markdown": md.String(), "summary": sum.String()} {
		for _, want := range []string{"protocol 2026-07-28", "protocol 2025-11-25"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s report lacks %q", name, want)
			}
		}
	}
	if !strings.Contains(sum.String(), "| claude-code | type-swap | published | 2025-11-25 | rejected 3/3 | **passed 3/3** |") {
		t.Errorf("summary's baseline table lacks the protocol column:\n%s", sum.String())
	}
	as := Findings(r, nil, cmp, "")
	var msgs []string
	for _, a := range as {
		msgs = append(msgs, a.Title+": "+a.Message)
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"client claude-code, fault type-swap, schema published, protocol 2025-11-25", "claude-code × type-swap × published × 2025-11-25"} {
		if !strings.Contains(all, want) {
			t.Errorf("annotations lack %q:\n%s", want, all)
		}
	}
}
