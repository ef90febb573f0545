package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/tally"
)

// TestCompatSample: the sample sweep as the compatibility page (golden files).
func TestCompatSample(t *testing.T) {
	var b bytes.Buffer
	if err := Compat(&b, sample()); err != nil {
		t.Fatal(err)
	}
	golden(t, "sample.compat.md", b.Bytes())
	b.Reset()
	if err := CompatHTML(&b, sample()); err != nil {
		t.Fatal(err)
	}
	golden(t, "sample.compat.html", b.Bytes())
}

// compatSweep is a hand-built sweep over two schema modes, two protocols and two transports,
// each client's outcome for type-swap changed by another coordinate: same everywhere, by
// schema mode only, by protocol only, by transport only, and by schema mode × protocol where
// the hidden schema agreed across protocols.
func compatSweep() *tally.Results {
	r := &tally.Results{Scenario: "axes"}
	for _, schema := range []string{"hidden", "published"} {
		for _, proto := range []string{"2025-11-25", "2026-07-28"} {
			for _, transport := range []string{"stdio", "http"} {
				for _, client := range []string{"same", "by-schema", "by-protocol", "by-transport", "by-both"} {
					out := "passed:3"
					switch {
					case client == "by-schema" && schema == "published",
						client == "by-protocol" && proto == "2026-07-28",
						client == "by-transport" && transport == "http",
						client == "by-both" && schema == "published" && proto == "2026-07-28":
						out = "threw:3"
					}
					c := mkCell(client, "type-swap", schema, 3, out)
					c.Protocol, c.Transport, c.Library = proto, transport, client+"-lib 1.0"
					if out == "threw:3" {
						c.Examples = map[string]tally.Example{"threw": {Run: 1, Evidence: "ValidationError: balance must be an integer"}}
					}
					r.Cells = append(r.Cells, c)
				}
			}
		}
	}
	return r
}

// TestCompatGroupsOnlyWhereItChanges: one entry where nothing changes the outcome, one per
// schema mode, protocol or transport where only that does, and schema mode × protocol (the
// hidden schema's agreeing protocols folded into one) where both do; no entry names a
// coordinate that changes nothing.
func TestCompatGroupsOnlyWhereItChanges(t *testing.T) {
	v := compatOf(compatSweep(), nil)
	if len(v.Faults) != 1 {
		t.Fatalf("want one fault, got %+v", v.Faults)
	}
	got := map[string][]string{}
	for _, e := range v.Faults[0].Entries {
		got[e.Client] = append(got[e.Client], e.Where+" = "+e.Counts)
	}
	want := map[string][]string{
		"same":         {" = passed 3/3"},
		"by-schema":    {"hidden schema = passed 3/3", "published schema = threw 3/3"},
		"by-protocol":  {"2025-11-25 = passed 3/3", "2026-07-28 = threw 3/3"},
		"by-transport": {"stdio = passed 3/3", "http = threw 3/3"},
		"by-both":      {"hidden schema = passed 3/3", "published schema, 2025-11-25 = passed 3/3", "published schema, 2026-07-28 = threw 3/3"},
	}
	for client, w := range want {
		if strings.Join(got[client], "; ") != strings.Join(w, "; ") {
			t.Errorf("%s: got %q, want %q", client, got[client], w)
		}
	}
	if s := v.Faults[0].Summary; s != "passed: 5 clients · threw: 4" {
		t.Errorf("summary %q", s)
	}

	var b bytes.Buffer
	if err := Compat(&b, compatSweep()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| same | passed 3/3 |  |  |\n",
		"| by-schema | passed 3/3 | hidden schema |  |\n|  | threw 3/3 | published schema | [1](#axes-type-swap-1) |\n",
		"| by-protocol | passed 3/3 | 2025-11-25 |  |\n|  | threw 3/3 | 2026-07-28 | [2](#axes-type-swap-2) |\n",
		// The list under the table is numbered 1, 2, ... as a renderer numbers it, so the
		// number in the table is the one shown beside the evidence.
		"\n\n1. <a id=\"axes-type-swap-1\"></a>by-schema, published schema —\n   threw: ValidationError: balance must be an integer\n2. <a id=\"axes-type-swap-2\"></a>by-protocol, 2026-07-28 —\n",
		"| by-both | passed 3/3 | hidden schema |  |\n",
		"| by-schema | by-schema-lib 1.0 |\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the page lacks %q:\n%s", want, b.String())
		}
	}
}

// TestCompatCollapsesAgreeingFault: a fault every client met alike is one line, not a table.
func TestCompatCollapsesAgreeingFault(t *testing.T) {
	r := &tally.Results{Scenario: "s"}
	for _, client := range []string{"a", "b"} {
		for _, schema := range []string{"hidden", "published"} {
			r.Cells = append(r.Cells, mkCell(client, "clean", schema, 3, "passed:3"))
		}
	}
	var b bytes.Buffer
	if err := Compat(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "### clean\n\nAll 2 clients: passed 3/3.\n") || strings.Contains(b.String(), "| a | passed") {
		t.Errorf("clean is not one line:\n%s", b.String())
	}
}

