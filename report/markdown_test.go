package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolscore/toolscore/internal/reporttest"
	"github.com/toolscore/toolscore/tally"
)

func TestMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, sample()); err != nil {
		t.Fatal(err)
	}
	golden(t, "sample.md", b.Bytes())
}

// hostile holds strings a server under test or a client library might send (reporttest.Hostile).
var hostile = reporttest.Hostile

func TestEscapeMarkdown(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"passed 3/3", "passed 3/3"},
		{"a|b", `a\|b`},
		{"`code`", "\\`code\\`"},
		{"<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"},
		{"a & b", "a &amp; b"},
		{"&amp;", "&amp;amp;"},
		{"@someone", "@\u200dsomeone"},
		{"root@evil.example", "root@\u200devil.example"},
		{"go-sdk/call@1.8.0", "go-sdk/call@\u200d1.8.0"},
		{"one\ntwo\r\nthree", "one two three"},
		{"a\n\n\nb", "a b"},
		{"tab\there", "tab here"},
		{"**b** _i_ ~~s~~", `\*\*b\*\* \_i\_ \~\~s\~\~`},
		{"[x](y)", `\[x\](y)`},
		{"https://evil.example", "https:\u200d//evil.example"},
		{"www.evil.example", "www\u200d.evil.example"},
		{"WwW.evil", "WwW\u200d.evil"},
		{"fixes #12", "fixes #\u200d12"},
		{"#tag", "#tag"},
		{`a\|b`, `a\\\|b`},
		{`end\`, `end\\`},
		{"$x$", `\$x\$`},
		{"\x1b[31mred", "\uFFFD\\[31mred"},
		{"\u202eevil", "\uFFFDevil"},
		{"\xff", "\uFFFD"},
		{"ÄÖ 日本", "ÄÖ 日本"},
		{"ratio: 3/3", "ratio: 3/3"},
		{strings.Repeat("a", MaxEscaped), strings.Repeat("a", MaxEscaped)},
		{strings.Repeat("a", MaxEscaped+1), strings.Repeat("a", MaxEscaped) + "…"},
		{strings.Repeat("a", 1<<20), strings.Repeat("a", MaxEscaped) + "…"},
		{strings.Repeat("a", MaxEscaped-1) + "日本", strings.Repeat("a", MaxEscaped-1) + "日…"},
		{strings.Repeat("|", 1<<20), strings.Repeat(`\|`, MaxEscaped) + "…"},
	} {
		if got := EscapeMarkdown(tc.in); got != tc.want {
			t.Errorf("EscapeMarkdown(%.40q) = %.80q, want %.80q", tc.in, got, tc.want)
		}
	}
}

// unescapedPipe matches a | that is not backslash-escaped, one that would end a table cell.
var unescapedPipe = regexp.MustCompile(`(^|[^\\])(\\\\)*\|`)

// TestEscapeMarkdownHostile checks what must hold for every hostile string, whatever the
// exact output: one line, no cell break, no HTML, no mention, no link, a bounded size.
func TestEscapeMarkdownHostile(t *testing.T) {
	for _, s := range hostile {
		got := EscapeMarkdown(s)
		checkSafe(t, s, got)
		if n := utf8.RuneCountInString(got); n > 6*MaxEscaped {
			t.Errorf("EscapeMarkdown(%.40q) is %d characters long", s, n)
		}
	}
}

func checkSafe(t *testing.T, in, got string) {
	t.Helper()
	for _, bad := range []struct{ re, what string }{
		{`[\n\r\x00-\x08\x0b-\x1f\x7f]`, "a line break or control character"},
		{`<`, "a raw <"},
		{`>`, "a raw >"},
		{"(^|[^\\\\])(\\\\\\\\)*[`*_~\\[\\]$]", "an unescaped Markdown character"},
		{"@[^\u200d]", "an @ that could mention someone"},
		{"#[0-9]", "a #number that could reference an issue"},
		{"(?i)https?://|www\\.", "a bare link"},
		{"[\u202a-\u202e\u2066-\u2069]", "a bidirectional override"},
	} {
		if regexp.MustCompile(bad.re).MatchString(got) {
			t.Errorf("EscapeMarkdown(%.40q) = %.80q has %s", in, got, bad.what)
		}
	}
	if strings.Contains(strings.NewReplacer("&amp;", "", "&lt;", "", "&gt;", "").Replace(got), "&") {
		t.Errorf("EscapeMarkdown(%.40q) = %.80q has an unescaped &", in, got)
	}
	if unescapedPipe.MatchString(got) {
		t.Errorf("EscapeMarkdown(%.40q) = %.80q has an unescaped |", in, got)
	}
	if !utf8.ValidString(got) {
		t.Errorf("EscapeMarkdown(%.40q) is not valid UTF-8", in)
	}
}

// TestMarkdownHostile puts hostile strings everywhere a report shows outside text and checks
// that every table keeps its columns and nothing but our own Markdown comes through.
func TestMarkdownHostile(t *testing.T) {
	r := &tally.Results{Scenario: hostile[0] + hostile[4], Backend: "docker", BackendWhy: hostile[2], Toolscore: hostile[1]}
	for i, s := range hostile {
		c := mkCell(s, hostile[(i+3)%len(hostile)], "hidden", 2, "passed:1", s+":1")
		c.Examples = map[string]tally.Example{s: {Run: 1, Evidence: s, Tee: s}}
		if i%5 == 0 { // an agent's cell: the model's view table shows it too
			c.ModelView, c.Answer = map[string]int{s: 1, "text": 1}, map[string]int{s: 1}
		}
		r.Cells = append(r.Cells, c)
		r.Unavailable = append(r.Unavailable, tally.Unavailable{Client: s, Reason: s})
	}
	r.Expectations = []tally.Expectation{{Line: 3, Outcome: "passed", Misses: hostile}}
	var b bytes.Buffer
	if err := Markdown(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if len(out) > 1<<20 {
		t.Fatalf("the summary is %d bytes, over GitHub's 1 MiB", len(out))
	}
	lines := strings.Split(out, "\n")
	var cols int
	for _, line := range lines {
		if !strings.HasPrefix(line, "|") {
			cols = 0
			continue
		}
		n := len(unescapedPipe.FindAllString(line, -1))
		if cols == 0 {
			cols = n
		} else if n != cols {
			t.Errorf("table row has %d cell separators, the header %d: %.200q", n, cols, line)
		}
	}
	for _, bad := range []string{"<script", "<img", "<!--", "<details", "\x1b", "@someone", "https://evil", "\u202e"} {
		if strings.Contains(out, bad) {
			t.Errorf("the summary contains %q", bad)
		}
	}
	golden(t, "hostile.md", b.Bytes())
}
