package action

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/toolscore/toolscore/internal/cli"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/sweep"
)

// Inputs are the action's inputs, read and checked.
type Inputs struct {
	Sweep sweep.Config // what to sweep; its FailOn is the action's FailOn, below
	// Shard is input shard, "i/n", read into Sweep when the sweep starts: a bad one is refused
	// in the sweep's log, as toolscore run --shard refuses it.
	Shard    string
	Merge    []string // output directories to merge instead of running a sweep
	Plan     int      // shards to plan (output matrix) instead of running a sweep; 0 runs it
	Baseline string
	FailOn   report.FailOn
	Comment  bool
	Token    string
}

// ReadInputs reads and checks the action's inputs. GitHub passes input NAME as the variable
// INPUT_NAME, upper-cased with hyphens kept (INPUT_FAIL-ON), which is what GetInput reads.
func ReadInputs(gha *githubactions.Action) (Inputs, error) {
	in := Inputs{
		Sweep: sweep.Config{
			Scenario:   gha.GetInput("scenario"),
			Clients:    cli.Split(gha.GetInput("clients")),
			Faults:     cli.Split(gha.GetInput("faults")),
			Schemas:    cli.Split(gha.GetInput("schema")),
			Protocols:  cli.Split(gha.GetInput("protocols")),
			Transports: cli.Split(gha.GetInput("transports")),
			Tools:      cli.Split(gha.GetInput("tools")),
			ShardBy:    gha.GetInput("shard-by"),
			Out:        gha.GetInput("out"),
		},
		Shard:    gha.GetInput("shard"),
		Baseline: gha.GetInput("baseline"),
		Token:    gha.GetInput("github-token"),
	}
	// First of all, so the token shows as *** wherever it might be printed.
	if in.Token != "" {
		gha.AddMask(in.Token)
	}
	// The cell cache: action.yml's default is a folder in the workspace, the one place of the
	// runner both this container and a later actions/cache step on the host see. An input given
	// empty, or off, runs every cell (as toolscore run --no-cache).
	switch d := strings.TrimSpace(gha.GetInput("cache-dir")); strings.ToLower(d) {
	case "", "off":
	default:
		in.Sweep.Cache = d
	}
	var errs []error
	for _, n := range []struct {
		name string
		to   *int
	}{{"plan", &in.Plan}, {"runs", &in.Sweep.Runs}, {"max-runs", &in.Sweep.MaxRuns}, {"parallel", &in.Sweep.Parallel}} {
		if v := gha.GetInput(n.name); v != "" {
			i, err := strconv.Atoi(v)
			if err != nil || i < 1 {
				errs = append(errs, fmt.Errorf("input %s %q: want a whole number of 1 or more", n.name, v))
			}
			*n.to = i
		}
	}
	switch b := strings.ToLower(gha.GetInput("backend")); b {
	case "", "auto":
		in.Sweep.Backend = "auto"
	case "docker", "local":
		in.Sweep.Backend = b
	default:
		errs = append(errs, fmt.Errorf("input backend %q: want auto, docker or local", b))
	}
	var err error
	if in.FailOn, err = report.ParseFailOn(gha.GetInput("fail-on")); err != nil {
		errs = append(errs, fmt.Errorf("input %w", err))
	}
	switch c := strings.ToLower(gha.GetInput("comment")); c {
	case "", "true", "yes", "on", "1":
		in.Comment = true
	case "false", "no", "off", "0":
	default:
		errs = append(errs, fmt.Errorf("input comment %q: want true or false", c))
	}
	if m := gha.GetInput("merge"); m != "" {
		for _, pattern := range strings.FieldsFunc(m, func(r rune) bool { return r == '\n' || r == ',' || r == ' ' }) {
			matches, err := filepath.Glob(pattern)
			if err != nil {
				errs = append(errs, fmt.Errorf("input merge %q: %w", pattern, err))
				continue
			}
			if len(matches) == 0 {
				errs = append(errs, fmt.Errorf("input merge: nothing matches %q", pattern))
			}
			for _, dir := range matches {
				if st, err := os.Stat(dir); err == nil && st.IsDir() && !slices.Contains(in.Merge, dir) {
					in.Merge = append(in.Merge, dir)
				}
			}
		}
		s := in.Sweep
		if len(in.Merge) > 0 && (in.Shard != "" || s.ShardBy != "" || len(s.Clients)+len(s.Faults)+len(s.Schemas)+len(s.Protocols)+len(s.Transports)+len(s.Tools) > 0 || s.Runs > 0) {
			errs = append(errs, errors.New("input merge joins outputs that ran already: it takes no shard, shard-by, clients, faults, schema, protocols or runs"))
		}
	}
	if in.FailOn.Change() && in.Baseline == "" {
		errs = append(errs, errors.New("fail-on change needs a baseline to compare with (input baseline)"))
	}
	if in.Baseline != "" && in.Shard != "" {
		errs = append(errs, errors.New("input baseline compares a whole sweep, and a shard is a slice of one: give the baseline to the job that merges the shards"))
	}
	return in, errors.Join(errs...)
}
