// Package sweep is toolscore's sweep as a library: what toolscore run, toolscore merge and the
// GitHub Action (internal/action) all call. cmd/toolscore only reads flags into a Config and
// turns the error returned into an exit code.
//
// # What to call, in order
//
//  1. [Load] reads a manifest ("" is the embedded ledger scenario) into a
//     [scenario.Scenario], checked against the faults, clients and builtin servers toolscore
//     knows; a manifest's errors are [scenario.Error]s, each at its file:line:col.
//  2. [Sweep] runs it as a [Config] says (the matrix narrowed by Clients, Faults, ...; Runs,
//     Shard and Shards, Backend, Out; Replay to play recorded transcripts instead of a live
//     server) and returns the counts, the output directory and an error.
//  3. [Merge] adds up the outputs of several sweeps of one scenario (shards) into one;
//     [Resume] runs on a sweep that was killed or interrupted, from its output directory.
//
// In code, toolscore run comes to:
//
//	sc, err := sweep.Load(path)
//	if err != nil {
//		return exitcode.UsageError(err) // printed one manifest error a line
//	}
//	res, out, err := sweep.Sweep(ctx, sc, sweep.Config{Scenario: path, Clients: []string{"raw", "go-sdk/call"},
//		Runs: 1, Backend: "local", Version: version, Stdout: os.Stdout, Stderr: os.Stderr})
//	// printed with the flags' names, unless an unmet expectation the report shows
//	return err // main: os.Exit(exitcode.Of(err))
//
// The runs start toolscore itself, as the proxy, the client adapters and the builtin servers:
// Config.Self names a toolscore binary, or is "" for this program's own executable, which then
// runs them when it calls [Reenter] first thing (the example does, from TestMain: a Go test
// sweeps with no toolscore binary built).
//
// Sweep, Merge and Resume write their log on Config.Stderr (the plan, the progress,
// warnings) and the text report on Config.Stdout; an unmet expectation is in the report. They
// return their errors, which they do not print: a wrong Config is a [*ConfigError] naming the
// field, or a [*TooBigError], [*MissingRecordingsError]. The error carries its exit code
// (package exitcode): exitcode.Of(err) is 0 (every expectation held), 1 (one did not, under
// Config.FailOn), 2 (a usage, manifest or setup error) or 130 (interrupted; what ran is
// counted and kept).
//
// # What a sweep goes through
//
// Sweep picks the backend ([runner.ChooseBackend]: docker, or local process groups), checks
// that the server can start and that the output directory can be written, then hands the
// matrix to [runner.Run], which plans each run, starts the proxy (package internal/proxy) and
// the client, and grades the run (internal/grade) into counts (tally). Sweep then writes
// results.json, summary.md and runs.jsonl (internal/outdir), prints the text report
// (report) and decides the exit status. The output directory's sweep.json records the
// Config, so that Resume runs the same sweep.
//
// The files: sweep.go (Config, Load, Sweep, the exit status), errors.go (the errors of a
// Config, ParseShard), replay.go (Config.Replay: the
// recorded sweep's cells and runs), resume.go (sweep.json and Resume), merge.go, servercheck.go
// and outcheck.go (what is checked before any run), progress.go (the progress line).
//
// Bisect (package internal/bisect) runs many one-cell sweeps of one client at different versions.
package sweep
