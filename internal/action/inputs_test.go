package action

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sethvargo/go-githubactions"

	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/sweep"
)

// inputs reads the action's inputs from env as the runner passes them: INPUT_ and the name
// upper-cased, hyphens kept.
func inputs(t *testing.T, env map[string]string) (Inputs, string, error) {
	t.Helper()
	var out bytes.Buffer
	getenv := func(k string) string {
		name, ok := strings.CutPrefix(k, "INPUT_")
		if !ok {
			return ""
		}
		return env[strings.ToLower(name)]
	}
	in, err := ReadInputs(githubactions.New(githubactions.WithWriter(&out), githubactions.WithGetenv(getenv)))
	return in, out.String(), err
}

func TestReadInputs(t *testing.T) {
	in, log, err := inputs(t, map[string]string{})
	want := Inputs{Sweep: sweep.Config{Backend: "auto"}, FailOn: report.FailOnExpect, Comment: true}
	if err != nil || !reflect.DeepEqual(in, want) || log != "" {
		t.Errorf("no inputs: %+v, %v, log %q; want %+v", in, err, log, want)
	}

	in, log, err = inputs(t, map[string]string{
		"scenario": "m.yaml", "clients": "raw, go-sdk/call", "faults": "clean", "schema": "hidden", "protocols": "2025-11-25", "transports": "http", "runs": "3",
		"max-runs": "500", "parallel": "2", "shard": "1/2", "backend": "Local", "out": "o", "fail-on": "unchecked,change",
		"comment": "off", "github-token": "ghs_secret",
	})
	want = Inputs{
		Sweep: sweep.Config{Scenario: "m.yaml", Clients: []string{"raw", "go-sdk/call"}, Faults: []string{"clean"}, Schemas: []string{"hidden"}, Protocols: []string{"2025-11-25"},
			Transports: []string{"http"}, Runs: 3, MaxRuns: 500, Parallel: 2, Backend: "local", Out: "o"},
		Shard: "1/2", FailOn: "change,unchecked", Token: "ghs_secret",
	}
	// change without a baseline is refused; everything else is read.
	if err == nil || err.Error() != "fail-on change needs a baseline to compare with (input baseline)" || !reflect.DeepEqual(in, want) {
		t.Errorf("every input: %+v, %v; want %+v", in, err, want)
	}
	if log != "::add-mask::ghs_secret\n" {
		t.Errorf("the token is not masked first and alone: %q", log)
	}
}

// TestReadInputsCacheDir: cache-dir names the cell cache's folder as given (the action runs in
// the workspace); empty or off runs every cell.
func TestReadInputsCacheDir(t *testing.T) {
	for give, want := range map[string]string{"": "", "off": "", "OFF": "", ".toolscore-cache": ".toolscore-cache", " cells/pr ": "cells/pr"} {
		in, _, err := inputs(t, map[string]string{"cache-dir": give})
		if err != nil || in.Sweep.Cache != want {
			t.Errorf("cache-dir %q: the sweep's cache %q (%v), want %q", give, in.Sweep.Cache, err, want)
		}
	}
}

// TestReadInputsMerge: merge takes globs of directories, each once, and refuses what only a
// sweep takes; clients made only of commas and spaces name nothing.
func TestReadInputsMerge(t *testing.T) {
	tmp := t.TempDir()
	for _, d := range []string{"shard-1", "shard-2"} {
		if err := os.Mkdir(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, "shard-3"), nil, 0o644); err != nil { // a file, not an output
		t.Fatal(err)
	}
	glob := filepath.Join(tmp, "shard-*")
	in, _, err := inputs(t, map[string]string{"merge": glob + "\n" + filepath.Join(tmp, "shard-1"), "clients": " , "})
	if err != nil || !reflect.DeepEqual(in.Merge, []string{filepath.Join(tmp, "shard-1"), filepath.Join(tmp, "shard-2")}) {
		t.Errorf("merge %q, %v", in.Merge, err)
	}
	for _, extra := range []map[string]string{{"clients": "raw"}, {"faults": "clean"}, {"schema": "hidden"}, {"runs": "2"}, {"shard": "1/2"}} {
		extra["merge"] = glob
		if _, _, err := inputs(t, extra); err == nil || !strings.Contains(err.Error(), "input merge joins outputs that ran already") {
			t.Errorf("merge with %v: %v", extra, err)
		}
	}
}
