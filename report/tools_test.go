package report

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/reporttest"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// hostileTool is a tool name as a hostile server could publish it: Markdown and HTML to
// inject, a workflow command at the start of a line, and bidi overrides to reorder the text.
const hostileTool = "x<b>|*y*</b>\n::error title=pwn::owned\u202egnp.exe\u202c"

// multiTool is a sweep of a scenario with tools: two tools (one with a hyphen, one with a
// hostile name), two clients, two faults, both schema modes and an agent; publishing the
// schema changed go-sdk/call's type-swap on get-rate alone.
func multiTool() *tally.Results {
	r := &tally.Results{Scenario: "two tools", Toolscore: "v0.1.0", Backend: "local", Started: t0, Finished: t0.Add(9e9)}
	for _, tool := range []string{"get_balance", "get-rate", hostileTool} {
		for _, mode := range []string{"hidden", "published"} {
			for _, f := range []string{"clean", "type-swap"} {
				for _, client := range []string{"raw", "go-sdk/call", "claude-code"} {
					c := mkCell(client, f, mode, 2, "passed:2")
					if tool == "get-rate" && mode == "published" && f == "type-swap" && client == "go-sdk/call" {
						c = mkCell(client, f, mode, 2, "threw:2")
						c.Examples = map[string]tally.Example{"threw": {Run: 1, Evidence: "validating structuredContent"}}
					}
					if client == "claude-code" {
						c.ModelView, c.Answer = map[string]int{"structured": 2}, map[string]int{"truth": 2}
					}
					c.Tool = tool
					r.Cells = append(r.Cells, c)
				}
			}
		}
	}
	r.Expectations = []tally.Expectation{
		{Line: 30, Client: "go-sdk/call", Fault: "type-swap", Tool: "get-rate", Outcome: "passed", Status: tally.Unmet,
			Misses: []string{"get-rate: go-sdk/call × type-swap × published: threw 2/2"}},
	}
	return r
}

// toolNames are multiTool's tools, as each report may show them.
var toolNames = []string{"get_balance", "get-rate", hostileTool}

// TestToolsJUnitCTRF: with several tools, every testsuite names its tool, no two test cases
// share a name, and ctrf.json carries each test's tool; both still validate.
func TestToolsJUnitCTRF(t *testing.T) {
	r := multiTool()
	cmp := &Comparison{Baseline: "b.json", Changes: []tally.Change{
		{Key: "gone", Cell: record.Cell{Client: "raw", Fault: "latency", Schema: "published", Protocol: "as-is", Transport: "stdio", Tool: hostileTool}, Kind: "gone", Before: "passed 1/1"}}}
	j, c := checkJUnitCTRF(t, r, cmp)
	seen := map[string]bool{}
	for _, s := range j.Suites {
		if !slices.ContainsFunc(toolNames, func(tool string) bool { return strings.HasPrefix(s.Name, "tool "+line(tool)+", schema ") }) {
			t.Errorf("testsuite %q names no tool", s.Name)
		}
		for _, tc := range s.Cases {
			if tc.Classname != s.Name {
				t.Errorf("testcase %q has classname %q in suite %q", tc.Name, tc.Classname, s.Name)
			}
			if seen[s.Name+"/"+tc.Name] {
				t.Errorf("duplicate testcase %q in suite %q", tc.Name, s.Name)
			}
			seen[s.Name+"/"+tc.Name] = true
		}
	}
	names := map[string]bool{}
	for _, tc := range c.Results.Tests {
		if names[tc.Name] {
			t.Errorf("duplicate ctrf test %q", tc.Name)
		}
		names[tc.Name] = true
	}
	var raw struct {
		Results struct {
			Tests []struct {
				Name  string         `json:"name"`
				Extra map[string]any `json:"extra"`
			} `json:"tests"`
		} `json:"results"`
	}
	var b bytes.Buffer
	if err := CTRFCompared(&b, r, cmp); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	for _, tc := range raw.Results.Tests {
		if tool, _ := tc.Extra["tool"].(string); !slices.Contains([]string{"get_balance", "get-rate", line(hostileTool)}, tool) {
			t.Errorf("ctrf test %q: extra.tool %q", tc.Name, tool)
		}
	}
	if !names["raw × latency (tool "+line(hostileTool)+", schema published)"] {
		t.Errorf("the cell gone since the baseline does not name its tool: %v", names)
	}
}

