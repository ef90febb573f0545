package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/reporttest"
)

// TestToolsInRealReports: a real local sweep of the ledger's two tools under tools: writes a
// junit.xml whose suites name the tool and hold no duplicate test case, a ctrf.json whose tests
// carry their tool, and a summary.md and report.html that name the tool with no dangling
// separator.
func TestToolsInRealReports(t *testing.T) {
	dir := t.TempDir()
	manifest := `name: two tools
server: {builtin: ledger}
tools:
  - name: get_account_balance
    arguments: {account_id: ACC-4471}
  - list_accounts
faults: [clean]
schema_modes: [hidden, published]
protocols: [as-is]
clients: [raw]
runs: 1
`
	if err := os.WriteFile(filepath.Join(dir, "tools.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := toolscore(t, dir, "run", "tools.yaml", "--backend", "local", "--out", "out"); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, "out", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	junit := read("junit.xml")
	reporttest.ValidJUnit(t, "junit.xml", junit)
	var doc struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name string `xml:"name,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(junit, &doc); err != nil {
		t.Fatal(err)
	}
	var suites []string
	for _, s := range doc.Suites {
		suites = append(suites, s.Name)
		if len(s.Cases) != 1 {
			t.Errorf("suite %q has %d test cases, want the one cell of its tool and schema mode", s.Name, len(s.Cases))
		}
	}
	if got, want := strings.Join(suites, "; "), "tool get_account_balance, schema hidden; tool get_account_balance, schema published; tool list_accounts, schema hidden; tool list_accounts, schema published"; got != want {
		t.Errorf("junit.xml suites: %s\nwant: %s", got, want)
	}

	var ctrf struct {
		Results struct {
			Tests []struct {
				Name  string         `json:"name"`
				Extra map[string]any `json:"extra"`
			} `json:"tests"`
		} `json:"results"`
	}
	if err := json.Unmarshal(read("ctrf.json"), &ctrf); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, tc := range ctrf.Results.Tests {
		if seen[tc.Name] || tc.Extra["tool"] == nil {
			t.Errorf("ctrf.json test %q: duplicate %v, tool %v", tc.Name, seen[tc.Name], tc.Extra["tool"])
		}
		seen[tc.Name] = true
	}

	summary, page := string(read("summary.md")), string(read("report.html"))
	for _, c := range []struct{ what, got, want string }{
		{"summary.md", summary, "## Tool list\\_accounts, schema published\n"},
		{"report.html", page, "<h3>list_accounts: raw × clean × schema published</h3>"},
	} {
		if !strings.Contains(c.got, c.want) {
			t.Errorf("%s lacks %q:\n%s", c.what, c.want, c.got)
		}
	}
	if strings.Contains(summary, "tool ,") || strings.Contains(page, "tool ,") {
		t.Errorf("a report names an empty tool")
	}
}
