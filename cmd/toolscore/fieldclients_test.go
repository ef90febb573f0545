package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolscore/toolscore/tally"
)

// TestFieldClientsFullProduct sweeps scenarios/field.yaml on docker: every client and agent of
// the field over every fault of the embedded study, both schema modes, both protocols and both
// transports, twice a cell (nightly only: scripts/nightly sets TOOLSCORE_FULL=1). Every cell must
// be measured (never crashed, hung or unavailable, which would be toolscore's or the adapter's
// failing, not the client's behaviour), give the same outcome in both runs, and give the outcome
// docs/compat.md states for it (docs/field-results.json, the sweep that page is built from):
// where a client changes, the page must be built again (scripts/readme-compat). The clients'
// sample tests cite, for each outcome that is not passed, the line of the package that makes it.
func TestFieldClientsFullProduct(t *testing.T) {
	if !fullProduct() {
		t.Skip("the full product of the field's clients runs nightly (TOOLSCORE_FULL=1)")
	}
	engine(t)
	out := t.TempDir()
	code, _, stderr := runStatic(t, filepath.Join("..", "..", "scenarios", "field.yaml"), "--backend", "docker", "--fail-on", "never", "--out", out)
	if code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	res := readResultsDir(t, out)
	if len(res.Unavailable) > 0 {
		t.Errorf("clients unavailable: %v", res.Unavailable)
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "field-results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var page tally.Results
	if err := json.Unmarshal(b, &page); err != nil {
		t.Fatalf("docs/field-results.json: %v", err)
	}
	stated := map[string]map[string]int{}
	for _, c := range page.Cells {
		stated[c.Key()] = c.Outcome
	}
	for _, c := range res.Cells {
		for _, bad := range []string{"crashed", "hung", "unavailable"} {
			if c.Outcome[bad] > 0 {
				t.Errorf("%s: %v (%s)", c.Key(), c.Outcome, filepath.Join(out, "runs.jsonl"))
			}
		}
		if len(c.Outcome) != 1 {
			t.Errorf("%s: %v, not one outcome in both runs", c.Key(), c.Outcome)
			continue
		}
		if s := stated[c.Key()]; !maps.Equal(s, c.Outcome) {
			t.Errorf("%s: %v, but docs/compat.md states %v", c.Key(), c.Outcome, s)
		}
	}
}
