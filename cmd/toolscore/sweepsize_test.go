package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/outdir"
)

// TestSweepSizeChecked: a sweep over --max-runs (cells × runs, in this shard) stops before
// anything runs, with exit 2 and an error naming the numbers and the flag; raised, a billion runs
// per cell in a tiny shard runs just the shard's.
func TestSweepSizeChecked(t *testing.T) {
	tmp := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"runs flag", []string{"--runs", "1000000000"},
			"toolscore run: the sweep would make 616000000000 runs (616 cells × 1000000000 runs), over the limit of 10000 runs; narrow it with --clients, --faults, --schema, --protocols, --runs or --shard, or raise the limit with --max-runs 616000000000 (the action's input max-runs)"},
		{"shard", []string{"--clients", "raw", "--runs", "50", "--shard", "1/2", "--max-runs", "500"},
			"the sweep would make 1100 runs in shard 1/2 (44 cells × 50 runs, over 2 shards), over the limit of 500 runs"},
		{"overflow", []string{"--runs", "9223372036854775807"},
			"the sweep would make more runs than can be counted (616 cells × 9223372036854775807 runs), over the limit of 10000 runs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(tmp, strings.ReplaceAll(tc.name, " ", "-"))
			_, stderr, code := toolscore(t, tmp, append([]string{"run", "--backend", "local", "--out", out}, tc.args...)...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d (want 2), stderr lacks %q:\n%s", code, tc.want, stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a sweep over the limit still made its output directory")
			}
		})
	}
	out := filepath.Join(tmp, "tiny-shard")
	_, stderr, code := toolscore(t, tmp, "run", "--backend", "local", "--out", out, "--clients", "raw", "--faults", "clean", "--schema", "hidden",
		"--runs", "1000000000", "--max-runs", "2000000000", "--shard", "3/500000000")
	res, err := outdir.ReadResults(filepath.Join(out, "results.json"))
	if code == 2 || err != nil {
		t.Fatalf("exit %d, %v\n%s", code, err, stderr)
	}
	if c := res.Cells[0]; c.Planned != 2 || c.Runs != 2 {
		t.Errorf("the shard planned %d runs and ran %d; want 2 (runs 3 and 500000003 of a billion)", c.Planned, c.Runs)
	}
}
