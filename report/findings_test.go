package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/tally"
)

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

func TestManifestLines(t *testing.T) {
	sc := loadManifest(t)
	if got := []int{clientLine(sc, "raw"), clientLine(sc, "go-sdk/call"), clientLine(sc, "ts-sdk/call@1.20.0"), clientLine(sc, "ts-sdk/call@9"), clientLine(sc, "nope")}; fmt.Sprint(got) != "[8 9 10 10 0]" {
		t.Errorf("client lines = %v, want [8 9 10 10 0]", got)
	}
	if got := []int{faultLine(sc, "clean"), faultLine(sc, "type-swap"), faultLine(sc, "nope")}; fmt.Sprint(got) != "[12 14 0]" {
		t.Errorf("fault lines = %v", got)
	}
	if sc.Expect[0].Line != 17 || sc.Expect[1].Line != 18 {
		t.Errorf("expect lines = %d, %d, want 17, 18", sc.Expect[0].Line, sc.Expect[1].Line)
	}
}

// TestFindingChanges: a changed cell is found on its client's line, else its fault's, else on
// none.
func TestFindingChanges(t *testing.T) {
	sc := loadManifest(t)
	r := &tally.Results{Scenario: "s"}
	cmp := &Comparison{Changes: []tally.Change{
		{Cell: record.Cell{Client: "raw", Fault: "clean", Schema: "hidden"}, Kind: "new", After: "passed 1/1"},
		{Cell: record.Cell{Client: "old-client", Fault: "rpc-error", Schema: "hidden"}, Kind: "gone", Before: "rpc-error 3/3"},
		{Cell: record.Cell{Client: "old-client", Fault: "old-fault", Schema: "hidden"}, Kind: "gone", Before: "passed 3/3"},
	}}
	list := Findings(r, sc, cmp, FailOnChange)
	want := []Finding{
		{Level: "error", Kind: "changed cell", Line: 8, Title: "new against the baseline: raw × clean × hidden", Message: "raw × clean × hidden is not in the baseline; now: passed 1/1"},
		{Level: "error", Kind: "changed cell", Line: 13, Title: "gone against the baseline: old-client × rpc-error × hidden", Message: "old-client × rpc-error × hidden is in the baseline (rpc-error 3/3) but did not run now"},
		{Level: "error", Kind: "changed cell", Line: 0, Title: "gone against the baseline: old-client × old-fault × hidden", Message: "old-client × old-fault × hidden is in the baseline (passed 3/3) but did not run now"},
	}
	if fmt.Sprint(list) != fmt.Sprint(want) {
		t.Errorf("got\n%+v\nwant\n%+v", list, want)
	}
}

