package action

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"

	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/tally"
)

// JobSummaryFile is the name, in the output directory, of the whole job summary, kept there
// because GitHub keeps only 1 MiB of it.
const JobSummaryFile = "job-summary.md"

// publish writes what the sweep found where GitHub shows it: the job summary (whole in the
// output directory out, cut to GitHub's 1 MiB in the step's), the step outputs, the
// annotations on the manifest's lines and, on a pull request, the comment.
func (st *step) publish(ctx context.Context, res *tally.Results, sc *scenario.Scenario, cmp *report.Comparison, out string) {
	gha := st.gha
	var full bytes.Buffer
	if err := report.Summary(&full, res, cmp); err != nil {
		gha.Warningf("%s", "toolscore: rendering the job summary: "+err.Error())
	}
	fullPath := filepath.Join(out, JobSummaryFile)
	if err := os.WriteFile(fullPath, full.Bytes(), 0o644); err != nil {
		gha.Warningf("%s", "toolscore: "+err.Error())
	}
	if path := st.getenv("GITHUB_STEP_SUMMARY"); path != "" {
		note := fmt.Sprintf("\n> **The summary is cut here**: GitHub keeps 1 MiB of it. The whole report is in %s (upload the output directory, %s, as an artifact to keep it).\n",
			report.EscapeMarkdown(filepath.ToSlash(fullPath)), report.EscapeMarkdown(filepath.ToSlash(out)))
		summary, _ := Cut(full.String(), SummaryLimit-4096, note)
		if err := appendFile(path, summary); err != nil {
			gha.Warningf("%s", "toolscore: writing the job summary: "+err.Error())
		}
	}

	// The reports that name a baseline's changes are written again, now that there are some.
	if cmp != nil {
		if sc != nil && sc.Name == res.Scenario {
			cmp.Manifest = sc
		}
		if err := outdir.WriteReports(out, res, cmp); err != nil {
			gha.Warningf("%s", "toolscore: "+err.Error())
		}
	}
	st.setOutputs(res, cmp, out, fullPath)

	// Annotations on the manifest's lines, when the manifest is a file of this workspace.
	file := ""
	if sc != nil && sc.Name == res.Scenario {
		file = manifestFile(st.in.Sweep.Scenario, st.workspace)
	}
	Annotate(gha, Annotations(AnnotationInput{
		Results: res, Scenario: sc, File: file, Compare: cmp, FailOn: st.in.FailOn,
	}, DefaultBudget))

	if st.in.Comment && !res.Interrupted {
		st.comment(ctx, res, cmp, full.String())
	}
}

// outputName is what an outcome may be called in an output name: GitHub's outputs file has no
// escaping, so a name from a results file must not carry anything else.
var outputName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// setOutputs writes the step's outputs: the results and output directory, the number of
// unmet and unchecked expectations and changed cells, and the total of every outcome
// (outcome-NAME), each one a run can be graded with even at 0, so a workflow can test them.
func (st *step) setOutputs(res *tally.Results, cmp *report.Comparison, out, summary string) {
	gha := st.gha
	if st.getenv("GITHUB_OUTPUT") == "" {
		return
	}
	totals := map[string]int{}
	for _, o := range record.Outcomes() {
		totals[string(o)] = 0
	}
	runs := 0
	for _, c := range res.Cells {
		if c == nil {
			continue
		}
		runs += c.Runs
		for o, n := range c.Outcome {
			totals[o] += n
		}
	}
	changed := 0
	if cmp != nil {
		changed = len(cmp.Changes)
	}
	set := func(k, v string) {
		defer func() {
			if r := recover(); r != nil { // go-githubactions panics when it cannot write
				gha.Warningf("%s", fmt.Sprintf("toolscore: setting output %s: %v", k, r))
			}
		}()
		gha.SetOutput(k, v)
	}
	set("results", filepath.ToSlash(outdir.Results(out)))
	set("dir", filepath.ToSlash(out))
	set("summary", filepath.ToSlash(summary))
	// The files of the report formats that name a step output, for the steps after this one.
	for _, f := range report.Formats() {
		if f.Output != "" {
			set(f.Output, filepath.ToSlash(filepath.Join(out, f.File)))
		}
	}
	set("runs", strconv.Itoa(runs))
	_, missed, open := tally.Count(res.Expectations)
	set("unmet", strconv.Itoa(missed))
	set("unchecked", strconv.Itoa(open))
	set("changed", strconv.Itoa(changed))
	names := make([]string, 0, len(totals))
	for o := range totals {
		names = append(names, o)
	}
	slices.Sort(names)
	for _, o := range names {
		if outputName.MatchString(o) {
			set("outcome-"+o, strconv.Itoa(totals[o]))
		}
	}
}

// appendFile appends s to the file at path, as the runner's file commands expect.
func appendFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(f, s); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
