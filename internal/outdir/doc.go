// Package outdir holds a sweep's output directory: results.json, summary.md and runs.jsonl,
// written, read back and merged, with the files that let a killed sweep be resumed. It sits
// beside the data flow's last steps: the runner fills the directory as it goes, and every
// command that reads a sweep afterwards (report, diff, merge, the Action) reads it here.
//
// A sweep's directory is made in this order:
//
//	release, err := outdir.Lock(dir) // one sweep at a time (sweep.lock, flock)
//	defer release()
//	// runner.Run: sweep.json first (WriteSweep: how the sweep was asked for, its plan),
//	// then one record a run appended to runs.jsonl, each run's files beside
//	err = outdir.Write(dir, res) // results.json, summary.md and the reports
//
// [Write] writes the file of every report format that has one (report.Formats: results.json,
// summary.md, ...), and [WriteReports] those that can name a baseline's changes (report.html,
// junit.xml, ctrf.json) against a baseline when one is given. Every file
// written whole goes through a temp file in the directory, synced and renamed, so a kill
// leaves the file before or none, never a part of one.
//
// Read back: [ReadResults] reads a results.json (or the one in a directory), and makes the
// counts again from sweep.json and runs.jsonl ([Rebuild]) when a killed sweep never wrote it;
// [ReadCounts] also takes a baseline file; [ReadSweep] reads sweep.json, which a resumed sweep
// checks its plan against; [Newest] finds the latest output directory under [Root].
// [Merge] adds up the directories of one scenario's shards (or repeated sweeps) and
// [WriteMerged] writes the merged directory, transcripts included.
//
// Files: outdir.go (writing the reports, reading results), sweep.go
// (sweep.json and the counts rebuilt from runs.jsonl), lock.go ([Lock]), merge.go ([Merge]).
//
// Used by: the runner, the CLI's run, report, diff, merge and baseline commands, and the
// Action. Uses: tally, report.
package outdir
