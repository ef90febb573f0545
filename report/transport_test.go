package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/tally"
)

// TestTransportReports: with cells on both transports, every renderer names the transport of
// each table, and an expectation about one transport says so; with stdio alone, none does.
func TestTransportReports(t *testing.T) {
	r := &tally.Results{Scenario: "ledger balance", Toolscore: "v0.1.0", Backend: "docker", Started: t0, Finished: t0.Add(90e9)}
	for _, tr := range []string{"stdio", "http"} {
		for _, client := range []string{"raw", "mcp-go/call"} {
			c := mkCell(client, "clean", "published", 3, "passed:3")
			if tr == "http" && client == "mcp-go/call" {
				c = mkCell(client, "clean", "published", 3, "threw:3")
			}
			c.Transport = tr
			r.Cells = append(r.Cells, c)
		}
	}
	r.Expectations = []tally.Expectation{{Line: 12, Client: "mcp-go/call", Transport: "http", Outcome: "passed", Status: tally.Unmet,
		Misses: []string{"mcp-go/call × clean × published × http: threw 3/3"}}}
	var txt, md, sum bytes.Buffer
	if err := Text(&txt, r); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := Summary(&sum, r, nil); err != nil {
		t.Fatal(err)
	}
	// The text report's matrix names the transports in the cells they tell apart.
	for _, want := range []string{"stdio: passed 3/3", "http: threw 3/3"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, txt.String())
		}
	}
	for name, out := range map[string]string{"markdown": md.String(), "summary": sum.String()} {
		for _, want := range []string{"transport stdio", "transport http"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s report lacks %q:\n%s", name, want, out)
			}
		}
	}
	if !strings.Contains(txt.String(), "client mcp-go/call fault * schema * transport http") {
		t.Errorf("the text report does not key the expectation by its transport:\n%s", txt.String())
	}
	var stdio bytes.Buffer
	r.Cells = r.Cells[:2]
	if err := Text(&stdio, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stdio.String(), "transport stdio") {
		t.Errorf("a stdio-only report names the transport:\n%s", stdio.String())
	}
}
