package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/sweep"
)

// TestShardsMergeToTheWhole runs a matrix unsharded and as shards on the local backend, merges
// the shards with toolscore merge, and checks that every cell's counts, runs and planned runs
// are exactly the unsharded ones, in the same order.
func TestShardsMergeToTheWhole(t *testing.T) {
	for _, tc := range []struct {
		name            string
		clients, faults string
		runs, shards    int
		by              bool // --shard-by the unsharded output: whole cells balanced by their times
	}{
		// Three runs over three shards: each cell has one run in every shard.
		{"3 runs 3 shards", "raw,go-sdk/call,mcp-go/call", "clean,corrupt,rpc-error,type-swap", 3, 3, false},
		// Two runs over four shards: every shard has cells with no run in it (planned 0).
		{"2 runs 4 shards", "raw", "clean,corrupt", 2, 4, false},
		// Planned by measured times: each shard runs its cells whole.
		{"planned 3 shards", "raw,go-sdk/call,mcp-go/call", "clean,corrupt,rpc-error,latency", 2, 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			args := func(out string, extra ...string) []string {
				return append([]string{"run", "--backend", "local", "--parallel", "4", "--out", out,
					"--clients", tc.clients, "--faults", tc.faults, "--runs", fmt.Sprint(tc.runs)}, extra...)
			}
			whole := filepath.Join(tmp, "whole")
			if _, stderr, code := toolscore(t, tmp, args(whole)...); code != 0 {
				t.Fatalf("unsharded run: exit %d\n%s", code, stderr)
			}
			mergeArgs := []string{"merge", "--out", filepath.Join(tmp, "merged")}
			total := 0
			for i := 1; i <= tc.shards; i++ {
				dir := filepath.Join(tmp, fmt.Sprintf("shard-%d", i))
				shard := fmt.Sprintf("%d/%d", i, tc.shards)
				extra := []string{"--shard", shard}
				if tc.by {
					extra = append(extra, "--shard-by", whole)
				}
				if _, stderr, code := toolscore(t, tmp, args(dir, extra...)...); code != 0 {
					t.Fatalf("shard %s: exit %d\n%s", shard, code, stderr)
				}
				res, err := outdir.ReadResults(filepath.Join(dir, "results.json"))
				if err != nil {
					t.Fatal(err)
				}
				if res.Shard != shard {
					t.Errorf("shard %s: results.json says shard %q", shard, res.Shard)
				}
				for _, c := range res.Cells {
					total += c.Planned
					if tc.by && c.Planned != 0 && c.Planned != tc.runs {
						t.Errorf("shard %s plans %d runs of %s, want its %d runs whole or none", shard, c.Planned, c.Key(), tc.runs)
					}
				}
				mergeArgs = append(mergeArgs, dir)
			}
			if _, stderr, code := toolscore(t, tmp, mergeArgs...); code != 0 {
				t.Fatalf("merge: exit %d\n%s", code, stderr)
			}

			want, err := outdir.ReadResults(filepath.Join(whole, "results.json"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := outdir.ReadResults(filepath.Join(tmp, "merged", "results.json"))
			if err != nil {
				t.Fatal(err)
			}
			wantRuns := len(want.Cells) * tc.runs
			if total != wantRuns {
				t.Errorf("the shards planned %d runs in all, want %d", total, wantRuns)
			}
			if len(got.Cells) != len(want.Cells) {
				t.Fatalf("merged shards have %d cells, unsharded %d", len(got.Cells), len(want.Cells))
			}
			for i, w := range want.Cells {
				g := got.Cells[i]
				if g.Key() != w.Key() || g.Runs != w.Runs || g.Planned != w.Planned || !maps.Equal(g.Outcome, w.Outcome) {
					t.Errorf("cell %d: merged %s runs %d planned %d %v; unsharded %s runs %d planned %d %v",
						i, g.Key(), g.Runs, g.Planned, g.Outcome, w.Key(), w.Runs, w.Planned, w.Outcome)
				}
			}
			if got.Shard != "" || want.Shard != "" {
				t.Errorf("shard of the merged results %q, of the unsharded %q; want neither set", got.Shard, want.Shard)
			}
		})
	}
}

func TestShardFlagErrors(t *testing.T) {
	tmp := t.TempDir()
	for _, tc := range []struct{ shard, want string }{
		{"3", `--shard "3": want i/n`},
		{"a/3", `--shard "a/3": want i/n`},
		{"1/", `--shard "1/": want i/n`},
		{"0/3", `--shard "0/3": want 1 ≤ i ≤ n`},
		{"4/3", `--shard "4/3": want 1 ≤ i ≤ n`},
		{"1/0", `--shard "1/0": want 1 ≤ i ≤ n`},
		{"-1/2", `--shard "-1/2": want 1 ≤ i ≤ n`},
	} {
		t.Run(tc.shard, func(t *testing.T) {
			out := filepath.Join(tmp, "out-"+strings.ReplaceAll(tc.shard, "/", "_"))
			_, stderr, code := toolscore(t, tmp, "run", "--backend", "local", "--out", out, "--clients", "raw", "--shard", tc.shard)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d (want 2), stderr lacks %q:\n%s", code, tc.want, stderr)
			}
			if _, err := outdir.ReadResults(filepath.Join(out, "results.json")); err == nil {
				t.Error("a bad --shard still ran the sweep")
			}
		})
	}
}

