package report

import (
	"io"
	"strings"

	"github.com/toolscore/toolscore/tally"
)

// A Format is one way to render a sweep's counts, or a history, as toolscore report's --format
// names it. A format is its own file in this package, which declares its Format, plus one line
// in formats below: the CLI, the output directory's writer and the Action read this list, so
// adding a format touches this package only.
type Format struct {
	Name string   // the --format word
	Also []string // other words for it, accepted and never listed (markdown for md)
	// Help says what the format is in the --format flag's help: "Name (Help)"; HistoryHelp
	// the same for a history ("" lists the name alone).
	Help, HistoryHelp string
	// File is the file of a sweep's output directory it is written to; "" when a sweep does
	// not write it (it is only ever printed by toolscore report).
	File string
	// Output is the GitHub Action's step output that holds File's path; "" for none.
	Output string
	// Baseline says the file can name a baseline's changes, so the Action writes it again
	// once the baseline is compared (outdir.WriteReports).
	Baseline bool
	// Evidence says the format shows the example runs' evidence, read from the runs.jsonl
	// beside results.json ([ReadEvidence]).
	Evidence bool
	// Results renders results.json; nil when the format is not one for a sweep's counts.
	Results func(w io.Writer, r *tally.Results, in Inputs) error
	// History renders a history.json; nil when the format is not one for a history.
	History func(w io.Writer, h *tally.History, in Inputs) error
}

// Inputs is what a Format may render beside the counts or the history it is given.
type Inputs struct {
	Evidence Evidence    // the example runs' records (Format.Evidence); nil for none
	Baseline *Comparison // what changed against a baseline; nil for none
	// For a history: the history.json as read, and the sweep of every client's newest
	// release swept (nil when the format does not ask for it).
	Raw    []byte
	Newest func() (*tally.Results, error)
}

// DefaultFormat is the format toolscore report prints when --format names none.
const DefaultFormat = "text"

// formats are the formats in the order --format's help lists them; the output directory's
// files are written in this order too.
var formats = []*Format{
	&textFormat,
	&markdownFormat,
	&jsonFormat,
	&htmlFormat,
	&junitFormat,
	&ctrfFormat,
	&compatFormat,
	&compatHTMLFormat,
}

// Formats are the report formats, in the order --format's help lists them.
func Formats() []*Format { return formats }

// FormatNamed is the format --format name names (its Name or one of its Also).
func FormatNamed(name string) (*Format, bool) {
	for _, f := range formats {
		if f.Name == name {
			return f, true
		}
		for _, a := range f.Also {
			if a == name {
				return f, true
			}
		}
	}
	return nil, false
}

// FormatNames are the names of the formats for a history (history) or for a sweep's counts
// (!history), in the order of Formats.
func FormatNames(history bool) []string {
	var names []string
	for _, f := range formats {
		if history && f.History != nil || !history && f.Results != nil {
			names = append(names, f.Name)
		}
	}
	return names
}

// FormatHelp is --format's help for a sweep's counts: each format with what it is, "text (the
// terminal table), md (summary.md), ... or compat-html (...)".
func FormatHelp() string {
	var parts []string
	for _, f := range formats {
		if f.Results != nil {
			parts = append(parts, f.Name+" ("+f.Help+")")
		}
	}
	return OrList(parts)
}

// EvidenceFormats are the names of the formats that show the example runs' evidence (Evidence),
// as a sentence lists them.
func EvidenceFormats() string {
	var names []string
	for _, f := range formats {
		if f.Evidence {
			names = append(names, f.Name)
		}
	}
	return OrList(names)
}

// HistoryFormatHelp lists the formats for a history as toolscore report's usage does: "text
// (what changed, release by release), json, compat or compat-html".
func HistoryFormatHelp() string {
	var parts []string
	for _, f := range formats {
		switch {
		case f.History == nil:
		case f.HistoryHelp != "":
			parts = append(parts, f.Name+" ("+f.HistoryHelp+")")
		default:
			parts = append(parts, f.Name)
		}
	}
	return OrList(parts)
}

// OrList joins words as a sentence lists alternatives: "a, b or c".
func OrList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
