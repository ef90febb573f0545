package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/toolscore/toolscore/tally"
)

// TestFieldClientsFullProduct sweeps scenarios/field.yaml and scenarios/field-2026.yaml on
// docker: every client and agent of the field over every fault of the embedded study (twice a
// cell) and of the 2026 revision (once), both schema modes, both protocols and both transports
// (nightly only: scripts/nightly sets TOOLSCORE_FULL=1). Every cell must be measured (never
// crashed or unavailable, which would be toolscore's or the adapter's failing, not the client's
// behaviour; hung only where a schema bomb stops the client), give one outcome in all its runs,
// and give the outcome docs/compat.md states for it (docs/field-results.json and
// docs/field-2026-results.json, the sweeps that page is built from): where a client changes, the
// page must be built again (scripts/readme-compat). The clients' sample tests cite, for each
// outcome that is not passed, the line of the package that makes it; docs/field-2026.md does so
// for every outcome of the 2026 sweep that is not passed.
func TestFieldClientsFullProduct(t *testing.T) {
	if !fullProduct() {
		t.Skip("the full product of the field's clients runs nightly (TOOLSCORE_FULL=1)")
	}
	engine(t)
	for scenario, page := range map[string]string{"field.yaml": "field-results.json", "field-2026.yaml": "field-2026-results.json"} {
		t.Run(scenario, func(t *testing.T) { fieldSweepIsThePage(t, scenario, page) })
	}
}

// fieldSweepIsThePage sweeps scenarios/scenario on docker and holds every cell to docs/page.
// racing holds the clients whose outcome under a fault turns on timing, with the outcomes either
// way: opencode re-lists its tools on list_changed while its call is pending and checks the
// answer by whichever outputSchema it holds when the answer comes (docs/field-2026.md).
var racing = map[string][]string{"opencode schema-drift": {"passed", "rejected"}}

func fieldSweepIsThePage(t *testing.T, scenario, page string) {
	out := t.TempDir()
	code, _, stderr := runStatic(t, filepath.Join("..", "..", "scenarios", scenario), "--backend", "docker", "--fail-on", "never", "--out", out)
	if code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	res := readResultsDir(t, out)
	if len(res.Unavailable) > 0 {
		t.Errorf("clients unavailable: %v", res.Unavailable)
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", page))
	if err != nil {
		t.Fatal(err)
	}
	var stated tally.Results
	if err := json.Unmarshal(b, &stated); err != nil {
		t.Fatalf("docs/%s: %v", page, err)
	}
	want := map[string]map[string]int{}
	for _, c := range stated.Cells {
		want[c.Key()] = c.Outcome
	}
	for _, c := range res.Cells {
		if c.Outcome["crashed"] > 0 || c.Outcome["unavailable"] > 0 || (c.Outcome["hung"] > 0 && c.Fault != "schema-bomb") {
			t.Errorf("%s: %v (%s)", c.Key(), c.Outcome, filepath.Join(out, "runs.jsonl"))
		}
		if len(c.Outcome) != 1 {
			t.Errorf("%s: %v, not one outcome in all its runs", c.Key(), c.Outcome)
			continue
		}
		if allowed, ok := racing[c.Client+" "+c.Fault]; ok && slices.Contains(allowed, slices.Collect(maps.Keys(c.Outcome))[0]) {
			continue
		}
		if s := want[c.Key()]; !maps.Equal(s, c.Outcome) {
			t.Errorf("%s: %v, but docs/compat.md states %v (docs/%s)", c.Key(), c.Outcome, s, page)
		}
	}
}
