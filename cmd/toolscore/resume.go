package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolscore/toolscore/action"
	"github.com/toolscore/toolscore/runner/exitcode"
	"github.com/toolscore/toolscore/runner/outdir"
	"github.com/toolscore/toolscore/runner/record"
	"github.com/toolscore/toolscore/runner/report"
	"github.com/toolscore/toolscore/runner/scenario"
	"github.com/toolscore/toolscore/scenarios"
)

// recordedArgs is how a sweep was asked for, as its sweep.json keeps it for --resume: the
// flags as they took effect (the runs per cell, the backend chosen, the manifest's absolute
// path), so a resumed sweep is the sweep that was started.
type recordedArgs struct {
	action.SweepInputs
	FailOn report.FailOn
	Replay string
}

// sweepRecord is what sweep.json says of the sweep a asks for on the backend named backend,
// with sc loaded and narrowed.
func sweepRecord(a sweepArgs, sc *scenario.Scenario, backend string) outdir.Sweep {
	r := recordedArgs{SweepInputs: a.SweepInputs, FailOn: a.FailOn, Replay: a.Replay}
	r.Runs, r.Backend, r.Out = sc.Runs, backend, ""
	if r.Replay != "" {
		r.Replay, _ = filepath.Abs(r.Replay)
	}
	var s outdir.Sweep
	// A manifest that cannot be read now was read a moment ago; its digest stays empty, and a
	// resume refuses to guess.
	s.Manifest, s.SHA256, _ = manifestDigest(a.Scenario)
	r.Scenario = s.Manifest
	s.Args, _ = json.Marshal(r)
	return s
}

// manifestDigest is the absolute path of the manifest at path ("" is the embedded ledger, and
// stays "") and the SHA-256 of its bytes.
func manifestDigest(path string) (abs, sum string, err error) {
	data := scenarios.Ledger
	if path != "" {
		if abs, err = filepath.Abs(path); err != nil {
			return "", "", err
		}
		if data, err = scenario.ReadFile(abs); err != nil {
			return abs, "", err
		}
	}
	h := sha256.Sum256(data)
	return abs, hex.EncodeToString(h[:]), nil
}

// resumeSweep is toolscore run --resume DIR: the sweep that DIR's sweep.json records, run on
// from its runs.jsonl. Only --parallel and --fail-on may be given beside it: every other flag,
// and the scenario, are the recorded ones.
func resumeSweep(ctx context.Context, fs *flag.FlagSet, positional []string, dir string, parallel int, failOn report.FailOn) error {
	usage := func(format string, args ...any) error {
		err := fmt.Errorf(format, args...)
		fmt.Fprintln(os.Stderr, "toolscore run:", err)
		return exitcode.UsageError(err)
	}
	var set []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "resume" && f.Name != "parallel" && f.Name != "fail-on" {
			set = append(set, "--"+f.Name)
		}
	})
	if len(positional) > 0 || len(set) > 0 {
		return usage("--resume runs the scenario and flags that %s records; only --parallel and --fail-on may be given with it, not %v",
			filepath.Join(dir, record.SweepFile), append(positional, set...))
	}
	s, err := outdir.ReadSweep(dir)
	if err != nil {
		return usage("cannot resume: %v", err)
	}
	var rec recordedArgs
	if err := json.Unmarshal(s.Args, &rec); err != nil || len(s.Args) == 0 {
		return usage("cannot resume: %s does not say how the sweep was run (%v)", filepath.Join(dir, record.SweepFile), err)
	}
	name := rec.Scenario
	if name == "" {
		name = "the embedded " + scenarios.LedgerPath
	}
	_, sum, err := manifestDigest(rec.Scenario)
	switch {
	case err != nil:
		return usage("cannot resume %s: its scenario %s: %v", dir, report.Plain(name), err)
	case s.SHA256 == "" || sum != s.SHA256:
		return usage("cannot resume %s: its scenario %s changed since the sweep started (sha256 %.12s then, %.12s now), and runs of two manifests do not add up; start a new sweep",
			dir, report.Plain(name), s.SHA256, sum)
	}
	sc, err := loadScenario(rec.Scenario)
	if err != nil {
		loadFailed(os.Stderr, err)
		return exitcode.UsageError(err)
	}
	a := sweepArgs{SweepInputs: rec.SweepInputs, FailOn: rec.FailOn, Replay: rec.Replay, Resume: true}
	a.Out = dir
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "parallel":
			a.Parallel = parallel
		case "fail-on":
			a.FailOn = failOn
		}
	})
	fmt.Fprintf(os.Stderr, "resuming the sweep in %s, started %s\n", report.Plain(dir), s.Plan.Started.Local().Format("2006-01-02 15:04:05 MST"))
	if s.Plan.Toolscore != version {
		fmt.Fprintf(os.Stderr, "warning: the sweep was started by toolscore %s, this is %s: the runs of both are counted together\n", report.Plain(s.Plan.Toolscore), version)
	}
	_, _, _, err = sweepScenario(ctx, a, sc, os.Stdout, os.Stderr)
	return err
}
