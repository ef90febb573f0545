package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/toolscore/toolscore/internal/action"
	"github.com/toolscore/toolscore/internal/hostile"
	"github.com/toolscore/toolscore/internal/prcomment"
	"github.com/toolscore/toolscore/internal/prcomment/fakegithub"
	"github.com/toolscore/toolscore/internal/reporttest"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/tally"
)

// hostileName and hostileVersion are what a pull request can put in a manifest: they reach
// every report as the scenario's name and as an unavailable client (no such version builds),
// and the diffs as a client's column (the baseline holds a cell of it).
const (
	hostileName    = "::error::name\n::error::line ##[warning]name <script>alert(1)</script> | x \u202eevil \x1b[31mred"
	hostileVersion = "::error::v ##[warning]v <img src=x onerror=alert(1)> | x \u2066iso\u2069"
	hostileClient  = "go-sdk/call@" + hostileVersion
)

// hostileReportManifest sweeps one tool of the hostile server with the cheap built-in clients,
// and asks for go-sdk/call at the hostile version too, which cannot be built; the expectation
// (an agent's outcome, which no SDK client has) fails in every cell, so every report shows
// every cell's evidence.
func hostileReportManifest(tool string) string {
	name, _ := json.Marshal(hostileName) // a JSON string is a YAML double-quoted scalar
	version, _ := json.Marshal(hostileVersion)
	return fmt.Sprintf(`name: %s
server:
  builtin: hostile
tool: %s
faults: [clean]
schema_modes: [hidden]
clients:
  - raw
  - go-sdk/call
  - mcp-go/call
  - {name: go-sdk/call, version: %s}
runs: 1
timeout: 20s
expect:
  - {fault: clean, outcome: rejected}
`, name, tool, version)
}