// TestCompatFaultOrder: faults come in the registry's order whatever order the sweep had.
func TestCompatFaultOrder(t *testing.T) {
	r := &tally.Results{Scenario: "s"}
	for _, f := range []string{"zz-custom", "type-swap", "clean", "corrupt"} {
		r.Cells = append(r.Cells, mkCell("raw", f, "hidden", 1, "passed:1"))
	}
	var names []string
	for _, f := range compatOf(r, nil).Faults {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, ","); got != "clean,corrupt,type-swap,zz-custom" {
		t.Errorf("fault order %s", got)
	}
}

// hostileText is what a server under test might put in an exception message, or a client
// name and library might hold: table breakers, code spans, markup, script, line breaks.
const hostileText = "bad | `code` <script>alert(1)</script>\n### heading\n- item [x](javascript:alert(2)) \u202e"

// TestCompatHostileText: the server's text is text in both renderings: the Markdown rows keep
// their four columns and one line, no tag or link of its own survives; the HTML has no
// element of its own.
func TestCompatHostileText(t *testing.T) {
	r := compatSweep()
	for _, c := range r.Cells {
		c.Library = hostileText
		for o, ex := range c.Examples {
			ex.Evidence = hostileText
			c.Examples[o] = ex
		}
	}
	r.Cells[0].Client = "evil|" + hostileText
	var md bytes.Buffer
	if err := Compat(&md, r); err != nil {
		t.Fatal(err)
	}
	unescapedPipe := regexp.MustCompile(`(^|[^\\])\|`)
	for _, l := range strings.Split(md.String(), "\n") {
		if strings.HasPrefix(l, "| ") {
			if n := len(unescapedPipe.FindAllString(l, -1)); n != 3 && n != 5 {
				t.Errorf("a row has %d column bars: %q", n, l)
			}
		}
		if strings.HasPrefix(l, "### heading") || strings.HasPrefix(strings.TrimSpace(l), "- item") {
			t.Errorf("the server's text opened a block: %q", l)
		}
	}
	for _, bad := range []string{"<script", "`code`", "\u202e"} {
		if strings.Contains(md.String(), bad) {
			t.Errorf("the Markdown holds %q:\n%s", bad, md.String())
		}
	}
	if regexp.MustCompile(`(^|[^\\])\]\(javascript`).MatchString(md.String()) {
		t.Errorf("the Markdown holds the server's link")
	}
	var h bytes.Buffer
	if err := CompatHTML(&h, r); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script", "\u202e", "href=\"javascript"} {
		if strings.Contains(h.String(), bad) {
			t.Errorf("the HTML holds %q", bad)
		}
	}
	if !strings.Contains(h.String(), "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the HTML lost the server's text instead of escaping it")
	}
}

// githubWidth is how many characters of a Markdown line GitHub shows without wrapping a
// table or scrolling: the content column is about 830 pixels, a table row's rendered text
// (links shown as their text) has to fit it.
const githubWidth = 110

// TestCompatWithinGitHubWidth: every line of the page of a real sweep, rendered as GitHub
// shows it (a link as its text), fits the width, and no source line is longer than an anchor
// more.
func TestCompatWithinGitHubWidth(t *testing.T) {
	for _, results := range []string{"../docs/ledger-results.json", "../docs/spec-2026-results.json"} {
		data, err := os.ReadFile(filepath.FromSlash(results))
		if err != nil {
			t.Fatal(err)
		}
		r := &tally.Results{}
		if err := json.Unmarshal(data, r); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := Compat(&b, r); err != nil {
			t.Fatal(err)
		}
		link := regexp.MustCompile(`\]\(#[^)]*\)|<a id="[^"]*"></a>`)
		for i, l := range strings.Split(b.String(), "\n") {
			shown := link.ReplaceAllString(l, "")
			if n := len([]rune(shown)); n > githubWidth {
				t.Errorf("%s line %d shows %d characters: %s", results, i+1, n, l)
			}
		}
	}
}

// TestCompatHTMLOneClient: the HTML page of a one-client sweep says "The 1 client", not "All 1
// clients" (issue 52, item 7), as the Markdown page does.
func TestCompatHTMLOneClient(t *testing.T) {
	r := &tally.Results{Scenario: "s", Cells: []*tally.Cell{mkCell("raw", "clean", "hidden", 3, "passed:3")}}
	var b bytes.Buffer
	if err := CompatHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "<p>The 1 client: <span") || strings.Contains(b.String(), "All 1 clients") {
		t.Errorf("the one client's verdict:\n%s", b.String())
	}
}
