// Package action is toolscore's GitHub Action: it reads the inputs, loads the manifest once,
// runs the sweep (or merges shards' outputs) as toolscore run (or toolscore merge) does, and
// publishes the job summary, the step outputs, the annotations and the pull-request comment,
// then decides the step's exit code. It is the CI end of the data flow: it drives a sweep and
// shows its reports where GitHub shows them.
//
// [Run] is the entrypoint (`toolscore action`, which action.yml runs); it reads the inputs and
// the event through a getenv function, so it runs the same outside GitHub, in a test. In order:
//
//  1. [ReadInputs]: the action's inputs, checked ([Inputs]; [SweepInputs] are those that say
//     what to sweep, as toolscore run's flags do). A baseline, when named, is read before
//     anything runs.
//  2. The manifest is loaded once; a sweep is checked before it starts, and its secrets are
//     masked in the workflow's log.
//  3. The sweep (or the merge) runs inside one log group, with workflow commands stopped, so
//     nothing a server under test prints can issue one. A manifest that does not load is
//     annotated on its lines instead.
//  4. The counts are compared with the baseline (tally.Diff) and published: the job summary
//     (report.Summary, [Cut] to GitHub's [SummaryLimit]), the step outputs, the annotations
//     ([Annotations]: report.Findings on the manifest's lines, within GitHub's [Budget], issued
//     by [Annotate]), and one sticky pull-request comment ([CommentBody], posted by package
//     prcomment).
//  5. report.Decide, the verdict toolscore run and merge exit with too, turns the results, the
//     comparison and the fail-on input into a report.Decision: the exit code (package
//     exitcode's) and, in a sentence, why.
//
// Files: action.go ([Run]), inputs.go ([ReadInputs]), annotate.go (manifest errors as
// annotations), annotations.go (GitHub's limits, the findings as annotations), publish.go
// (summary, outputs, annotations), comment.go (the pull-request comment, [Cut]).
//
// Used by: the CLI's action command. Uses: runner, scenario, tally, report, report/prcomment,
// outdir, grade, exitcode, backend, scenarios, and go-githubactions for the workflow commands.
package action