// TestHostileReports runs real sweeps of the hostile server (its markup, garbage and rpc-error
// tools, whose text reaches the transcripts, the runs and the exception texts) and every
// renderer over what they wrote: the terminal table, summary.md, results.json, toolscore
// report in each format, baseline, merge, diff in each format, and the action with its job
// summary, annotations, outputs and pull-request comment. Terminal and log output carries no
// control character and starts no workflow command; Markdown renders (with GitHub's own
// cmark-gfm) to no element but ours; JSON is valid and gives the hostile text back exactly.
func TestHostileReports(t *testing.T) {
	for _, tool := range []string{"markup", "garbage", "rpc-error"} {
		t.Run(tool, func(t *testing.T) {
			ws := t.TempDir()
			writeFile(t, filepath.Join(ws, "hostile.yaml"), hostileReportManifest(tool))
			stdout, stderr, code := toolscore(t, ws, "run", "hostile.yaml", "--backend", "local", "--out", "out")
			if code != 1 {
				t.Fatalf("toolscore run: exit %d, want 1 (an unmet expectation); stderr:\n%s", code, stderr)
			}
			checkLog(t, "toolscore run's stdout", stdout)
			checkLog(t, "toolscore run's stderr", stderr)
			out := filepath.Join(ws, "out")
			res := checkResults(t, "results.json", readFile(t, filepath.Join(out, "results.json")), tool)
			checkMarkdown(t, "summary.md", readFile(t, filepath.Join(out, "summary.md")), "", "")
			checkRuns(t, readFile(t, filepath.Join(out, "runs.jsonl")), tool)
			checkHTML(t, "report.html", readFile(t, filepath.Join(out, "report.html")), tool)
			checkTestReports(t, out, 3)
			checkLog(t, "junit.xml", readFile(t, filepath.Join(out, "junit.xml")))
			checkLog(t, "ctrf.json", readFile(t, filepath.Join(out, "ctrf.json")))

			// toolscore report, in each format.
			for _, format := range []string{"text", "md", "json", "html", "junit", "ctrf", "compat", "compat-html"} {
				stdout, stderr, code := toolscore(t, ws, "report", "out", "--format", format)
				if code != 0 {
					t.Fatalf("toolscore report --format %s: exit %d: %s", format, code, stderr)
				}
				what := "toolscore report --format " + format
				switch format {
				case "text":
					checkLog(t, what, stdout)
				case "md":
					checkMarkdown(t, what, stdout, "", "")
				case "compat":
					checkMarkdown(t, what, stdout, "", anchorLinks)
				case "html":
					checkHTML(t, what, stdout, tool)
				case "compat-html":
					checkCompatHTML(t, what, stdout, tool)
				case "junit", "ctrf":
					checkLog(t, what, stdout)
				case "json":
					if again := checkResults(t, what, stdout, tool); !reflect.DeepEqual(again, res) {
						t.Errorf("%s does not give back results.json", what)
					}
				}
			}

			// toolscore baseline, and merge of the one output.
			_, stderr, code = toolscore(t, ws, "baseline", "out", "--out", "baseline.json")
			if code != 0 {
				t.Fatalf("toolscore baseline: exit %d: %s", code, stderr)
			}
			checkLog(t, "toolscore baseline's stderr", stderr)
			var b tally.Baseline
			if err := json.Unmarshal([]byte(readFile(t, filepath.Join(ws, "baseline.json"))), &b); err != nil || b.Scenario != hostileName {
				t.Errorf("baseline.json: %v, scenario %q", err, b.Scenario)
			}
			stdout, stderr, code = toolscore(t, ws, "merge", "--out", "merged", "out")
			if code != 1 {
				t.Fatalf("toolscore merge: exit %d, want 1: %s", code, stderr)
			}
			checkLog(t, "toolscore merge's stdout", stdout)
			checkLog(t, "toolscore merge's stderr", stderr)
			checkResults(t, "the merged results.json", readFile(t, filepath.Join(ws, "merged", "results.json")), tool)
			checkMarkdown(t, "the merged summary.md", readFile(t, filepath.Join(ws, "merged", "summary.md")), "", "")
			checkHTML(t, "the merged report.html", readFile(t, filepath.Join(ws, "merged", "report.html")), tool)
			checkTestReports(t, filepath.Join(ws, "merged"), 3)

			// toolscore diff against a baseline in which every cell differs (base), and one that
			// also holds a cell of the hostile client, gone from this sweep (base-gone).
			base := *res
			base.Cells = nil
			for _, c := range res.Cells {
				cc := *c
				cc.Outcome = map[string]int{"hung": c.Runs}
				base.Cells = append(base.Cells, &cc)
			}
			writeSweep(t, ws, "base", &base, "")
			withGone := base
			gone := *res.Cells[1]
			gone.Client = hostileClient
			withGone.Cells = append(append([]*tally.Cell(nil), base.Cells...), &gone)
			withGone.Unavailable = nil
			writeSweep(t, ws, "base-gone", &withGone, "")
			for _, format := range []string{"text", "md", "json"} {
				stdout, stderr, code := toolscore(t, ws, "diff", "base-gone", "out", "--format", format)
				if code != 1 {
					t.Fatalf("toolscore diff --format %s: exit %d, want 1: %s", format, code, stderr)
				}
				what := "toolscore diff --format " + format
				switch format {
				case "text":
					checkLog(t, what, stdout)
				case "md":
					checkMarkdown(t, what, stdout, "", "")
				case "json":
					var d report.Diff
					checkJSON(t, what, stdout, &d)
					if n := len(d.Changes); n != 4 || d.Changes[n-1].Client != hostileClient || d.Changes[n-1].Kind != "gone" {
						t.Errorf("%s: changes %+v, want the 3 cells and %s gone", what, d.Changes, hostileClient)
					}
				}
			}

			// The action: the same sweep, compared with that baseline, on a pull request.
			api := fakegithub.New("octo-org", "octo-repo")
			defer api.Close()
			api.Token = actionToken
			a := newActionRun(t, ws, api, "pull_request.json")
			a.inputs = map[string]string{"scenario": "hostile.yaml", "backend": "local", "out": "action", "baseline": "base/results.json",
				"fail-on": "change", "github-token": actionToken}
			stdout, summary, outputs, code := a.run()
			if code != 1 {
				t.Fatalf("toolscore action: exit %d, want 1", code)
			}
			checkWorkflowLog(t, stdout, a.stderr)
			checkMarkdown(t, "the job summary", summary, "", "")
			checkMarkdown(t, action.JobSummaryFile, readFile(t, filepath.Join(ws, "action", action.JobSummaryFile)), "", "")
			if page := checkHTML(t, "the action's report.html", readFile(t, filepath.Join(ws, "action", "report.html")), tool); !strings.Contains(page, "Compared with base/results.json") {
				t.Errorf("the action's report.html does not list the changes against the baseline")
			}
			checkTestReports(t, filepath.Join(ws, "action"), 3)
			comments := api.Comments(42)
			if len(comments) != 1 {
				t.Fatalf("%d comments, want 1", len(comments))
			}
			checkMarkdown(t, "the pull-request comment", comments[0].Body, prcomment.Marker(hostileName), "https://github.com/octo-org/octo-repo/actions/runs/8675309")
			for k, v := range outputs {
				if !regexp.MustCompile(`^[a-z0-9-]+$`).MatchString(k) || strings.ContainsAny(v, "\r\n") || !utf8.ValidString(v) {
					t.Errorf("output %q = %q", k, v)
				}
			}
			if outputs["changed"] != "3" || outputs["unmet"] != "1" {
				t.Errorf("outputs changed %q, unmet %q; want 3 and 1", outputs["changed"], outputs["unmet"])
			}
		})
	}
}

