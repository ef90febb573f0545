package sweep

import (
	"fmt"
	"slices"

	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/internal/runner"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/tally"
)

// loadRecordings reads the transcripts of the sweep in dir for Config.Replay, which
// must be a sweep of the same scenario: its runs are matched by cell. It returns the sweep's
// shard too ("" for the whole matrix). The cells the sweep found not applicable (its preflight
// saw no outputSchema) leave sc's matrix as they left the sweep's, and are returned.
func loadRecordings(dir string, sc *scenario.Scenario) (*runner.Recordings, string, []tally.NotApplicable, error) {
	res, err := outdir.ReadResults(outdir.Results(dir))
	if err != nil {
		return nil, "", nil, err
	}
	if res.Scenario != sc.Name {
		return nil, "", nil, fmt.Errorf("%s is a sweep of the scenario %q, not of %q: give its manifest", dir, res.Scenario, sc.Name)
	}
	r, err := runner.LoadRecordings(dir)
	if err != nil {
		return nil, "", nil, err
	}
	var tools []string
	for _, n := range res.NotApplicable {
		tools = append(tools, n.Tool)
	}
	sc.SetNoSchema(tools)
	return r, res.Shard, res.NotApplicable, nil
}

// replayArgs are a's sweep with what a does not narrow taken from the recorded sweep: its cells
// (axis by axis, where it had fewer than the scenario), its runs and its shard, so that a replay
// of a Config that narrows nothing plays the sweep as it was recorded.
func replayArgs(a Config, sc *scenario.Scenario, r *runner.Recordings, shard string) Config {
	var have [6][]string // the scenario's values, axis by axis
	for _, c := range sc.Cells() {
		for i, v := range []string{c.Client.ID(), c.Fault.Name, string(c.Schema), string(c.Protocol), string(c.Transport), c.Tool.Coordinate()} {
			if v != "" && !slices.Contains(have[i], v) {
				have[i] = append(have[i], v)
			}
		}
	}
	rec := r.Recorded
	for i, axis := range []struct {
		axis     *[]string
		recorded []string
	}{{&a.Clients, rec.Clients}, {&a.Faults, rec.Faults}, {&a.Schemas, rec.Schemas}, {&a.Protocols, rec.Protocols}, {&a.Transports, rec.Transports}, {&a.Tools, rec.Tools}} {
		if len(*axis.axis) > 0 {
			continue
		}
		var kept []string
		for _, v := range have[i] {
			if slices.Contains(axis.recorded, v) {
				kept = append(kept, v)
			}
		}
		// Only an axis the recording narrowed: naming every value would change nothing, and
		// values it has none of are left to Missing to report.
		if len(kept) > 0 && len(kept) < len(have[i]) {
			*axis.axis = kept
		}
	}
	if a.Runs == 0 {
		a.Runs = rec.Runs
	}
	if a.Shards == 0 {
		// The recorded shard was written by a sweep, as ParseShard reads it.
		a.Shard, a.Shards, _ = ParseShard(shard)
	}
	return a
}

// checkRecorded refuses a replay with runs its recording does not hold, naming how many and the
// first, before anything runs.
func checkRecorded(dir string, r *runner.Recordings, p runner.Plan) error {
	n, of, first := r.Missing(p)
	if n == 0 {
		return nil
	}
	return &MissingRecordingsError{Dir: dir, N: n, Of: of, First: first}
}
