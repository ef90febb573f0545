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
	if want := []string{"get-rate: go-sdk/call × type-swap: passed 2/2 (hidden) → threw 2/2 (published)"}; !slices.Equal(p.SchemaChanges, want) {
		t.Errorf("publishing changed: %q, want %q", p.SchemaChanges, want)
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
	as := Annotations(AnnotationInput{Results: r, File: "m.yaml", Compare: cmp, FailOn: FailOnChange}, DefaultBudget)
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
