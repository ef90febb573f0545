package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/scenarios"
)

// TestMergeRefusesTheSameShardTwice: merge refuses, exit 2 naming the inputs and the shard, one
// output given twice (a copy, a link to it), the same shard of one plan twice, and sweeps of
// two manifests that share a name; the two shards of one plan still merge. Issue 48 (item 12):
// it refuses inputs that overlap too, naming a run of a cell both hold: an unsharded output
// with its shards (before: "passed 2/2" of a 1-run matrix, exit 0), and a merged output with
// one of its inputs; two unsharded sweeps, more runs of the same cells, still merge.
func TestMergeRefusesTheSameShardTwice(t *testing.T) {
	tmp := t.TempDir()
	manifest := filepath.Join(tmp, "ledger.yaml")
	edited := filepath.Join(tmp, "edited.yaml")
	os.WriteFile(manifest, scenarios.Ledger, 0o644)
	os.WriteFile(edited, append(append([]byte{}, scenarios.Ledger...), "# the same name, another manifest\n"...), 0o644)
	sweepTo := func(name, manifest string, extra ...string) string {
		out := filepath.Join(tmp, name)
		args := append([]string{"run", manifest, "--backend", "local", "--clients", "raw", "--faults", "clean,corrupt", "--schema", "hidden",
			"--protocols", "2025-11-25", "--transports", "stdio", "--runs", "1", "--out", out, "--fail-on", "never"}, extra...)
		if _, stderr, code := toolscore(t, tmp, args...); code != 0 {
			t.Fatalf("%s: exit %d\n%s", name, code, stderr)
		}
		return out
	}
	one := sweepTo("one", manifest, "--shard", "1/2")
	two := sweepTo("two", manifest, "--shard", "2/2")
	again := sweepTo("one-again", manifest, "--shard", "1/2")
	other := sweepTo("two-edited", edited, "--shard", "2/2")
	whole := sweepTo("whole", manifest)
	wholeAgain := sweepTo("whole-again", manifest)
	copied := filepath.Join(tmp, "one-copy")
	wholeCopy := filepath.Join(tmp, "whole-copy")
	for from, to := range map[string]string{one: copied, whole: wholeCopy} {
		if b, err := exec.Command("cp", "-a", from, to).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v\n%s", err, b)
		}
	}
	link := filepath.Join(tmp, "one-link")
	if err := os.Symlink(one, link); err != nil {
		t.Fatal(err)
	}

	m0 := filepath.Join(tmp, "m0")
	if _, stderr, code := toolscore(t, tmp, "merge", "--out", m0, one, two); code != 0 {
		t.Fatalf("the two shards of one plan: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := toolscore(t, tmp, "merge", "--out", filepath.Join(tmp, "more"), whole, wholeAgain); code != 0 {
		t.Errorf("two unsharded sweeps of one plan: exit %d\n%s", code, stderr)
	}
	for i, c := range []struct {
		inputs []string
		want   string
	}{
		{[]string{one, two, copied}, one + " and " + copied + " hold one sweep (shard 1/2, id "},
		{[]string{one, link, two}, one + " and " + link + " are one directory (a link to it?)"},
		{[]string{one, two, again}, one + " and " + again + ` are both shard 1/2 of one plan of "ledger balance"`},
		{[]string{one, other}, one + " and " + other + ` are sweeps of two different manifests named "ledger balance"`},
		{[]string{whole, wholeCopy}, whole + " and " + wholeCopy + " hold one sweep (the whole matrix, id "},
		{[]string{whole, one, two}, whole + " and " + one + ` overlap: they hold the whole matrix and shard 1/2 of one plan of "ledger balance", and run 1 of the cell raw|`},
		{[]string{two, one, wholeAgain}, two + " and " + wholeAgain + ` overlap: they hold shard 2/2 and the whole matrix of one plan of "ledger balance", and run `},
		{[]string{m0, one}, m0 + " and " + one + " overlap: both hold the runs of one sweep (shard 1/2, id "},
		{[]string{two, m0}, two + " and " + m0 + " overlap: both hold the runs of one sweep (shard 2/2, id "},
		{[]string{m0, again}, m0 + " and " + again + ` overlap: both hold shard 1/2 of one plan of "ledger balance", and run `},
	} {
		out := filepath.Join(tmp, fmt.Sprint("m", i+1))
		_, stderr, code := toolscore(t, tmp, append([]string{"merge", "--out", out}, c.inputs...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("merge %v: exit %d, want 2 saying %q:\n%s", c.inputs, code, c.want, stderr)
		}
		if _, err := os.Stat(filepath.Join(out, "results.json")); err == nil {
			t.Errorf("merge %v was refused but wrote results.json", c.inputs)
		}
	}
}
