package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/reporttest"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// hostileHTML is what a server or client might put in any field, to run script, inject an
// element, reorder text (bidi controls) or cut a string short (NUL).
const hostileHTML = "<script>alert(1)</script><img src=x onerror=alert(2)>\"'><b>bold</b>" +
	"</pre></section><!-- c --> \u202eevil\u202c \u2066iso\u2069 \x00nul &amp; \x1b[31m"

// hostileResults is a sweep in which every string a report shows is hostile: names,
// coordinates, outcomes, counts, evidence, expectations, the unavailable and the baseline.
func hostileResults() (*tally.Results, Evidence, *Comparison) {
	h := func(tag string) string { return tag + " " + hostileHTML }
	r := &tally.Results{Scenario: h("scenario"), Toolscore: h("version"), Backend: h("backend"), BackendWhy: h("why"), Started: t0, Finished: t0.Add(3e9)}
	ev := Evidence{}
	for i, schema := range []string{"hidden", "published"} {
		for j, proto := range []string{h("proto"), "as-is"} {
			transport := []string{h("transport"), "stdio"}[j]
			c := &tally.Cell{Cell: record.Cell{Client: h("client"), Fault: h("fault"), Schema: schema, Protocol: proto, Transport: transport},
				Runs: 2, Planned: 2, Outcome: map[string]int{"passed": 1 + i%2, h("outcome"): 1 - i%2},
				Library: h("library"), Negotiated: map[string]int{h("negotiated"): 2},
				ModelView: map[string]int{h("view"): 2}, Answer: map[string]int{h("answer"): 2},
				Examples: map[string]tally.Example{"passed": {Run: 1, Evidence: h("evidence"), Tee: h("tee")}, h("outcome"): {Run: 2, Evidence: h("evidence2")}}}
			r.Cells = append(r.Cells, c)
			raw, _ := json.Marshal(h("json"))
			run := &record.Run{Run: 1, Grade: record.Grade{Outcome: "passed", Evidence: h("evidence"), Wire: h("wire"), ModelView: h("modelview"), Answer: h("grade"), Flagged: true},
				Stderr: h("stderr"), Tee: h("tee")}
			run.Introduced = append(run.Introduced, record.Introduced{Path: h("path"), Value: h("json"), Was: h("json")})
			if err := json.Unmarshal(fmt.Appendf(nil, `{"observation":{"library":%s,"returned":%s,"raised":{"class":%s,"message":%s},"agent":{"model_view":{"excerpt":%s},"answer":%s}}}`,
				raw, raw, raw, raw, raw, raw), run); err != nil {
				panic(err)
			}
			rec := &RunEvidence{Record: run, Excerpt: h("excerpt")}
			ev[c.Key()] = map[int]*RunEvidence{1: rec}
		}
	}
	r.Expectations = []tally.Expectation{
		{Line: 7, Client: h("client"), Fault: h("fault"), Schema: h("schema"), Protocol: h("proto"), Outcome: h("want"), Status: tally.Unmet, Misses: []string{h("miss")}},
		{Line: 8, Client: h("client"), Outcome: "passed", Status: tally.Unchecked, Unchecked: h("unchecked")},
	}
	r.Unavailable = []tally.Unavailable{{Client: h("unavailable"), Reason: h("reason")}}
	cmp := &Comparison{Baseline: h("baseline"), Changes: tally.Diff(&tally.Results{}, r)}
	cmp.Changes[0].Kind, cmp.Changes[0].Before = h("kind"), h("before")
	return r, ev, cmp
}

// TestHTMLHostile: a sweep with hostile text in every field renders to our elements alone, and
// shows each field's text (control characters and bidi overrides as U+FFFD).
func TestHTMLHostile(t *testing.T) {
	r, ev, cmp := hostileResults()
	var b bytes.Buffer
	if err := HTMLPage(&b, r, ev, cmp); err != nil {
		t.Fatal(err)
	}
	doc := reporttest.CheckHTML(t, "report.html", b.Bytes())
	shown := reporttest.TextOf(doc)
	visible := strings.Map(func(r rune) rune {
		if isControl(r) {
			return '\uFFFD'
		}
		return r
	}, hostileHTML)
	for _, tag := range []string{"scenario", "version", "backend", "client", "fault", "proto", "transport", "outcome",
		"library", "negotiated", "view", "evidence", "evidence2", "tee", "json", "wire", "modelview", "grade", "stderr",
		"excerpt", "path", "want", "miss", "unchecked", "unavailable", "reason", "baseline", "kind", "before"} {
		if !strings.Contains(shown, tag+" "+visible) {
			t.Errorf("report.html does not show the %s field as text", tag)
		}
	}
	if n := strings.Count(string(b.Bytes()), `class="evidence"`); n != len(r.Cells) {
		t.Errorf("report.html has %d evidence sections, want one per cell (%d)", n, len(r.Cells))
	}
}

// TestHTMLNoEvidence: a results.json alone (toolscore report --format html of a copied file)
// still renders, each cell with results.json's evidence line and transcript path.
func TestHTMLNoEvidence(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, sample()); err != nil {
		t.Fatal(err)
	}
	doc := reporttest.CheckHTML(t, "report.html of sample", b.Bytes())
	shown := reporttest.TextOf(doc)
	for _, want := range []string{"Schema hidden", "Schema published", "passed 3/3", "manifest line"} {
		if !strings.Contains(shown, want) {
			t.Errorf("report.html of sample does not show %q", want)
		}
	}
	if strings.Contains(shown, "%") {
		t.Errorf("report.html shows a percentage; counts only")
	}
}

