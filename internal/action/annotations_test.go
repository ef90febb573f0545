package action

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sethvargo/go-githubactions"

	"github.com/toolscore/toolscore/internal/reporttest"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/tally"
)

// hostile holds strings a server under test or a client library might send.
var hostile = reporttest.Hostile

// unescapedPipe finds a table separator: a | not escaped by a backslash.
var unescapedPipe = regexp.MustCompile(`(^|[^\\])(\\\\)*\|`)

// mkCell builds a cell from "outcome:count" pairs.
func mkCell(client, fault, schema string, planned int, counts ...string) *tally.Cell {
	c := &tally.Cell{Cell: record.Cell{Client: client, Fault: fault, Schema: schema, Protocol: "as-is", Transport: "stdio"}, Planned: planned, Outcome: map[string]int{}}
	for _, oc := range counts {
		o, n, _ := strings.Cut(oc, ":")
		k, _ := strconv.Atoi(n)
		c.Outcome[o] += k
		c.Runs += k
	}
	return c
}

// manifest is a scenario whose entries sit on known lines: clients on 8-10, faults on 12-14,
// expect entries from 17.
const manifest = `name: ledger balance
server:
  builtin: ledger
tool: get_account_balance
arguments: {account_id: ACC-4471}
schema_modes: [hidden, published]
clients:
  - raw
  - go-sdk/call
  - {name: ts-sdk/call, version: "1.20.0"}
faults:
  - clean
  - rpc-error
  - type-swap
runs: 1
expect:
  - {client: raw, fault: clean, outcome: passed}
  - {fault: rpc-error, outcome: rpc-error}
`

func loadManifest(t *testing.T) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Load("scenarios/mine.yaml", []byte(manifest), scenario.Known{})
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// many is a sweep with n unmet expectations, m changed cells and u unavailable clients.
func many(n, m, u int) (*tally.Results, *report.Comparison) {
	r := &tally.Results{Scenario: "ledger balance"}
	r.Cells = append(r.Cells, mkCell("go-sdk/call", "type-swap", "published", 1, "threw:1"))
	for i := range n {
		r.Expectations = append(r.Expectations, tally.Expectation{Line: 100 + i, Client: "go-sdk/call", Fault: "type-swap", Outcome: "passed",
			Misses: []string{fmt.Sprintf("go-sdk/call × type-swap × published: threw 1/1 (%d)", i)}})
	}
	r.Expectations = append(r.Expectations, tally.Expectation{Line: 99, Outcome: "passed", Held: true})
	cmp := &report.Comparison{Baseline: "baseline.json"}
	for i := range m {
		client := []string{"raw", "go-sdk/call", "ts-sdk/call@1.20.0", "gone-client"}[i%4]
		cmp.Changes = append(cmp.Changes, tally.Change{Cell: record.Cell{Client: client, Fault: "type-swap", Schema: "published", Transport: "stdio"},
			Kind: "changed", Before: "passed 1/1", After: fmt.Sprintf("threw 1/1 (%d)", i)})
	}
	for i := range u {
		r.Unavailable = append(r.Unavailable, tally.Unavailable{Client: "ts-sdk/call@1.20.0", Reason: fmt.Sprintf("no image (%d)", i)})
	}
	return r, cmp
}

func count(list []Annotation) map[string]int {
	n := map[string]int{}
	for _, a := range list {
		n[a.Level]++
	}
	return n
}