// TestToolsMarkdown: summary.md names the tool in every table, the model's view included, in
// the schema changes and the expectations, with no dangling separator; a hostile tool name is
// escaped like any server string.
func TestToolsMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := Summary(&b, multiTool(), nil); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"## Tool get-rate, schema published\n",
		"## The model's view, tool get\\_balance, schema hidden\n",
		"## The model's view, tool get-rate, schema published\n",
		"## The model's view, tool " + EscapeMarkdown(hostileTool) + ", schema hidden\n",
		"- **get-rate: go-sdk/call** × type-swap: passed 2/2 (hidden) → threw 2/2 (published)\n",
		"tool get-rate → want **passed**",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}
	checkNoDangling(t, "summary.md", md)
	golden(t, "tools.md", b.Bytes())
	for _, bad := range []string{"<b>", "\u202e", "\n::error"} {
		if strings.Contains(md, bad) {
			t.Errorf("summary.md carries %q of the tool's name", bad)
		}
	}
}

// TestToolsText: the terminal names the tool in its rows and in an expectation that selects
// one, and a hostile tool name can neither issue a workflow command nor reorder the line.
func TestToolsText(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, multiTool()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"get-rate: type-swap", "get_balance: clean", "get-rate: go-sdk/call", "schema * tool get-rate → want passed"} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal report lacks %q:\n%s", want, out)
		}
	}
	checkNoDangling(t, "the terminal report", out)
	golden(t, "tools.txt", b.Bytes())
	if strings.Contains(out, "::error") || strings.ContainsAny(out, "\u202e\u202c") {
		t.Errorf("the terminal report passes the tool's workflow command or bidi override on:\n%s", out)
	}
}

// TestToolsHTML: report.html's "publishing changed" list and evidence panels name the tool,
// and only the cells whose counts changed are marked (not the same client × fault of the
// other tools); the hostile tool name shows as text.
func TestToolsHTML(t *testing.T) {
	r := multiTool()
	p := buildPage(r, nil, nil)
	if got := p.SchemaChanges; len(got) != 1 || got[0].Who != "get-rate: go-sdk/call" || got[0].Counts != "passed 2/2 (hidden) → threw 2/2 (published)" ||
		len(got[0].Faults) != 1 || got[0].Faults[0].Name != "type-swap" || got[0].Faults[0].ID == 0 {
		t.Errorf("publishing changed: %+v, want get-rate: go-sdk/call's type-swap, linked to its evidence", got)
	}
	var marked []string
	for _, gt := range p.Tables {
		for _, row := range gt.Rows {
			for _, gc := range row.Cells {
				if gc.Marks != "" {
					marked = append(marked, gt.Title+" / "+row.Fault+" / "+gc.Client)
				}
			}
		}
	}
	if want := []string{"Tool get-rate, schema hidden / type-swap / go-sdk/call", "Tool get-rate, schema published / type-swap / go-sdk/call"}; !slices.Equal(marked, want) {
		t.Errorf("marked cells %q, want %q", marked, want)
	}
	titles := map[string]bool{}
	for _, c := range p.Cells {
		if titles[c.Title] {
			t.Errorf("two evidence panels are titled %q", c.Title)
		}
		titles[c.Title] = true
	}
	if !titles["get-rate: go-sdk/call × type-swap × schema published"] {
		t.Errorf("no evidence panel names the tool: %v", titles)
	}
	var b bytes.Buffer
	if err := HTMLPage(&b, r, nil, nil); err != nil {
		t.Fatal(err)
	}
	shown := reporttest.TextOf(reporttest.CheckHTML(t, "report.html", b.Bytes()))
	if !strings.Contains(shown, line(hostileTool)+": raw × clean × schema hidden") {
		t.Errorf("report.html does not show the hostile tool's name as text")
	}
}