// TestHTMLMarks: cells that differ between schema modes, between protocols or against the
// baseline carry their mark; the others none.
func TestHTMLMarks(t *testing.T) {
	r := &tally.Results{Scenario: "marks"}
	for _, schema := range []string{"hidden", "published"} {
		for _, proto := range []string{"2025-11-25", "2026-07-28"} {
			outcome := "passed"
			if schema == "published" && proto == "2026-07-28" {
				outcome = "threw" // differs from hidden (s) and from the other protocol (p)
			}
			c := mkCell("raw", "clean", schema, 1, outcome+":1")
			c.Protocol = proto
			r.Cells = append(r.Cells, c)
			same := mkCell("raw", "corrupt", schema, 1, "passed:1")
			same.Protocol = proto
			r.Cells = append(r.Cells, same)
		}
	}
	base := &tally.Results{Scenario: "marks", Cells: []*tally.Cell{r.Cells[1]}}
	p := buildPage(r, nil, &Comparison{Baseline: "b.json", Changes: tally.Diff(base, r)})
	got := map[string]string{}
	for _, tb := range p.Tables {
		for _, row := range tb.Rows {
			got[tb.Title+" "+row.Fault] = row.Cells[0].Marks
		}
	}
	want := map[string]string{
		"Schema hidden, protocol 2025-11-25 clean":      "b",
		"Schema hidden, protocol 2025-11-25 corrupt":    "",
		"Schema hidden, protocol 2026-07-28 clean":      "sb",
		"Schema hidden, protocol 2026-07-28 corrupt":    "b",
		"Schema published, protocol 2025-11-25 clean":   "pb",
		"Schema published, protocol 2025-11-25 corrupt": "b",
		"Schema published, protocol 2026-07-28 clean":   "spb",
		"Schema published, protocol 2026-07-28 corrupt": "b",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: marks %q, want %q", k, got[k], w)
		}
	}
}

// TestReadEvidence reads the example runs' records and transcripts of an output directory,
// and not a transcript outside it.
func TestReadEvidence(t *testing.T) {
	dir := t.TempDir()
	c := mkCell("raw", "clean", "hidden", 2, "passed:1", "threw:1")
	c.Examples = map[string]tally.Example{"passed": {Run: 1}, "threw": {Run: 2}}
	r := &tally.Results{Scenario: "s", Cells: []*tally.Cell{c}}
	os.MkdirAll(filepath.Join(dir, "runs"), 0o755)
	os.WriteFile(filepath.Join(dir, "runs", "tee.jsonl"), []byte("the transcript\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "secret"), []byte("not for the page"), 0o644)
	lines := `{"client":"raw","fault":"clean","schema":"hidden","protocol":"as-is","transport":"stdio","run":1,"outcome":"passed","wire":"W","tee":"runs/tee.jsonl"}
{"client":"raw","fault":"clean","schema":"hidden","protocol":"as-is","transport":"stdio","run":3,"outcome":"passed","wire":"not an example"}
{"client":"raw","fault":"clean","schema":"hidden","protocol":"as-is","transport":"stdio","run":2,"outcome":"threw","tee":"../` + filepath.Base(dir) + `/secret"}
`
	os.WriteFile(filepath.Join(dir, record.RunsFile), []byte(lines), 0o644)
	ev, err := ReadEvidence(dir, r)
	if err != nil {
		t.Fatal(err)
	}
	if got := ev.of(c, 1); got == nil || got.Record.Wire != "W" || got.Excerpt != "the transcript\n" {
		t.Errorf("run 1: %+v, want its wire and transcript", got)
	}
	if got := ev.of(c, 2); got == nil || got.Excerpt != "" {
		t.Errorf("run 2: %+v, want the record without the file outside the directory", got)
	}
	if ev.of(c, 3) != nil {
		t.Errorf("run 3 is no example, yet kept")
	}
	// A transcript with the target call and its answer shows those two lines.
	call := `{"time":"t2","dir":"to-server","match":{"tool":"x","n":1,"fires":true},"wire":"call"}` + "\n"
	answer := `{"time":"t3","dir":"to-client","fault":"clean","wire":"` + strings.Repeat("a", 2000) + `"}` + "\n"
	os.WriteFile(filepath.Join(dir, "runs", "tee.jsonl"), []byte(`{"time":"t1","dir":"event","event":"start","detail":{"fault":"clean"}}`+"\n"+call+answer+
		`{"time":"t4","dir":"event","event":"server-exit"}`+"\n"), 0o644)
	ev, _ = ReadEvidence(dir, r)
	if got := ev.of(c, 1).Excerpt; got != call+answer[:excerptLine]+"…\n" {
		t.Errorf("the excerpt:\n%s\nwant the call and the answer, cut", got)
	}
	if ev, err := ReadEvidence(t.TempDir(), r); ev != nil || err != nil {
		t.Errorf("no runs.jsonl: %v, %v; want nothing", ev, err)
	}
}
