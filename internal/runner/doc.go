// Package runner is the batch runner: it expands a scenario into cells, executes every run of
// every cell on a backend behind its own proxy, grades each run, and counts the outcomes. It is
// the middle of the data flow: scenario -> cells -> runs -> observations -> outcomes -> counts.
//
// A sweep is used in this order (the CLI's run command and the GitHub Action both drive it,
// through the sweep's library API):
//
//	choice, err := runner.ChooseBackend(ctx, "", self, sc, log) // docker, else local
//	defer choice.Done()
//	o := choice.Options(runner.Plan{Scenario: sc}) // the backend, its adapters and installs
//	o.Out, o.Parallel = dir, 4
//	err = choice.Install(ctx, o.ClientsToRun()) // the clients with a cell to run
//	res, err := runner.Run(ctx, o)
//	// res holds the counts per cell; runs.jsonl in dir holds every run's record
//
// [ChooseBackend] picks where runs execute; it installs nothing and builds no cell image: each
// install's folder is named by its recipe's key, and each image by the hash of its inputs, so
// the cells' keys are known first, and [Choice.Install] installs, or builds the images of,
// only the clients with a cell the cell cache does not hold (a cell it then fails to give has
// its client made before it runs: [Installs.Ready]; on docker the first client's image is
// built for the server's checks, [Choice.ReadyForChecks]); a client that cannot run there is listed as unavailable, with the reason, never given
// made-up outcomes. [Run] takes [Options]: it writes the plan ([Options.Results]: every cell
// with its planned runs), then yields each run of its [Plan] as a [Job] ([Plan.Jobs]), writes
// the run's input files into its directory, has package execute run it on the [Backend] (the
// client's adapter, with the proxy wrapped around the server), mask secrets in what the run
// left, read the run's transcript back and grade it (package grade), appends the run's record
// to runs.jsonl as each run ends, and adds it to the counts (package tally). A [Progress] hears of every run.
//
// A sweep can be split: a [Plan] with a shard runs only the runs that fall in it ([ShardRuns]
// and [PlannedRuns] say which). It can be resumed ([Options.Resume], checked by
// [Options.CheckResume]): the runs recorded in runs.jsonl are counted, not run again. And it can be replayed: [LoadRecordings]
// reads a previous sweep's transcripts, and each run then plays against its own recording
// (package replay) instead of a live server.
//
// Files: runner.go holds [Run] and one run from start to record; the others are named after
// what they hold (the plan and its jobs, resuming, choosing the backend, image servers, replay).
//
// Uses: scenario, backend, client, proxy, execute, grade, tally, outdir, replay. Used by: the CLI
// (cmd/toolscore) and the Action (package action).
package runner