// TestToolsAnnotations: an annotation of an expectation or a change names the tool.
func TestToolsAnnotations(t *testing.T) {
	r := multiTool()
	cmp := &Comparison{Baseline: "b.json", Changes: tally.Diff(&tally.Results{}, r)[:1]}
	as := Findings(r, nil, cmp, FailOnChange)
	var all []string
	for _, a := range as {
		all = append(all, a.Title+"\n"+a.Message)
	}
	got := strings.Join(all, "\n")
	for _, want := range []string{"tool get-rate", "get_balance: raw × clean × hidden"} {
		if !strings.Contains(got, want) {
			t.Errorf("annotations lack %q:\n%s", want, got)
		}
	}
}

// TestToolsCompat: the compatibility pages name each tool.
func TestToolsCompat(t *testing.T) {
	var md, page bytes.Buffer
	if err := Compat(&md, multiTool()); err != nil {
		t.Fatal(err)
	}
	if err := CompatHTML(&page, multiTool()); err != nil {
		t.Fatal(err)
	}
	shown := reporttest.TextOf(reporttest.CheckCompatHTML(t, "compat.html", page.Bytes()))
	for _, tool := range []string{"get-rate", "get_balance"} {
		if !strings.Contains(md.String(), EscapeMarkdown(tool)) || !strings.Contains(shown, tool) {
			t.Errorf("a compatibility page does not name %s", tool)
		}
	}
	checkNoDangling(t, "compat.md", md.String())
}

// checkNoDangling fails where a report joined an empty coordinate: "tool , schema".
func checkNoDangling(t *testing.T, what, s string) {
	t.Helper()
	for _, bad := range []string{"tool ,", "tool  ", " × ×", ", ,", ":  ×", "tool :"} {
		if i := strings.Index(s, bad); i >= 0 {
			t.Errorf("%s has a dangling separator %q: %.80q", what, bad, s[max(i-20, 0):])
		}
	}
}

// mixedResults is a small sweep with one cell whose runs disagree and one whose runs agree, and
// a stable expectation the mixed cell breaks.
func mixedResults() *tally.Results {
	mixed := mkCell("raw", "latency", "hidden", 3, "passed:2", "hung:1")
	mixed.Examples = map[string]tally.Example{"hung": {Run: 3, Evidence: "no answer in 30s"}}
	r := &tally.Results{Scenario: "load", Cells: []*tally.Cell{mkCell("raw", "clean", "hidden", 3, "passed:3"), mixed}}
	r.Expectations = []tally.Expectation{{Line: 9, Client: "raw", Stable: true, Status: tally.Unmet, Misses: []string{"raw × latency × hidden: passed 2/3, hung 1/3"}}}
	return r
}

