package report

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/toolscore/toolscore/tally"
)

func TestText(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, sample()); err != nil {
		t.Fatal(err)
	}
	golden(t, "sample.txt", b.Bytes())
}

// TestTextWide checks that a matrix too wide for a terminal is split into several tables and
// its long cells wrapped, and that every count still shows.
func TestTextWide(t *testing.T) {
	r := &tally.Results{Scenario: "wide", Interrupted: true}
	var clients []string
	for i := range 7 {
		clients = append(clients, fmt.Sprintf("python-sdk/call-with-a-long-name@1.%d.0", i))
	}
	for _, f := range []string{"clean", "latency"} {
		for i, client := range clients {
			c := mkCell(client, f, "hidden", 5, "passed:1", "hung:1", "threw:1", "crashed:1")
			if i == 0 {
				c = mkCell(client, f, "hidden", 5)
			}
			r.Cells = append(r.Cells, c)
		}
	}
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	golden(t, "wide.txt", b.Bytes())
	for _, line := range strings.Split(out, "\n") {
		if width(line) > textWidth {
			t.Errorf("line wider than %d: %q", textWidth, line)
		}
	}
	if n := strings.Count(out, "Outcomes, schema hidden (client"); n < 2 {
		t.Errorf("want the table split into groups of clients, got %d groups:\n%s", n, out)
	}
	// Each of the 12 run cells shows each of its four counts, and the note of the run not run.
	for _, count := range []string{"passed 1/4", "hung 1/4", "threw 1/4", "crashed 1/4", "(1 of 5 not run)"} {
		if n := strings.Count(out, count); n != 12 {
			t.Errorf("%q shows %d times, want 12", count, n)
		}
	}
	if n := strings.Count(out, "  not run  "); n != 2 {
		t.Errorf("want the two cells that never ran to say so:\n%s", out)
	}
}

func TestTextHostile(t *testing.T) {
	r := &tally.Results{
		Scenario: "evil\x1b[2J\nname",
		Cells:    []*tally.Cell{mkCell("raw\u202eevil", "clean\r\n", "hidden", 1, "passed:1")},
		Unavailable: []tally.Unavailable{
			{Client: "codex", Reason: strings.Repeat("x", 1<<20)},
			{Client: "::error::name ##[warning]name", Reason: " ::notice::why"},
		},
	}
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\u202e\r") {
		t.Errorf("control characters reached the terminal: %q", out)
	}
	if !strings.HasPrefix(out, "evil\uFFFD[2J name: ") {
		t.Errorf("first line = %q", strings.SplitN(out, "\n", 2)[0])
	}
	if len(out) > 2000 {
		t.Errorf("a 1 MiB reason made %d bytes of report", len(out))
	}
	// Printed in a CI log, no line is a workflow command.
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") || strings.Contains(line, "##[") {
			t.Errorf("a workflow command: %q", line)
		}
	}
}

// TestPlain: text from outside comes out on one line that a terminal shows as it is and that
// GitHub's runner, reading a log, takes for no workflow command.
func TestPlain(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"passed 3/3", "passed 3/3"},
		{"a\nb\r\nc\td", "a b  c d"},
		{"\x1b[31mred\x00\x7f\u009b", "\uFFFD[31mred\uFFFD\uFFFD\uFFFD"},
		{"\u202eevil\u2066iso\u2069", "\uFFFDevil\uFFFDiso\uFFFD"},
		{"::error::x", ":\u200d:error:\u200d:x"},
		{"\u00a0 ::warning::y", "\u00a0 :\u200d:warning:\u200d:y"},
		{":::", ":\u200d:\u200d:"},
		{"std::runtime_error: a: b", "std:\u200d:runtime_error: a: b"},
		{"##[error]x", "##\u200d[error]x"},
		{"###[x] #[y] ##", "###\u200d[x] #[y] ##"},
		{"bad \xff", "bad \uFFFD"},
		{"ÄÖ 日本", "ÄÖ 日本"},
		// An IPv6 address in a URL stays copyable (issue 52, item 7): no line starts inside it.
		{"http://[::1]:8080/mcp", "http://[::1]:8080/mcp"},
		{"http://[fe80::1%25eth0]:80/ ::error::x", "http://[fe80::1%25eth0]:80/ :\u200d:error:\u200d:x"},
		{"[x::y] [::1 ::z", "[x:\u200d:y] [::1 :\u200d:z"},
	} {
		if got := Plain(tc.in); got != tc.want {
			t.Errorf("Plain(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		in    string
		limit int
		want  []string
	}{
		{"threw 3/3", 30, []string{"threw 3/3"}},
		{"passed 2/3, hung 1/3", 30, []string{"passed 2/3, hung 1/3"}},
		{"passed 2/3, hung 1/3", 12, []string{"passed 2/3,", "hung 1/3"}},
		{"passed 1/3, hung 1/3 (1 of 4 not run)", 24, []string{"passed 1/3, hung 1/3", "(1 of 4 not run)"}},
		{"passed 1/3 (1 of 4 not run)", 9, []string{"passed", "1/3", "(1 of 4", "not run)"}},
		{"fault-value 1/3", 5, []string{"fault-value", "1/3"}},
		{"", 10, []string{""}},
	} {
		if got := wrap(tc.in, tc.limit); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("wrap(%q, %d) = %q, want %q", tc.in, tc.limit, got, tc.want)
		}
	}
}

