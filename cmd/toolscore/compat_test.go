package main

import (
	"os"
	"path/filepath"
	"testing"
)

// The sweep in testdata/sweep-729dd7b is a real one, written by toolscore at 729dd7b (`toolscore
// run --backend local --clients raw,go-sdk/call --faults clean,error,truncate --schema hidden
// --protocols 2025-11-25 --runs 1`, with one run's tee.jsonl kept), and its baseline.json that of
// the same slice with empty in place of truncate. testdata/sweep-729dd7b.want holds what that
// toolscore printed and wrote for it, run in the sweep's directory, but for report.text: the
// terminal report's layout changed since (the finding first, then one matrix), so it holds the
// same counts and expectations as the current layout prints them, and report.compat: the
// compatibility page became a page per fault, which the file holds for the same counts.
const (
	oldSweep     = "testdata/sweep-729dd7b"
	oldSweepWant = "testdata/sweep-729dd7b.want"
)

// TestOldSweepReadsTheSame: results, runs.jsonl and a baseline written before the run record had
// a package of its own still load, and report, diff, baseline and repro give for them, byte for
// byte, what toolscore gave then.
func TestOldSweepReadsTheSame(t *testing.T) {
	dir, err := filepath.Abs(oldSweep)
	if err != nil {
		t.Fatal(err)
	}
	want := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(oldSweepWant, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"report text", []string{"report", "."}, 0, want("report.text")},
		{"report md", []string{"report", ".", "--format", "md"}, 0, want("report.md")},
		{"report html", []string{"report", ".", "--format", "html"}, 0, want("report.html")},
		{"report compat", []string{"report", ".", "--format", "compat"}, 0, want("report.compat")},
		// The json format is results.json as it was written.
		{"report json", []string{"report", ".", "--format", "json"}, 0, want("../sweep-729dd7b/results.json")},
		{"diff text", []string{"diff", "baseline.json", "."}, 1, want("diff.text")},
		{"diff md", []string{"diff", "baseline.json", ".", "--format", "md"}, 1, want("diff.md")},
		{"diff json", []string{"diff", "baseline.json", ".", "--format", "json"}, 1, want("diff.json")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := toolscore(t, dir, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			if stdout != tc.want {
				t.Errorf("stdout differs from what toolscore at 729dd7b printed:\n%s\nwant:\n%s", stdout, tc.want)
			}
		})
	}

	t.Run("baseline", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "baseline.json")
		if _, stderr, code := toolscore(t, dir, "baseline", ".", "--out", out); code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		if got, _ := os.ReadFile(out); string(got) != want("baseline.json") {
			t.Errorf("baseline differs from what toolscore at 729dd7b wrote:\n%s\nwant:\n%s", got, want("baseline.json"))
		}
	})

	t.Run("repro", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "repro")
		if _, stderr, code := toolscore(t, dir, "repro", ".", "raw|error|hidden|stdio|2025-11-25", "--out", out); code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		for name, from := range map[string]string{
			"README.md": "repro/README.md", "cell.json": "repro/cell.json", "run.json": "repro/run.json",
			"reproduce.sh": "repro/reproduce.sh", "tee.jsonl": "../sweep-729dd7b/runs/raw__error__hidden__stdio__2025-11-25/run-1/tee.jsonl",
		} {
			if got, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(got) != want(from) {
				t.Errorf("repro's %s differs from what toolscore at 729dd7b wrote (%v):\n%s\nwant:\n%s", name, err, got, want(from))
			}
		}
	})
}