// checkHTML checks a report.html of a hostile sweep: nothing from outside became markup (see
// reporttest.CheckHTML), the scenario's name shows as text, and every cell's evidence shows
// the hostile server's text as text where the tool put it in the client's hands. It returns
// the page's text.
func checkHTML(t *testing.T, what, page, tool string) string {
	t.Helper()
	return checkShown(t, what, reporttest.CheckHTML(t, what, []byte(page)), tool)
}

// checkCompatHTML is checkHTML for the compatibility page: no script of its own either.
func checkCompatHTML(t *testing.T, what, page, tool string) string {
	t.Helper()
	return checkShown(t, what, reporttest.CheckCompatHTML(t, what, []byte(page)), tool)
}

// checkShown: the page shows the scenario's name and (for the rpc-error tool) the server's
// error text as text.
func checkShown(t *testing.T, what string, doc *html.Node, tool string) string {
	t.Helper()
	shown := reporttest.TextOf(doc)
	visible := func(s string) string {
		s = strings.ReplaceAll(s, "\r", "")
		return strings.Map(func(r rune) rune {
			if reporttest.IsControl(r) && r != '\n' {
				return '\uFFFD'
			}
			return r
		}, s)
	}
	if name := strings.Join(strings.Fields(visible(hostileName)), " "); !strings.Contains(strings.Join(strings.Fields(shown), " "), name) {
		t.Errorf("%s does not show the scenario's name as text", what)
	}
	if tool == "rpc-error" && !strings.Contains(shown, visible(hostile.Text)) {
		t.Errorf("%s does not show the server's error text as text", what)
	}
	return shown
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// acted says whether a terminal or a log viewer would act on r rather than show it: a control
// character (ANSI escapes start with ESC), or a bidirectional embedding, override or isolate.
func acted(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// checkLog checks text bound for a terminal or a CI log: valid UTF-8, no character a terminal
// acts on, and no workflow command: GitHub's runner reads "::" at the start of a line (after
// any whitespace) and the legacy "##[" anywhere in it.
func checkLog(t *testing.T, what, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Errorf("%s is not valid UTF-8", what)
	}
	for i, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		if j := strings.IndexFunc(line, acted); j >= 0 {
			r, _ := utf8.DecodeRuneInString(line[j:])
			t.Errorf("%s, line %d: %U passed through: %.300q", what, i+1, r, line)
		}
		if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") {
			t.Errorf("%s, line %d starts a workflow command: %.300q", what, i+1, line)
		}
		if strings.Contains(line, "##[") {
			t.Errorf("%s, line %d holds a legacy workflow command: %.300q", what, i+1, line)
		}
	}
}

// ourCommand is a workflow command toolscore issues, whole on its line.
var ourCommand = regexp.MustCompile(`^::(add-mask|group|endgroup|stop-commands|toolscore-[0-9a-f]{32}|error|warning|notice)( [a-z]+=[^:,\r\n]*(,[a-z]+=[^:,\r\n]*)*)?::[^\r\n]*$`)

