// Package report renders a sweep's counts for people and machines. It is the last step of the
// data flow: every renderer takes results.json's [tally.Results] (and, where a baseline was
// given, a [Comparison]) and writes to an io.Writer; none runs anything or reads back upstream.
//
// The renderers, one file each, each declaring its [Format] (its --format name, the file a
// sweep writes it to, what it reads beside the counts), registered in [Formats] (format.go):
// toolscore report, the output directory's writer (outdir) and the Action go through that
// list, so a new format is a file here and a line in it.
//
//   - [Text]: the table the terminal shows at the end of a sweep (text.go).
//   - [Markdown]: summary.md (markdown.go); [Compat], the who-validates-what page (compat.go).
//   - [JSON]: results.json itself (json.go), whose JSON Schema [ResultsSchema] generates
//     (schema.go).
//   - [HTMLPage]: report.html, one self-contained page, with the example runs' evidence that
//     [ReadEvidence] reads from the output directory (html.go, evidence.go).
//   - [JUnitCompared] and [CTRFCompared]: junit.xml and ctrf.json, one test case per cell
//     (junit.go, ctrf.go, failures.go).
//   - [Summary]: the Markdown report with what changed against a baseline (markdown.go), and
//     [Findings]: what a sweep found that a line of its manifest answers for (findings.go).
//     The Action (internal/action) makes GitHub's job summary, pull-request comment and
//     annotations of them, within GitHub's limits; this package knows nothing of GitHub.
//
// [FailOn] ([ParseFailOn], failon.go) says what fails the check, and [Decide] gives the check's
// one verdict on a sweep, a [Decision] (an exit code and why), [Verdict] the same in one line:
// toolscore run and merge exit with it, and so does the Action's step (decide.go).
//
// [SchemaChanges] and [ProtocolChanges] (report.go) pick out the cells whose counts a schema
// mode or a protocol changes, which the text, Markdown and HTML reports show beside the table.
//
// Whatever a server or client printed is hostile text: [Plain] makes it safe for a terminal
// and a CI log, [EscapeMarkdown] for one line of GitHub-flavoured Markdown, and [WriteJSON]
// writes JSON as safe to print as Plain text; report.html is escaped by html/template.
//
// Used by: outdir (which writes the reports of an output directory), the CLI's run, report,
// diff and merge commands, and the Action. Uses: tally, scenario, record, exitcode.
package report