// TestPlanBalancesTheLedger plans the embedded study's sweep from its measured times
// (docs/ledger-results.json): every cell in exactly one shard, and the shards within 20 % of
// each other's estimated time.
func TestPlanBalancesTheLedger(t *testing.T) {
	tmp := t.TempDir()
	measured, err := filepath.Abs(filepath.Join(docsRoot, "docs", "ledger-results.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, shards := range []int{2, 4, 16} {
		stdout, stderr, code := toolscore(t, tmp, "plan", "--shards", fmt.Sprint(shards), "--from", measured)
		if code != 0 {
			t.Fatalf("plan --shards %d: exit %d\n%s", shards, code, stderr)
		}
		var m struct{ Include []sweep.Shard }
		if err := json.Unmarshal([]byte(stdout), &m); err != nil {
			t.Fatalf("plan --shards %d: %v\n%s", shards, err, stdout)
		}
		if len(m.Include) != shards {
			t.Fatalf("plan --shards %d: %d jobs", shards, len(m.Include))
		}
		cells, lo, hi := 0, m.Include[0].Seconds, m.Include[0].Seconds
		for i, p := range m.Include {
			if want := fmt.Sprintf("%d/%d", i+1, shards); p.Shard != want {
				t.Errorf("job %d: shard %q, want %q", i, p.Shard, want)
			}
			if p.Runs != 3*p.Cells {
				t.Errorf("shard %s: %d runs of %d cells, want each cell's 3 runs whole", p.Shard, p.Runs, p.Cells)
			}
			cells += p.Cells
			lo, hi = min(lo, p.Seconds), max(hi, p.Seconds)
		}
		if cells != 616 {
			t.Errorf("plan --shards %d covers %d cells, want the ledger's 616", shards, cells)
		}
		if float64(hi-lo) > 0.2*float64(hi) {
			t.Errorf("plan --shards %d: shards of %d s to %d s, more than 20%% apart", shards, lo, hi)
		}
		if !strings.Contains(stderr, "balanced by the measured times") {
			t.Errorf("plan says nothing of its balance on stderr:\n%s", stderr)
		}
	}
	for _, bad := range []string{"0", "257"} {
		if _, stderr, code := toolscore(t, tmp, "plan", "--shards", bad); code != 2 || !strings.Contains(stderr, "want 1 to 256") {
			t.Errorf("plan --shards %s: exit %d, stderr %q", bad, code, stderr)
		}
	}
	if _, stderr, code := toolscore(t, tmp, "run", "--backend", "local", "--clients", "raw", "--shard-by", "nowhere.json", "--out", filepath.Join(tmp, "x")); code != 2 || !strings.Contains(stderr, "give --shard too") {
		t.Errorf("--shard-by without --shard: exit %d, stderr %q", code, stderr)
	}
}

// TestPlanCountsTheCellsThatApply plans a sweep of the toolbox server's two tools, one of which
// (zecho) publishes no outputSchema, so the schema faults do not apply to it (issue 52, item 4):
// plan used to count the whole matrix (12 cells) where the sweep runs 8. Now each shard's cells
// and runs are what its sweep runs, without --from each shard has an estimate from its clients'
// known run times, and --clients, --faults and --tools narrow the plan as they narrow the sweep.
func TestPlanCountsTheCellsThatApply(t *testing.T) {
	tmp := t.TempDir()
	manifest := toolboxManifest(t, "toolbox", "tools:\n  - name: zecho\n    arguments: {message: hi}\n  - name: get-sum\n    arguments: {a: 1, b: 2}\nfaults: [clean, type-swap, drop-required]\nschema_modes: [hidden]\nclients: [raw, go-sdk/call]\nruns: 1\n")
	plan := func(args ...string) []sweep.Shard {
		t.Helper()
		stdout, stderr, code := toolscore(t, tmp, append([]string{"plan", manifest}, args...)...)
		if code != 0 {
			t.Fatalf("plan %s: exit %d\n%s", args, code, stderr)
		}
		var m struct{ Include []sweep.Shard }
		if err := json.Unmarshal([]byte(stdout), &m); err != nil {
			t.Fatalf("plan %s: %v\n%s", args, err, stdout)
		}
		return m.Include
	}
	cells := 0
	for i, job := range plan("--shards", "2") {
		cells += job.Cells
		// raw's and go-sdk/call's median runs are well under a second each: 4 runs a shard.
		if job.Seconds < 1 || job.Seconds > 4 {
			t.Errorf("shard %s: estimate %d s, want 1 to 4 from its clients' known run times", job.Shard, job.Seconds)
		}
		out := filepath.Join(tmp, fmt.Sprint("shard-", i))
		if _, stderr, code := toolscore(t, tmp, "run", manifest, "--backend", "local", "--shard", job.Shard, "--out", out); code != 0 {
			t.Fatalf("run --shard %s: exit %d\n%s", job.Shard, code, stderr)
		}
		ran, runs := 0, 0
		for _, c := range readResultsDir(t, out).Cells {
			if c.Runs > 0 {
				ran, runs = ran+1, runs+c.Runs
			}
		}
		if ran != job.Cells || runs != job.Runs {
			t.Errorf("shard %s ran %d cells, %d runs; its plan said %d cells, %d runs", job.Shard, ran, runs, job.Cells, job.Runs)
		}
	}
	if cells != 8 {
		t.Errorf("the plan counts %d cells, want the 8 that apply (zecho's clean, get-sum's three faults, two clients)", cells)
	}
	narrowed := plan("--shards", "1", "--clients", "raw", "--faults", "clean,type-swap", "--tools", "get-sum")
	if narrowed[0].Cells != 2 || narrowed[0].Runs != 2 {
		t.Errorf("narrowed to raw, clean and type-swap, get-sum: %+v, want 2 cells and 2 runs", narrowed[0])
	}
	if _, stderr, code := toolscore(t, tmp, "plan", manifest, "--shards", "1", "--clients", "raww"); code != 2 || !strings.Contains(stderr, `--clients "raww": not in the scenario; did you mean "raw"?`) {
		t.Errorf("plan --clients raww: exit %d, want 2 and the closest client:\n%s", code, stderr)
	}
	// A plan job without the server's secret still plans, counting the whole matrix and saying so.
	secret := toolboxManifest(t, "toolbox-env", "  env: {TOOLBOX_TOKEN: {from_env: TOOLSCORE_TEST_UNSET_TOKEN}}\ntools: [zecho, get-sum]\nfaults: [clean, type-swap]\nschema_modes: [hidden]\nclients: [raw]\nruns: 1\n")
	if stdout, stderr, code := toolscore(t, tmp, "plan", secret, "--shards", "1"); code != 0 || !strings.Contains(stdout, `"cells":4`) || !strings.Contains(stderr, "warning: the plan counts every cell of the matrix") {
		t.Errorf("plan without the server's variable: exit %d, %s, want 0, the whole matrix's 4 cells and a warning:\n%s", code, stdout, stderr)
	}
}