// checkWorkflowLog checks the action's log: on stdout, no line but toolscore's own commands
// starts a command, and inside the stop-commands group none at all; stderr starts none. Each
// command's data, unescaped as the runner does, holds no line that starts another.
func checkWorkflowLog(t *testing.T, stdout, stderr string) {
	t.Helper()
	checkLog(t, "the action's stderr", stderr)
	stopped := ""
	for i, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		if j := strings.IndexFunc(line, acted); j >= 0 || !utf8.ValidString(line) {
			t.Errorf("the action's stdout, line %d: a control character or bad UTF-8: %.300q", i+1, line)
		}
		if strings.Contains(line, "##[") {
			t.Errorf("the action's stdout, line %d holds a legacy workflow command: %.300q", i+1, line)
		}
		if !strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") {
			continue
		}
		switch {
		case stopped != "" && line == "::"+stopped+"::":
			stopped = ""
		case stopped != "":
			t.Errorf("the action's stdout, line %d starts a command inside the stop-commands group: %.300q", i+1, line)
		case strings.HasPrefix(line, "::stop-commands::"):
			stopped = strings.TrimPrefix(line, "::stop-commands::")
		case !ourCommand.MatchString(line):
			t.Errorf("the action's stdout, line %d is a workflow command not of ours: %.300q", i+1, line)
		default:
			_, data, _ := strings.Cut(line[2:], "::")
			data = strings.NewReplacer("%0D", "\r", "%0A", "\n", "%25", "%").Replace(data)
			for _, l := range strings.FieldsFunc(data, func(r rune) bool { return r == '\n' || r == '\r' }) {
				if strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "::") {
					t.Errorf("the action's stdout, line %d: its data smuggles a command: %.300q", i+1, line)
				}
			}
		}
	}
	if stopped != "" {
		t.Errorf("the action's stdout never resumed the commands it stopped")
	}
}

// unescapedPipe matches a | that ends a table cell: one not escaped by a backslash.
var unescapedPipe = regexp.MustCompile(`(^|[^\\])(\\\\)*\|`)