func TestAnnotationsBudget(t *testing.T) {
	sc := loadManifest(t)
	r, cmp := many(25, 15, 3)
	list := Annotations(AnnotationInput{Results: r, Scenario: sc, File: "scenarios/mine.yaml", Compare: cmp, FailOn: report.FailOnExpect}, DefaultBudget)
	if n := count(list); n["error"] != 10 || n["warning"] != 10 || n["notice"] != 1 || len(list) != 21 {
		t.Fatalf("levels %v (%d annotations), want 10 errors, 10 warnings and 1 notice", n, len(list))
	}
	// Most important first: the unmet expectations, in manifest order, as errors on their lines.
	for i, a := range list[:10] {
		if a.Level != "error" || a.Line != 100+i || a.File != "scenarios/mine.yaml" || !strings.HasPrefix(a.Title, "expectation not met") {
			t.Errorf("annotation %d = %+v, want the error of the expect entry on line %d", i, a, 100+i)
		}
	}
	// Then the changes, as warnings, on their client's line, or their fault's when the client
	// is not in the manifest.
	for i, a := range list[10:20] {
		want := []int{8, 9, 10, 14}[i%4]
		if a.Level != "warning" || a.Line != want || !strings.HasPrefix(a.Title, "changed against the baseline") {
			t.Errorf("annotation %d = %+v, want a change warning on line %d", 10+i, a, want)
		}
	}
	last := list[20]
	if last.Level != "notice" || last.Title != "23 more in the job summary" ||
		!strings.Contains(last.Message, "(15 unmet expectations, 5 changed cells, 3 unavailable clients)") {
		t.Errorf("final notice = %+v", last)
	}

	// Under fail-on change, changes are errors too and share the error budget.
	list = Annotations(AnnotationInput{Results: r, Scenario: sc, File: "m.yaml", Compare: cmp, FailOn: report.FailOnChange}, DefaultBudget)
	if n := count(list); n["error"] != 10 || n["warning"] != 3 || n["notice"] != 1 {
		t.Errorf("fail-on change: levels %v, want 10 errors, the 3 unavailable clients as warnings, 1 notice", n)
	}
	// Under fail-on never, nothing is an error.
	list = Annotations(AnnotationInput{Results: r, Compare: cmp, FailOn: report.FailOnNever}, DefaultBudget)
	if n := count(list); n["error"] != 0 || n["warning"] != 10 || n["notice"] != 1 {
		t.Errorf("fail-on never: levels %v, want 10 warnings and 1 notice", n)
	}
	for _, a := range list {
		if a.File != "" || a.Line != 0 {
			t.Errorf("without a file in the workspace, %+v is anchored", a)
		}
	}

	// What fits is annotated with no notice.
	r, cmp = many(2, 1, 1)
	list = Annotations(AnnotationInput{Results: r, Scenario: sc, File: "m.yaml", Compare: cmp, FailOn: report.FailOnExpect}, DefaultBudget)
	if n := count(list); n["error"] != 2 || n["warning"] != 2 || n["notice"] != 0 {
		t.Errorf("levels %v, want 2 errors, 2 warnings, no notice", n)
	}
	if a := list[3]; a.Line != 10 || a.Title != "client unavailable: ts-sdk/call@1.20.0" || a.Message != "ts-sdk/call@1.20.0 could not run here: no image (0)" {
		t.Errorf("unavailable client: %+v", a)
	}

	// A job budget smaller than the step's keeps a place for the notice.
	r, cmp = many(8, 8, 0)
	list = Annotations(AnnotationInput{Results: r, Compare: cmp, FailOn: report.FailOnExpect}, Budget{Errors: 10, Warnings: 10, Notices: 10, Total: 12})
	if n := count(list); len(list) != 12 || n["error"] != 8 || n["warning"] != 3 || n["notice"] != 1 {
		t.Errorf("total 12: levels %v (%d), want 8 errors, 3 warnings, 1 notice", n, len(list))
	}
	if !strings.Contains(list[11].Message, "5 more findings are not annotated") {
		t.Errorf("notice: %q", list[11].Message)
	}
}

func TestAnnotationChanges(t *testing.T) {
	sc := loadManifest(t)
	r := &tally.Results{Scenario: "s"}
	cmp := &report.Comparison{Changes: []tally.Change{
		{Cell: record.Cell{Client: "raw", Fault: "clean", Schema: "hidden"}, Kind: "new", After: "passed 1/1"},
		{Cell: record.Cell{Client: "old-client", Fault: "rpc-error", Schema: "hidden"}, Kind: "gone", Before: "rpc-error 3/3"},
		{Cell: record.Cell{Client: "old-client", Fault: "old-fault", Schema: "hidden"}, Kind: "gone", Before: "passed 3/3"},
	}}
	list := Annotations(AnnotationInput{Results: r, Scenario: sc, File: "m.yaml", Compare: cmp, FailOn: report.FailOnChange}, DefaultBudget)
	want := []Annotation{
		{Level: "error", File: "m.yaml", Line: 8, Title: "new against the baseline: raw × clean × hidden", Message: "raw × clean × hidden is not in the baseline; now: passed 1/1"},
		{Level: "error", File: "m.yaml", Line: 13, Title: "gone against the baseline: old-client × rpc-error × hidden", Message: "old-client × rpc-error × hidden is in the baseline (rpc-error 3/3) but did not run now"},
		{Level: "error", File: "m.yaml", Line: 0, Title: "gone against the baseline: old-client × old-fault × hidden", Message: "old-client × old-fault × hidden is in the baseline (passed 3/3) but did not run now"},
	}
	if fmt.Sprint(list) != fmt.Sprint(want) {
		t.Errorf("got\n%+v\nwant\n%+v", list, want)
	}
}

