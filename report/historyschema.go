package report

import (
	"encoding/json"
	"reflect"

	"github.com/invopop/jsonschema"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// HistorySchemaID is where the checked-in schema/history.schema.json is served from.
const HistorySchemaID = "https://raw.githubusercontent.com/toolscore/toolscore/main/schema/history.schema.json"

// HistorySchema returns the JSON Schema of history.json, generated from tally.History as
// ResultsSchema is from tally.Results.
func HistorySchema() ([]byte, error) {
	r := &jsonschema.Reflector{ExpandedStruct: true, LookupComment: historyComment}
	s := r.Reflect(&tally.History{})
	s.ID = HistorySchemaID
	s.Title = "toolscore history"
	s.Description = "history.json: a scenario swept at each client's releases in a range (toolscore history), and per cell the segments of adjacent releases over which its outcome held."
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// historyComments describes history.json's fields (a cell's coordinates are results.json's).
var historyComments = map[string]string{
	"History.Scenario":     "Name of the scenario, from its manifest.",
	"History.Toolscore":    "Version of toolscore that ran the history.",
	"History.Backend":      "Where the runs executed, e.g. docker or local.",
	"History.Started":      "When the history started.",
	"History.Finished":     "When it finished.",
	"History.RunsExecuted": "How many runs its sweeps ran; 0 when the cell cache held every version's cells.",
	"History.RunsReused":   "How many runs its sweeps took from the cell cache.",
	"History.Clients":      "Each client's releases and its cells' segments.",

	"ClientHistory":            "One client across its releases.",
	"ClientHistory.Client":     "The client, as the manifest names it, without a version.",
	"ClientHistory.Registry":   "Where its versions come from: npm, PyPI, Go, crates.io or Maven.",
	"ClientHistory.Package":    "The package whose versions these are.",
	"ClientHistory.Order":      "The order of its releases and segments: registry (as the registry lists them) or date (by publish date).",
	"ClientHistory.Versions":   "The releases in the range, oldest first in its order.",
	"ClientHistory.OutOfOrder": "Versions published after a version later in the registry's order (a maintenance release of an older line): there the two orders differ.",
	"ClientHistory.Cells":      "Each cell of the scenario across the releases.",

	"Release":               "One published version and what the history did with it.",
	"Release.Version":       "The version, as the registry writes it.",
	"Release.Published":     "When the registry says it was published; absent where the registry does not say.",
	"Release.Swept":         "Whether the history tried it: its cells ran (or came from the cell cache), or it could not be installed or started (install_failed says why); a version not swept lies between two swept ones alike and is taken to be alike.",
	"Release.Sweep":         "Its sweep's output directory, relative to history.json's.",
	"Release.InstallFailed": "Why it could not be installed or started, with the step's last lines.",
	"Release.Protocol":      "The protocol version the client asked for in its initialize.",

	"CellHistory":          "One cell across the client's releases.",
	"CellHistory.Segments": "The segments of adjacent releases with one outcome, oldest first.",

	"Segment":                "Adjacent releases, in the client's order, with one outcome.",
	"Segment.First":          "Its first release: the version since which the outcome holds.",
	"Segment.Last":           "Its last release.",
	"Segment.FirstPublished": "The earliest publish date of its releases (in the registry's order a maintenance release may be published after a newer line).",
	"Segment.LastPublished":  "The latest publish date of its releases.",
	"Segment.Outcome":        "The outcome every run of its swept releases had, the outcomes joined with + when a release's runs disagreed, or install-failed.",
	"Segment.Outcomes":       "How many runs of its swept releases had each outcome.",
	"Segment.Swept":          "Its releases the history tried (ran, took from the cell cache, or could not install or start).",
	"Segment.Example":        "One run of the segment, where its evidence is.",
	"Segment.Reason":         "For install-failed: why the releases could not be installed or started.",
	"Segment.Protocol":       "The protocol version its first swept release asked for.",
	"Segment.Protocols":      "Every protocol version its swept releases asked for, in order, where they asked for more than one.",

	"SegmentExample":          "Where one run's evidence is.",
	"SegmentExample.Version":  "The release that ran it.",
	"SegmentExample.Sweep":    "That release's sweep, relative to history.json's directory.",
	"SegmentExample.Run":      "The run's number in the sweep's runs.jsonl.",
	"SegmentExample.Evidence": "Excerpt of what the client returned or threw.",
	"SegmentExample.Tee":      "Path of the run's wire transcript, relative to the sweep.",
}

func historyComment(t reflect.Type, field string) string {
	if t.PkgPath() == reflect.TypeFor[record.Cell]().PkgPath() {
		return resultsComment(t, field)
	}
	if t.PkgPath() != reflect.TypeFor[tally.History]().PkgPath() {
		return ""
	}
	if field == "" {
		return historyComments[t.Name()]
	}
	return historyComments[t.Name()+"."+field]
}
