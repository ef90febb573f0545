package action

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sethvargo/go-githubactions"

	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/tally"
)

// GitHub's limits on what a step can show.
const (
	// SummaryLimit is the most a step's job summary may hold, in bytes.
	SummaryLimit = 1 << 20
	// CommentLimit is the most an issue or pull-request comment may hold, in characters;
	// bodies are cut in bytes, which never count fewer.
	CommentLimit = 65536
	// AnnotationLimit is about where GitHub cuts an annotation's message, in bytes; messages
	// are cut a little below it, at a character boundary, with the cut marked.
	AnnotationLimit = 4096
	// annotationTitleLimit keeps a title to one readable line.
	annotationTitleLimit = 200
)

// Annotation is one annotation of the manifest: a line of the file, a level, a title and a
// message. Message and Title are plain text (GitHub shows them as such); Annotate leaves the
// workflow-command escaping to go-githubactions.
type Annotation struct {
	Level   string // "error", "warning" or "notice"
	File    string // the manifest, relative to the workspace; "" anchors nothing
	Line    int    // 0 anchors the file only
	Title   string
	Message string
}

// Budget is how many annotations GitHub keeps: per step, of each level, and per job.
type Budget struct{ Errors, Warnings, Notices, Total int }

// DefaultBudget is GitHub's: 10 errors, 10 warnings and 10 notices per step, 50 per job.
var DefaultBudget = Budget{Errors: 10, Warnings: 10, Notices: 10, Total: 50}

// AnnotationInput is what the annotations are made of.
type AnnotationInput struct {
	Results *tally.Results
	// Scenario gives the lines of the client and fault entries; nil leaves those unanchored.
	Scenario *scenario.Scenario
	// File is the manifest's path relative to the workspace, or "" when it is not a file there
	// (the embedded ledger, used from another repository).
	File    string
	Compare *report.Comparison
	FailOn  report.FailOn
}

// Annotations plans the annotations of a sweep: its findings (report.Findings), most
// important first, as many as budget keeps, each on its line of in.File and cut to what GitHub
// shows. What does not fit the budget is counted in a final notice that sends the reader to
// the job summary, which has everything.
func Annotations(in AnnotationInput, budget Budget) []Annotation {
	found := report.Findings(in.Results, in.Scenario, in.Compare, in.FailOn)
	var all []Annotation
	kinds := map[string]int{} // what was left out, by kind
	total := budget.Total
	left := 0
	used := map[string]int{}
	limit := map[string]int{"error": budget.Errors, "warning": budget.Warnings, "notice": budget.Notices}
	for i, f := range found {
		// Keep one place for the final notice while anything after this one could be left out.
		reserve := 0
		if (i < len(found)-1 || left > 0) && budget.Notices > 0 {
			reserve = 1
		}
		if used[f.Level] >= limit[f.Level] || len(all) >= total-reserve {
			left++
			kinds[f.Kind]++
			continue
		}
		used[f.Level]++
		all = append(all, finish(Annotation{Level: f.Level, File: in.File, Line: f.Line, Title: f.Title, Message: f.Message}))
	}
	if left > 0 && used["notice"] < budget.Notices && len(all) < total {
		var what []string
		for _, k := range report.FindingKinds {
			if n := kinds[k]; n > 0 {
				what = append(what, fmt.Sprintf("%d %s", n, report.Plural(n, k, k+"s")))
			}
		}
		all = append(all, Annotation{Level: "notice", File: in.File,
			Title: fmt.Sprintf("%d more in the job summary", left),
			Message: fmt.Sprintf("%d more %s not annotated here (%s): GitHub shows at most %d errors and %d warnings per step. The job summary lists every one.",
				left, report.Plural(left, "finding is", "findings are"), strings.Join(what, ", "), budget.Errors, budget.Warnings)})
	}
	return all
}

// finish cuts an annotation's title and message to what GitHub keeps.
func finish(a Annotation) Annotation {
	if a.File == "" {
		a.Line = 0 // a line of no file anchors nothing
	}
	a.Title = cutBytes(strings.ReplaceAll(a.Title, "\n", " "), annotationTitleLimit)
	a.Message = cutBytes(a.Message, AnnotationLimit-96)
	return a
}

// cutBytes keeps at most limit bytes of s, cut at a character boundary and marked with "…".
func cutBytes(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	s = s[:limit-len("…")]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

// Annotate issues the annotations through go-githubactions, which escapes %, CR and LF in
// the message and also : and , in the file and title properties.
func Annotate(a *githubactions.Action, list []Annotation) {
	for _, an := range list {
		fields := map[string]string{}
		if an.Title != "" {
			fields["title"] = an.Title
		}
		if an.File != "" {
			fields["file"] = an.File
			if an.Line > 0 {
				fields["line"] = strconv.Itoa(an.Line)
			}
		}
		w := a.WithFieldsMap(fields)
		switch an.Level {
		case "error":
			w.Errorf("%s", an.Message)
		case "warning":
			w.Warningf("%s", an.Message)
		default:
			w.Noticef("%s", an.Message)
		}
	}
}
