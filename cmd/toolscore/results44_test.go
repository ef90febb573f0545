package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/sweep"
)

// measuredLedger is docs/ledger-results.json with edit applied to its cells, written into dir.
func measuredLedger(t *testing.T, dir string, edit func(cells []any) []any) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(docsRoot, "docs", "ledger-results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	res["cells"] = edit(res["cells"].([]any))
	if b, err = json.Marshal(res); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "results.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestNullCellRefused: a results.json with a null cell is refused, exit 2, naming the file and
// the cell's index, by every command that reads one (plan --from, run --shard-by, diff, report,
// baseline, merge), where plan, run and diff crashed on it.
func TestNullCellRefused(t *testing.T) {
	tmp := t.TempDir()
	good := filepath.Join(tmp, "good")
	os.Mkdir(good, 0o755)
	measuredLedger(t, good, func(cells []any) []any { return cells })
	bad := filepath.Join(tmp, "bad")
	os.Mkdir(bad, 0o755)
	path := measuredLedger(t, bad, func(cells []any) []any { return append(cells[:2:2], append([]any{nil}, cells[2:]...)...) })
	os.WriteFile(filepath.Join(bad, "runs.jsonl"), nil, 0o644)
	want := path + " is not a usable toolscore results.json: cells[2] is null, not a cell"
	for _, args := range [][]string{
		{"plan", "--shards", "2", "--from", path},
		{"run", "--backend", "local", "--clients", "raw", "--shard", "1/2", "--shard-by", bad, "--out", filepath.Join(tmp, "out")},
		{"diff", filepath.Join(good, "results.json"), path},
		{"diff", path, filepath.Join(good, "results.json")},
		{"report", bad},
		{"baseline", bad, "--out", filepath.Join(tmp, "baseline.json")},
		{"merge", bad, "--out", filepath.Join(tmp, "merged")},
	} {
		_, stderr, code := toolscore(t, tmp, args...)
		if code != 2 || !strings.Contains(stderr, want) || strings.Contains(stderr, "panic") {
			t.Errorf("%v: exit %d, want 2 saying %q:\n%s", args, code, want, stderr)
		}
	}
}

// TestPlanHugeTimings: medians near the largest int64 are planned as the longest times, never
// as negative ones (the sums overflowed), by plan --from and run --shard-by.
func TestPlanHugeTimings(t *testing.T) {
	tmp := t.TempDir()
	path := measuredLedger(t, tmp, func(cells []any) []any {
		for i, c := range cells {
			ms := int64(math.MaxInt64 - 1000)
			if i%3 == 0 {
				ms = 400
			}
			c.(map[string]any)["median_ms"] = ms
		}
		return cells
	})
	stdout, stderr, code := toolscore(t, tmp, "plan", "--shards", "4", "--from", path)
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s", code, stderr)
	}
	var m struct{ Include []sweep.Shard }
	if err := json.Unmarshal([]byte(stdout), &m); err != nil || len(m.Include) != 4 {
		t.Fatalf("plan: %v\n%s", err, stdout)
	}
	for _, s := range m.Include {
		if s.Seconds <= 0 {
			t.Errorf("shard %s estimated at %d s, want a large positive time", s.Shard, s.Seconds)
		}
	}
	if strings.Contains(stderr, " -") {
		t.Errorf("plan's summary shows a negative time:\n%s", stderr)
	}
}
