// Package tally turns graded runs into counts per cell (never rates: a handful of runs is a count)
// and checks the scenario's expectations against them. It is the step between outcomes and
// reports: [Results] is results.json, which every report renders.
//
// The runner starts a sweep's [Results] with every [Cell] of the plan and its planned runs, then
// counts each finished run into its cell with [Cell.AddRun], from the run's runs.jsonl record
// ([record.Run]), so the counts can be made again from that file. At the end, [Check] evaluates
// the manifest's expect entries against the counts, each an [Expectation] that held, was unmet or
// could not be checked ([Select] and [CheckSelected] split that in two, so sweep.json keeps the
// selections and a rebuilt sweep checks them again).
//
// Results from several sweeps of one scenario (shards, or a sweep run again for more runs) add up
// with [Merge]. A team commits a [Baseline] ([NewBaseline]: the counts alone, so equal counts give
// a byte-identical file); [Baseline.Results] reads it back as results, and [Diff] lists the cells
// whose counts changed between a baseline and a new sweep, as a [Change] each.
//
// [ReadResults] reads results.json back: the one reader of the file, beside its type.
//
// Files: tally.go ([Results], [Cell], [Expectation]), run.go (what a cell counts of one run),
// read.go ([ReadResults]), check.go (expectations), merge.go ([Merge]), baseline.go
// ([Baseline]), diff.go ([Diff]).
//
// Used by: the runner (counting), outdir (results.json, merging output directories), report
// (rendering), the Action and the CLI (diff, baseline). Uses: record, scenario.
package tally
