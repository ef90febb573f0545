// Package cli is what toolscore's command line and the GitHub Action share of the sweep's
// errors: each worded with the flags toolscore run takes where the sweep names a Config field,
// and printed as toolscore run prints it. Package sweep returns its errors in its own terms;
// only the commands print them.
package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/sweep"
	"github.com/toolscore/toolscore/tally"
)

// flags are toolscore run's flags for the Config fields they set.
var flags = map[string]string{
	"Clients": "--clients", "Faults": "--faults", "Schemas": "--schema", "Protocols": "--protocols",
	"Transports": "--transports", "Tools": "--tools", "Runs": "--runs", "MaxRuns": "--max-runs",
	"Parallel": "--parallel", "Shard": "--shard", "ShardBy": "--shard-by", "Backend": "--backend",
	"Out": "--out", "FailOn": "--fail-on", "Replay": "--replay",
}

// Flags is err worded with toolscore run's flags where the sweep's error names Config fields;
// any other error is returned as it is.
func Flags(err error) error {
	if e, ok := err.(*exitcode.Error); ok {
		return &exitcode.Error{Code: e.Code, Err: Flags(e.Err)}
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var errs []error
		for _, e := range j.Unwrap() {
			errs = append(errs, Flags(e))
		}
		return errors.Join(errs...)
	}
	switch e := err.(type) {
	case *sweep.ConfigError:
		if flag, ok := flags[e.Field]; ok {
			return fmt.Errorf("%s: %w", flag, e.Err)
		}
	case *sweep.TooBigError:
		narrow := "--clients, --faults, --schema, --protocols, --runs or --shard"
		if len(e.Tools) > 1 {
			// Each tool multiplies the matrix: a starter of a many-tool server is narrowed by tool first.
			narrow = fmt.Sprintf("--tools NAME,... (the scenario calls %d tools: %s), ", len(e.Tools), report.Plain(sweep.ToolList(e.Tools))) + narrow
		}
		return fmt.Errorf("the sweep would make %s, over the limit of %d runs; narrow it with %s, or raise the limit with --max-runs %d (the action's input max-runs)", e.What, e.Limit, narrow, e.Need)
	case *sweep.MissingRecordingsError:
		return fmt.Errorf("--replay: %s holds no recording of %d of the %d runs to replay (the first: %s): a replay plays recorded runs only; leave out --clients, --faults, --schema, --protocols, --transports, --tools, --runs and --shard to replay the sweep as it was recorded, or narrow them to its runs",
			e.Dir, e.N, e.Of, e.First)
	}
	return err
}

// PrintSweepError prints err, returned by sweep.Sweep, Resume or Merge with res and out, as the
// command cmd ("toolscore run", "toolscore merge") says it: nothing for an unmet expectation
// (the report shows it), how to run the rest of an interrupted sweep, a manifest's errors one a
// line as file:line:col, and any other error after the command's name, worded in its flags.
func PrintSweepError(w io.Writer, cmd string, err error, res *tally.Results, out string) {
	switch code := exitcode.Of(err); {
	case err == nil || code == exitcode.Unmet:
	case code == exitcode.Interrupted && res != nil:
		fmt.Fprintf(w, "interrupted: the runs that finished are in runs.jsonl and counted above; toolscore run --resume %s runs the rest\n", report.Plain(out))
	case len(scenario.Errors(err)) > 0:
		PrintLines(w, err, "") // a manifest's error (a defined client's install) reads file:line:col, as at load
	default:
		PrintLines(w, Flags(err), cmd+": ")
	}
}

// PrintLoadError prints why a manifest did not load, as toolscore run does: manifest errors one
// a line as file:line:col: message, the way editors read them; any other (a file that cannot be
// read) after the command's name.
func PrintLoadError(w io.Writer, err error) {
	if len(scenario.Errors(err)) > 0 {
		PrintLines(w, err, "")
	} else {
		fmt.Fprintln(w, "toolscore run:", err)
	}
}

// PrintLines prints each line of err on a line of its own, after prefix.
func PrintLines(w io.Writer, err error, prefix string) {
	for _, e := range strings.Split(err.Error(), "\n") {
		fmt.Fprintln(w, prefix+e)
	}
}

// Split reads a comma-separated list of a flag or an input into the values it names, spaces
// around each trimmed; "" and a list of only commas name none, nil.
func Split(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