// TestMixedInEveryReport: a cell whose runs disagree is marked mixed in every report, on the
// first screen and in the summary's head; the cell whose runs agree is not; an unmet stable
// expectation says it wanted stable and shows the mixed cell's evidence.
func TestMixedInEveryReport(t *testing.T) {
	r := mixedResults()
	var txt, md, page, js bytes.Buffer
	if err := Text(&txt, r); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&page, r); err != nil {
		t.Fatal(err)
	}
	if err := JSON(&js, r); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ what, got, want string }{
		{"terminal head", txt.String(), "load: 6 of 6 runs in 2 cells\n\nMixed: the runs of 1 cell disagree (on a busy machine that may be the load, not the client):\n  raw × latency × hidden\n"},
		{"terminal table", txt.String(), "latency  passed 2/3, hung 1/3 (mixed)\n"},
		{"terminal expectation", txt.String(), "expect at line 9: client raw fault * schema * → want stable; got: raw × latency × hidden: passed 2/3, hung 1/3"},
		{"summary head", md.String(), "runs** in 2 cells\n\n**Mixed:** the runs of 1 cell disagree (on a busy machine that may be the load, not the client):\n- raw × latency × hidden: passed 2/3, hung 1/3\n"},
		{"summary table", md.String(), "| latency | passed 2/3, hung 1/3 (mixed) |"},
		{"summary expectation", md.String(), "→ want **stable**; got: raw × latency × hidden: passed 2/3, hung 1/3\n  - raw × latency × hidden: passed 2/3\n  - raw × latency × hidden: hung 1/3, first in run 3: no answer in 30s\n"},
		{"report.html", page.String(), `<ul id="mixed"><li>raw × latency × hidden: passed 2/3, hung 1/3</li></ul>`},
		{"report.html grid", page.String(), `passed 2/3, hung 1/3 (mixed)</a>`},
		{"results.json", js.String(), "\"hung\": 1,\n        \"passed\": 2\n      },\n      \"mixed\": true,"},
		{"verdict", Verdict(r, nil), "1 cell mixed"},
	} {
		if !strings.Contains(c.got, c.want) {
			t.Errorf("%s lacks %q:\n%s", c.what, c.want, c.got)
		}
	}
	if n := strings.Count(js.String(), `"mixed"`); n != 1 {
		t.Errorf("results.json marks %d cells mixed, want 1", n)
	}
	if strings.Contains(txt.String(), "passed 3/3 (mixed)") || strings.Contains(md.String(), "passed 3/3 (mixed)") {
		t.Errorf("the cell whose runs agree is marked mixed")
	}

	j, c := checkJUnitCTRF(t, r, nil)
	var props []string
	for _, s := range j.Suites {
		for _, tc := range s.Cases {
			for _, p := range tc.Properties {
				if p.Name == "mixed" {
					props = append(props, tc.Name+"="+p.Value)
				}
			}
			if tc.Name == "raw × latency" && (len(tc.Failures) != 1 || !strings.Contains(tc.Failures[0].Message, "manifest line 9: want stable; got passed 2/3, hung 1/3")) {
				t.Errorf("junit failure of the mixed cell: %+v", tc.Failures)
			}
		}
	}
	if want := []string{"raw × latency=true"}; !slices.Equal(props, want) {
		t.Errorf("junit mixed properties %q, want %q", props, want)
	}
	var flaky struct {
		Results struct {
			Tests []struct {
				Name  string `json:"name"`
				Flaky bool   `json:"flaky"`
			} `json:"tests"`
		} `json:"results"`
	}
	var cb bytes.Buffer
	if err := CTRF(&cb, r); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(cb.Bytes(), &flaky); err != nil {
		t.Fatal(err)
	}
	if len(flaky.Results.Tests) != 2 || flaky.Results.Tests[0].Flaky || !flaky.Results.Tests[1].Flaky || c.Results.Summary.Failed != 1 {
		t.Errorf("ctrf.json: %+v, want the latency test alone flaky and failed", flaky.Results.Tests)
	}

	as := Findings(r, nil, nil, "")
	if len(as) != 2 || as[0].Title != "expectation not met: want stable" || !strings.Contains(as[0].Message, "want the runs of each cell to agree; got:") ||
		as[1].Level != "notice" || as[1].Title != "mixed: raw × latency × hidden" ||
		as[1].Message != "raw × latency × hidden: passed 2/3, hung 1/3: the runs disagree (on a busy machine that may be the load, not the client)" {
		t.Errorf("annotations: %+v", as)
	}
}

// TestToolFaultRowsKeepFaultsWhole: the terminal's "tool: fault" rows of a long tool's name
// wrap between the tool and the fault, never inside the fault's name (issue 52, item 6:
// "get_structured_content: type-" over "swap" read as two faults).
func TestToolFaultRowsKeepFaultsWhole(t *testing.T) {
	r := &tally.Results{Scenario: "long tool", Toolscore: "v0.1.0", Backend: "local", Started: t0, Finished: t0.Add(9e9)}
	for _, tool := range []string{"get-structured-content", "echo"} {
		for _, f := range []string{"clean", "type-swap", "drop-required"} {
			c := mkCell("raw", f, "published", 1, "passed:1")
			c.Tool = tool
			r.Cells = append(r.Cells, c)
		}
	}
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(b.String(), "tool: fault")
	var rows []string
	for _, l := range strings.Split(table, "\n") {
		if name, _, _ := strings.Cut(strings.TrimSpace(l), "  "); name != "" && !strings.HasPrefix(name, "---") {
			rows = append(rows, name)
		}
	}
	for _, want := range []string{"get-structured-content:", "type-swap", "drop-required", "echo: type-swap"} {
		if !slices.Contains(rows, want) {
			t.Errorf("no row reads %q; the rows:\n%s", want, strings.Join(rows, "\n"))
		}
	}
	for _, l := range rows {
		if strings.HasSuffix(l, "type-") || l == "swap" || strings.HasSuffix(l, "drop-") {
			t.Errorf("a row breaks a fault's name: %q\n%s", l, table)
		}
	}
}