func TestWrapName(t *testing.T) {
	for _, tc := range []struct {
		in    string
		limit int
		want  []string
	}{
		{"raw", 10, []string{"raw"}},
		{"go-sdk/call@1.8.0", 12, []string{"go-sdk/call", "@1.8.0"}},
		{"python-sdk/call", 12, []string{"python-sdk/", "call"}},
		{"abcdefghijklmnop", 5, []string{"abcde", "fghij", "klmno", "p"}},
	} {
		got := wrapName(tc.in, tc.limit)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("wrapName(%q, %d) = %q, want %q", tc.in, tc.limit, got, tc.want)
		}
		if strings.Join(got, "") != tc.in {
			t.Errorf("wrapName(%q) lost characters: %q", tc.in, got)
		}
	}
}

// TestTextFindingFirst: with differences in a sweep the size of the ledger's (eleven faults,
// eight clients, two schema modes, two protocols, nine clients unavailable), the first screen
// holds what publishing the schema changed, what the protocol changed, the unmet expectation
// and the count of unavailable clients, and the matrix comes after them, once, not one table
// per schema mode and protocol.
func TestTextFindingFirst(t *testing.T) {
	faults := []string{"clean", "error", "rpc-error", "empty", "truncate", "corrupt", "corrupt-plausible", "type-swap", "drop-required", "wrong-container", "latency"}
	clients := []string{"raw", "go-sdk/call", "go-sdk/list-then-call", "mcp-go/call", "mcp-go/list-then-call", "ts-sdk/call", "python-sdk/call", "claude-code"}
	r := &tally.Results{Scenario: "ledger balance", Backend: "local"}
	for _, mode := range []string{"hidden", "published"} {
		for _, p := range []string{"2026-07-28", "2025-11-25"} {
			for _, f := range faults {
				for _, client := range clients {
					outcome := "passed:3"
					switch {
					case mode == "published" && f == "type-swap" && client == "python-sdk/call":
						outcome = "threw:3"
					case mode == "published" && f == "type-swap" && client == "claude-code" && p == "2026-07-28":
						outcome = "rejected:3"
					}
					c := mkCell(client, f, mode, 3, outcome)
					c.Protocol = p
					r.Cells = append(r.Cells, c)
				}
			}
		}
	}
	r.Expectations = []tally.Expectation{{Line: 7, Client: "ts-sdk/call", Fault: "type-swap", Schema: "published", Outcome: "threw", Status: tally.Unmet,
		Misses: []string{"ts-sdk/call × type-swap × published: passed 3/3"}}}
	for i := range 9 {
		r.Unavailable = append(r.Unavailable, tally.Unavailable{Client: fmt.Sprintf("client-%d", i), Reason: "node not found on PATH"})
	}
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(out, "\n")
	firstScreen := strings.Join(lines[:25], "\n")
	matrix := strings.Index(out, "\nOutcomes")
	if matrix < 0 {
		t.Fatalf("no matrix:\n%s", out)
	}
	for _, want := range []string{
		"Publishing the schema changed:",
		"python-sdk/call  passed 3/3 (hidden) → threw 3/3 (published)",
		"claude-code      passed 3/3 (hidden) → rejected 3/3 (published)  type-swap (under 2026-07-28 only)",
		"Changing the protocol changed:",
		"claude-code  type-swap  published  rejected 3/3 (2026-07-28) → passed 3/3 (2025-11-25)",
		"Unmet expectations (1 of 1):",
		"9 clients could not run",
	} {
		i := strings.Index(out, want)
		switch {
		case !strings.Contains(firstScreen, want):
			t.Errorf("the first 25 lines lack %q:\n%s", want, firstScreen)
		case i > matrix:
			t.Errorf("%q comes after the matrix:\n%s", want, out)
		}
	}
	// One matrix, split only by width; the cell that varies names its schema mode and protocol.
	if n := strings.Count(out, "\nOutcomes"); n != 3 || strings.Contains(out, "\nschema ") {
		t.Errorf("want the 8 clients in 3 tables split by width, none per schema mode, got %d:\n%s", n, out)
	}
	if !strings.Contains(out, "published, 2026-07-28:") || !strings.Contains(out, "published: threw 3/3") {
		t.Errorf("the varying cells do not say where they vary:\n%s", out)
	}
	if n := strings.Count(out, "passed 3/3"); n > len(faults)*len(clients)+10 {
		t.Errorf("%q shows %d times: cells that agree are not shown once", "passed 3/3", n)
	}
	if i := strings.Index(out, "\nUnavailable clients:\n  client-0: node not found on PATH"); i < matrix {
		t.Errorf("the reasons of the unavailable clients are not after the matrix:\n%s", out)
	}
}