// TestAnnotate checks the workflow commands themselves: go-githubactions escapes %, CR and
// LF in the message and : and , in properties, once.
func TestAnnotate(t *testing.T) {
	var out bytes.Buffer
	a := githubactions.New(githubactions.WithWriter(&out))
	Annotate(a, []Annotation{
		{Level: "error", File: "dir,x/m:1.yaml", Line: 17, Title: "want: passed, got 100%", Message: "line one\nline two 50%\r"},
		{Level: "warning", Title: "t", Message: "%s %d"},
		{Level: "notice", File: "m.yaml", Message: "no line"},
	})
	want := "::error file=dir%2Cx/m%3A1.yaml,line=17,title=want%3A passed%2C got 100%25::line one%0Aline two 50%25%0D\n" +
		"::warning title=t::%25s %25d\n" +
		"::notice file=m.yaml::no line\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// commandLine is one workflow command, as the runner reads it.
var commandLine = regexp.MustCompile(`^::(error|warning|notice)( [a-z]+=[^:,\r\n]*(,[a-z]+=[^:,\r\n]*)*)?::[^\r\n]*$`)

func TestAnnotationsHostile(t *testing.T) {
	sc := loadManifest(t)
	r := &tally.Results{Scenario: hostile[0]}
	cmp := &report.Comparison{Baseline: hostile[1]}
	for i, s := range hostile {
		c := mkCell(s, hostile[(i+3)%len(hostile)], "hidden", 2, "passed:1", s+":1")
		c.Examples = map[string]tally.Example{s: {Run: 1, Evidence: s + "\n::error::injected\n::add-mask::x", Tee: s}}
		r.Cells = append(r.Cells, c)
		r.Unavailable = append(r.Unavailable, tally.Unavailable{Client: s, Reason: s + "\n::set-output name=x::y"})
		r.Expectations = append(r.Expectations, tally.Expectation{Line: i + 1, Client: s, Fault: "*", Outcome: s, Misses: []string{s, "\n::stop-commands::x"}})
		cmp.Changes = append(cmp.Changes, tally.Change{Cell: record.Cell{Client: s, Fault: s, Schema: s}, Kind: "changed", Before: s, After: s})
	}
	for _, failOn := range []report.FailOn{report.FailOnExpect, report.FailOnChange, report.FailOnNever} {
		list := Annotations(AnnotationInput{Results: r, Scenario: sc, File: "scenarios/mine.yaml", Compare: cmp, FailOn: failOn}, DefaultBudget)
		want := 30 // 10 errors, 10 warnings, 9 notices of mixed cells, the notice of the rest
		if failOn == report.FailOnNever {
			want = 20 // 10 warnings, 9 notices of mixed cells, the notice of the rest
		}
		if len(list) != want {
			t.Errorf("fail-on %s: %d annotations, want %d", failOn, len(list), want)
		}
		var out bytes.Buffer
		Annotate(githubactions.New(githubactions.WithWriter(&out)), list)
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(lines) != len(list) {
			t.Fatalf("%d annotations wrote %d lines", len(list), len(lines))
		}
		for i, l := range lines {
			if !commandLine.MatchString(l) {
				t.Errorf("line %d is not one clean workflow command: %.300q", i, l)
			}
			if len(l) > 3*AnnotationLimit+3*annotationTitleLimit+200 {
				t.Errorf("line %d is %d bytes", i, len(l))
			}
			if !utf8.ValidString(l) {
				t.Errorf("line %d is not UTF-8", i)
			}
			if regexp.MustCompile("[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]").MatchString(l) {
				t.Errorf("line %d has a control character: %.200q", i, l)
			}
		}
		for _, a := range list {
			if len(a.Message) > AnnotationLimit || len(a.Title) > annotationTitleLimit {
				t.Errorf("message %d bytes, title %d bytes", len(a.Message), len(a.Title))
			}
		}
	}
}

// TestUncheckedAnnotations: an expectation no run checked is a warning on its line, or an
// error when fail-on has unchecked;
func TestUncheckedAnnotations(t *testing.T) {
	r := &tally.Results{Scenario: "s", Expectations: []tally.Expectation{
		{Line: 7, Fault: "empty", Outcome: "passed", Status: tally.Held, Held: true},
		{Line: 9, Client: "go-sdk/call", Outcome: "threw", Status: tally.Unchecked, Unchecked: "it selects no cell of this sweep"},
	}}
	for _, failOn := range []report.FailOn{report.FailOnExpect, report.FailOnNever, report.FailOnChange, report.FailOnUnchecked} {
		list := Annotations(AnnotationInput{Results: r, File: "m.yaml", FailOn: failOn}, DefaultBudget)
		want := "warning"
		if failOn == report.FailOnUnchecked {
			want = "error"
		}
		if len(list) != 1 || list[0].Level != want || list[0].Line != 9 || list[0].Title != "expectation not checked: want threw" ||
			!strings.HasSuffix(list[0].Message, "not checked, so neither held nor unmet: it selects no cell of this sweep") {
			t.Errorf("fail-on %s: %+v, want one %s on line 9", failOn, list, want)
		}
	}
}

func TestCut(t *testing.T) {
	if s, cut := Cut("short\n", 100, "NOTE\n"); s != "short\n" || cut {
		t.Errorf("Cut kept %q, %v", s, cut)
	}
	md := strings.Repeat("| a | b |\n", 100)
	s, cut := Cut(md, 105, "NOTE\n")
	if !cut || s != strings.Repeat("| a | b |\n", 9)+"NOTE\n" || len(s) > 105 {
		t.Errorf("Cut = %q (%d bytes), %v", s, len(s), cut)
	}
	// One long line is cut at a character boundary.
	s, _ = Cut(strings.Repeat("日", 100), 50, "N")
	if !utf8.ValidString(s) || len(s) > 50 || !strings.HasSuffix(s, "\nN") {
		t.Errorf("Cut = %q (%d bytes)", s, len(s))
	}
}

// TestSummaryHostileHuge: a matrix big enough to pass GitHub's 1 MiB, full of hostile text,
// is cut under the limit at a line, and the comment under its own.
func TestSummaryHostileHuge(t *testing.T) {
	r := &tally.Results{Scenario: "huge"}
	for i := range 4000 {
		s := hostile[i%len(hostile)]
		name := s[:min(len(s), 2*report.MaxEscaped)] // names come from the manifest; the rest from servers
		c := mkCell(fmt.Sprintf("%s %d", name, i%20), fmt.Sprintf("%s %d", name, i/20), "hidden", 2, "passed:1", name+":1")
		c.Examples = map[string]tally.Example{name: {Run: 2, Evidence: s}}
		r.Cells = append(r.Cells, c)
		r.Unavailable = append(r.Unavailable, tally.Unavailable{Client: s, Reason: s})
	}
	cmp := &report.Comparison{Baseline: "b.json"}
	for _, s := range hostile {
		cmp.Changes = append(cmp.Changes, tally.Change{Cell: record.Cell{Client: s, Fault: s, Schema: s, Transport: s}, Kind: "changed", Before: s, After: s})
	}
	var b bytes.Buffer
	if err := report.Summary(&b, r, cmp); err != nil {
		t.Fatal(err)
	}
	full := b.String()
	if len(full) <= SummaryLimit {
		t.Fatalf("the test summary is only %d bytes", len(full))
	}
	note := "\n> The summary is cut here; the whole report is in job-summary.md.\n"
	s, cut := Cut(full, SummaryLimit, note)
	if !cut || len(s) > SummaryLimit || !strings.HasSuffix(s, note) || !strings.HasPrefix(full, strings.TrimSuffix(s, note)) {
		t.Errorf("cut summary: %d bytes, cut %v", len(s), cut)
	}
	for _, line := range strings.Split(strings.TrimSuffix(s, note), "\n") {
		for _, bad := range []string{"<script", "<img", "<!--", "\x1b", "@someone", "https://evil", "\u202e"} {
			if strings.Contains(line, bad) {
				t.Fatalf("the summary contains %q: %.200q", bad, line)
			}
		}
	}
	// The changes table keeps its columns.
	i := strings.Index(full, "## Changes against the baseline")
	for _, line := range strings.Split(full[i:], "\n") {
		if strings.HasPrefix(line, "|") {
			if n := len(unescapedPipe.FindAllString(line, -1)); n != 6 {
				t.Errorf("changes row has %d separators, want 6: %.200q", n, line)
			}
		}
	}

	body := CommentBody("<!-- toolscore:huge -->", report.Verdict(r, cmp), full, "https://github.example/o/r/actions/runs/1")
	if n := utf8.RuneCountInString(body); n > CommentLimit {
		t.Errorf("comment is %d characters, over %d", n, CommentLimit)
	}
	if !strings.HasPrefix(body, "<!-- toolscore:huge -->\n**toolscore:** ") || !strings.HasSuffix(body, "The whole of it is in the [job summary](https://github.example/o/r/actions/runs/1).\n") {
		t.Errorf("comment: %.200q ... %.200q", body, body[len(body)-200:])
	}
	if short := CommentBody("<!-- m -->", "v", "# x\n", ""); short != "<!-- m -->\n**toolscore:** v\n\n# x\n" {
		t.Errorf("short comment = %q", short)
	}
}