// htmlTag matches what an HTML renderer acts on: a tag, a comment, a declaration.
var htmlTag = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9-]*)([^>]*)>|<!--.*?-->|<[!?]`)

// ourElements are the elements toolscore's Markdown makes.
var ourElements = map[string]bool{
	"h1": true, "h2": true, "h3": true, "p": true, "strong": true, "ul": true, "li": true, "blockquote": true, "code": true,
	"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "details": true, "summary": true,
	"ol": true, "em": true,
}

// anchorLinks, as checkMarkdown's link, allows the compatibility page's own anchors and links
// to them: <a id="slug"> (as docs/ has them, TestDocLinksResolve) and <a href="#slug">, a slug
// being lower-case letters, digits and hyphens only.
const anchorLinks = "#anchors"

var anchorAttr = regexp.MustCompile(`^(id="|href="#)[a-z0-9-]+"$`)

// checkMarkdown checks Markdown bound for GitHub (and, printed, for a log): every table keeps
// its columns and its rows, and rendered as GitHub renders it, it holds no element, attribute
// or comment but toolscore's own: marker is the one comment allowed, link the one link.
func checkMarkdown(t *testing.T, what, md, marker, link string) {
	t.Helper()
	checkLog(t, what, md)
	lines := strings.Split(md, "\n")
	cols, rows := 0, 0
	for i, line := range lines {
		if !strings.HasPrefix(line, "|") {
			if cols > 0 && line != "" {
				t.Errorf("%s, line %d: a table goes on without a row: %.300q", what, i+1, line)
			}
			cols = 0
			continue
		}
		n := len(unescapedPipe.FindAllString(line, -1))
		switch {
		case cols == 0:
			cols = n
		case n != cols:
			t.Errorf("%s, line %d: a table row has %d cell separators, its header %d: %.300q", what, i+1, n, cols, line)
		}
		if !regexp.MustCompile(`^\|(-+\|)+$`).MatchString(line) {
			rows++
		}
	}

	html := reporttest.RenderMarkdown(t, md)
	if html == "" {
		return
	}
	if got := strings.Count(html, "<tr>"); got != rows {
		t.Errorf("%s renders %d table rows, its source has %d", what, got, rows)
	}
	for _, m := range htmlTag.FindAllStringSubmatch(html, -1) {
		tag, closing, name, attrs := m[0], m[1] == "/", strings.ToLower(m[2]), strings.TrimSpace(m[3])
		switch {
		case closing && attrs == "" && (ourElements[name] || name == "a" && link != ""):
		case strings.HasPrefix(tag, "<!--"):
			if marker == "" || tag != marker {
				t.Errorf("%s renders a comment: %.300q", what, tag)
			}
		case name == "":
			t.Errorf("%s renders a declaration: %.300q", what, tag)
		case name == "a" && link == anchorLinks:
			if !anchorAttr.MatchString(attrs) {
				t.Errorf("%s renders a link: %.300q", what, tag)
			}
		case name == "a":
			if link == "" || attrs != `href="`+link+`"` {
				t.Errorf("%s renders a link: %.300q", what, tag)
			}
		case !ourElements[name]:
			t.Errorf("%s renders an element of its own: %.300q", what, tag)
		case attrs != "" && !((name == "th" || name == "td") && regexp.MustCompile(`^align="(left|center|right)"$`).MatchString(attrs)) &&
			!(name == "ol" && link == anchorLinks && regexp.MustCompile(`^start="[0-9]+"$`).MatchString(attrs)):
			t.Errorf("%s renders an attribute: %.300q", what, tag)
		}
	}
}

// checkJSON checks JSON output: valid, printable in a log, and decoded into v.
func checkJSON(t *testing.T, what, s string, v any) {
	t.Helper()
	if !json.Valid([]byte(s)) {
		t.Fatalf("%s is not valid JSON: %.300q", what, s)
	}
	checkLog(t, what, s)
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// checkResults checks a results.json of a hostile sweep: the manifest's text comes back
// exactly, and so does the hostile text where a client passed it on as an exception.
func checkResults(t *testing.T, what, s, tool string) *tally.Results {
	t.Helper()
	var res tally.Results
	checkJSON(t, what, s, &res)
	if res.Scenario != hostileName {
		t.Errorf("%s: scenario %q, want %q", what, res.Scenario, hostileName)
	}
	if len(res.Cells) != 3 {
		t.Fatalf("%s: %d cells, want 3", what, len(res.Cells))
	}
	if u := res.Unavailable; len(u) != 1 || u[0].Client != hostileClient || !strings.Contains(u[0].Reason, hostileVersion) {
		t.Errorf("%s: unavailable %q, want %s with its version in the reason", what, u, hostileClient)
	}
	if tool == "rpc-error" {
		for _, c := range res.Cells {
			if ev := c.Examples["rpc-error"].Evidence; !strings.Contains(ev, hostile.Text) {
				t.Errorf("%s: the evidence of %s is not the server's error message: %.300q", what, c.Client, ev)
			}
		}
	}
	return &res
}

// checkRuns checks runs.jsonl: one valid record a line, which gives the hostile text back
// exactly where the client returned it or threw it.
func checkRuns(t *testing.T, s, tool string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("runs.jsonl has %d lines, want 3", len(lines))
	}
	for i, line := range lines {
		var rec struct {
			Client      string `json:"client"`
			Evidence    string `json:"evidence"`
			Observation struct {
				Returned struct {
					Content []struct{ Text string } `json:"content"`
				} `json:"returned"`
			} `json:"observation"`
		}
		if !json.Valid([]byte(line)) {
			t.Fatalf("runs.jsonl line %d is not valid JSON: %.300q", i+1, line)
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("runs.jsonl line %d: %v", i+1, err)
		}
		switch tool {
		case "markup":
			if got := rec.Observation.Returned.Content; len(got) != 1 || got[0].Text != hostile.Text {
				t.Errorf("runs.jsonl line %d (%s): the returned text is not the server's: %.300q", i+1, rec.Client, got)
			}
		case "rpc-error":
			if !strings.Contains(rec.Evidence, hostile.Text) {
				t.Errorf("runs.jsonl line %d (%s): the evidence is not the server's error message: %.300q", i+1, rec.Client, rec.Evidence)
			}
		}
	}
}