func TestParseFailOn(t *testing.T) {
	for in, want := range map[string]FailOn{"": FailOnExpect, "expect": FailOnExpect, " Change ": FailOnChange, "never": FailOnNever,
		"unchecked": FailOnUnchecked, "expect,unchecked": FailOnUnchecked, "unchecked, change": "change,unchecked", "change,expect": FailOnChange} {
		if got, err := ParseFailOn(in); err != nil || got != want {
			t.Errorf("ParseFailOn(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]string{"always": "want expect, change, unchecked or never (change,unchecked for both)", "never,unchecked": "never fails on nothing"} {
		if _, err := ParseFailOn(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseFailOn(%q): %v, want %q", in, err, want)
		}
	}
	for f, want := range map[FailOn][3]bool{FailOnNever: {}, FailOnExpect: {true}, FailOnChange: {true, true}, FailOnUnchecked: {true, false, true}, "change,unchecked": {true, true, true}} {
		if got := [3]bool{f.Unmet(), f.Change(), f.Unchecked()}; got != want {
			t.Errorf("%s: unmet, change, unchecked fail = %v, want %v", f, got, want)
		}
	}
}

// TestUncheckedFindings: an expectation no run checked is a warning on its line, or an error
// when fail-on has unchecked; the verdict counts it apart from the held ones.
func TestUncheckedFindings(t *testing.T) {
	r := &tally.Results{Scenario: "s", Expectations: []tally.Expectation{
		{Line: 7, Fault: "empty", Outcome: "passed", Status: tally.Held, Held: true},
		{Line: 9, Client: "go-sdk/call", Outcome: "threw", Status: tally.Unchecked, Unchecked: "it selects no cell of this sweep"},
	}}
	for _, failOn := range []FailOn{FailOnExpect, FailOnNever, FailOnChange, FailOnUnchecked} {
		list := Findings(r, nil, nil, failOn)
		want := "warning"
		if failOn == FailOnUnchecked {
			want = "error"
		}
		if len(list) != 1 || list[0].Level != want || list[0].Line != 9 || list[0].Title != "expectation not checked: want threw" ||
			!strings.HasSuffix(list[0].Message, "not checked, so neither held nor unmet: it selects no cell of this sweep") {
			t.Errorf("fail-on %s: %+v, want one %s on line 9", failOn, list, want)
		}
	}
	if v := Verdict(r, nil); v != "1 of 2 expectations held, 1 unchecked" {
		t.Errorf("Verdict = %q", v)
	}
	r.Expectations = r.Expectations[1:]
	if v := Verdict(r, nil); v != "The 1 expectation was not checked" {
		t.Errorf("Verdict = %q", v)
	}
	r.Expectations = append(r.Expectations, r.Expectations[0])
	if v := Verdict(r, nil); v != "None of the 2 expectations was checked" {
		t.Errorf("Verdict = %q", v)
	}
}

func TestSummary(t *testing.T) {
	r := sample()
	cmp := &Comparison{Baseline: "baselines/ledger.json", Changes: []tally.Change{
		{Cell: record.Cell{Client: "go-sdk/call@1.8.0", Fault: "type-swap", Schema: "published", Transport: "stdio"}, Kind: "changed", Before: "passed 3/3", After: "threw 3/3"},
		{Cell: record.Cell{Client: "ts-sdk/call", Fault: "clean", Schema: "hidden", Transport: "stdio"}, Kind: "new", After: "passed 3/3"},
		{Cell: record.Cell{Client: "claude-code", Fault: "clean", Schema: "hidden", Transport: "stdio"}, Kind: "gone", Before: "passed 3/3"},
	}}
	var b bytes.Buffer
	if err := Summary(&b, r, cmp); err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	Markdown(&md, r)
	if !strings.HasPrefix(b.String(), md.String()) {
		t.Errorf("the summary does not start with the Markdown report")
	}
	want := "\n## Changes against the baseline\n\nCompared with baselines/ledger.json: 3 cells changed.\n\n" +
		"| client | fault | schema | baseline | now |\n|---|---|---|---|---|\n" +
		"| go-sdk/call@\u200d1.8.0 | type-swap | published | passed 3/3 | **threw 3/3** |\n" +
		"| ts-sdk/call | clean | hidden | not in the baseline | **passed 3/3** |\n" +
		"| claude-code | clean | hidden | passed 3/3 | **not run** |\n"
	if got := strings.TrimPrefix(b.String(), md.String()); got != want {
		t.Errorf("changes section:\n%s\nwant:\n%s", got, want)
	}

	for _, tc := range []struct {
		cmp  *Comparison
		want string
	}{
		{&Comparison{Baseline: "b.json"}, "Compared with b.json: no cell changed.\n"},
		{&Comparison{Baseline: "b.json", Missing: true}, "No baseline at b.json yet: nothing to compare."},
	} {
		b.Reset()
		Summary(&b, r, tc.cmp)
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("summary lacks %q", tc.want)
		}
	}
	b.Reset()
	Summary(&b, r, nil)
	if b.String() != md.String() {
		t.Errorf("with no baseline, the summary is not the Markdown report")
	}
}

func TestVerdict(t *testing.T) {
	r := sample()
	for _, tc := range []struct {
		cmp  *Comparison
		want string
	}{
		{nil, "1 of 3 expectations did not hold, 1 unchecked · 2 cells mixed · 1 client unavailable"},
		{&Comparison{Missing: true}, "1 of 3 expectations did not hold, 1 unchecked · 2 cells mixed · 1 client unavailable"},
		{&Comparison{}, "1 of 3 expectations did not hold, 1 unchecked · no cell changed against the baseline · 2 cells mixed · 1 client unavailable"},
		{&Comparison{Changes: make([]tally.Change, 2)}, "1 of 3 expectations did not hold, 1 unchecked · 2 cells changed against the baseline · 2 cells mixed · 1 client unavailable"},
	} {
		if got := Verdict(r, tc.cmp); got != tc.want {
			t.Errorf("Verdict = %q, want %q", got, tc.want)
		}
	}
	if got := Verdict(&tally.Results{Cells: []*tally.Cell{mkCell("a", "b", "c", 3, "passed:3")}}, nil); got != "3 runs in 1 cells" {
		t.Errorf("Verdict = %q", got)
	}
}
