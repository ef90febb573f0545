package report

import (
	"encoding/json"
	"reflect"
	"slices"

	"github.com/invopop/jsonschema"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/tally"
)

// ResultsSchemaID is where the checked-in schema/results.schema.json is served from, so
// tools that read results.json can validate it.
const ResultsSchemaID = "https://raw.githubusercontent.com/toolscore/toolscore/main/schema/results.schema.json"

// ResultsSchema returns the JSON Schema of results.json, generated from tally.Results so the
// two cannot drift apart.
func ResultsSchema() ([]byte, error) {
	r := &jsonschema.Reflector{
		ExpandedStruct: true,
		LookupComment:  resultsComment,
	}
	s := r.Reflect(&tally.Results{})
	s.ID = ResultsSchemaID
	s.Title = "toolscore results"
	s.Description = "results.json: one scenario's sweep, its outcomes counted per cell (client × fault × schema mode × transport), and whether the manifest's expectations held."
	if e, ok := s.Definitions["Expectation"]; ok {
		if status, ok := e.Properties.Get("status"); ok {
			status.Enum = []any{tally.Held, tally.Unmet, tally.Unchecked}
		}
	}
	if cell, ok := s.Definitions["Cell"]; ok {
		if mode, ok := cell.Properties.Get("schema"); ok {
			for _, m := range scenario.SchemaModes() {
				mode.Enum = append(mode.Enum, string(m))
			}
		}
	}
	// Results written before the cell cache have no counts of runs executed and reused.
	s.Required = slices.DeleteFunc(s.Required, func(f string) bool { return f == "runs_executed" || f == "runs_reused" })
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// resultsComments describes results.json's fields; tally's types carry no schema tags, and
// the schema must not depend on Go sources being at hand.
var resultsComments = map[string]string{
	"Results.Scenario":      "Name of the scenario, from its manifest.",
	"Results.Toolscore":     "Version of toolscore that ran the sweep.",
	"Results.Backend":       "Where the runs executed, e.g. docker or local.",
	"Results.BackendWhy":    "Why that backend was chosen.",
	"Results.Started":       "When the sweep started.",
	"Results.Shard":         "The slice of the runs this sweep ran, i/n (toolscore run --shard); absent for all of them.",
	"Results.Finished":      "When the sweep finished.",
	"Results.RunsExecuted":  "How many runs this sweep ran (absent in results of toolscores before the cell cache).",
	"Results.RunsReused":    "How many runs this sweep took from the cell cache instead of running them, the server's answers checked first.",
	"Results.Installed":     "The clients a local sweep installed (or found installed and checked) for cells it ran; on docker, those whose cell image it built or found, for cells it ran or the server's checks.",
	"Results.NotInstalled":  "The clients for which a sweep installed nothing and built no cell image: the cell cache held every cell of each.",
	"Results.Interrupted":   "True when the sweep stopped before every planned run finished.",
	"Results.Cells":         "Every cell of the matrix with its outcome counts.",
	"Results.Expectations":  "The manifest's expect entries and how each came out.",
	"Results.Unavailable":   "Clients that could not run at all, with the reason.",
	"Results.NotApplicable": "Tools whose cells of the faults that need an outputSchema were left out of the matrix, not run: the tool has none.",

	"Cell":              "One client × fault × schema mode × transport, with its outcome counts.",
	"Cell.Client":       "Client adapter, with @version when the manifest pins one.",
	"Cell.Fault":        "Fault the proxy injected.",
	"Cell.Schema":       "Schema mode: hidden, published or as-is.",
	"Cell.Transport":    "MCP transport: stdio or http (streamable HTTP).",
	"Cell.Runs":         "How many runs finished.",
	"Cell.Planned":      "How many runs the matrix asked for.",
	"Cell.Outcome":      "How many finished runs had each outcome; the counts add up to runs.",
	"Cell.Mixed":        "Whether the cell's runs disagree: more than one outcome among them (on a busy machine that may be load, not the client).",
	"Cell.Alone":        "The outcomes of the cell's runs run again alone after the sweep (the first run it graded hung, crashed, server-exited, no-call, not-ready or unobserved), beside the counts and never in them.",
	"Cell.AloneNotRun":  "Whether a run of the cell had an outcome the machine's load may make (hung, crashed, server-exited, no-call, not-ready, unobserved) and was not run again alone because the sweep had reached its limit of runs alone: its counts are unconfirmed.",
	"Cell.AloneFor":     "The outcomes the runs run again alone had first, under the sweep, counted: with alone, what the findings compare (each run alone in place of its first outcome).",
	"Cell.Library":      "Client library and version the runs used, as the adapter reported it.",
	"Cell.Examples":     "Per outcome, the first run that had it: where to find its evidence.",
	"Cell.MedianMillis": "Median wall time of the cell's runs, in milliseconds.",
	"Cell.ReusedFrom":   "For a cell taken from the cell cache: when the sweep that ran it started (RFC 3339); in a merge, the earliest of those of its reused runs. Absent for a cell this sweep ran.",
	"Cell.CacheKey":     "For a cell taken from the cell cache: the key of its entry (toolscore cache ls); in a merge of shards that reused their slices of the cell, each entry's key, \", \" between.",
	"Cell.RunsReused":   "How many of the cell's runs the cell cache gave: all of them in a sweep that reused the cell; in a merge, fewer than runs where one shard reused its slice of the cell and another ran its own. Absent for a cell run by this sweep, and in results of toolscores before it (a reused cell was reused whole).",

	"Example":          "Where one run's evidence is.",
	"Example.Run":      "The run's number, as runs.jsonl records it.",
	"Example.Evidence": "Excerpt of what the client returned or threw.",
	"Example.Tee":      "Path of the run's wire transcript.",
	"Example.Calls":    "How the run's client sent the target call: how many times (sent), with which JSON-RPC ids, which it cancelled (notifications/cancelled), how long it waited before each try after the first (waits_ms, from the previous try's answer, or its request when it had none), whether the tool has side effects (side_effects: why) and whether it was called more than once (duplicate).",
	"Cell.Calls":       "How many runs sent the target call how many times: {\"1\": 3} is three runs of one call each; \"0\" counts runs that never sent it.",
	"Cell.Cancelled":   "How many runs cancelled a target call (notifications/cancelled).",
	"Cell.Duplicate":   "How many runs called a tool with side effects more than once (the manifest's side_effects, or the tool's annotations).",

	"Expectation":           "One expect entry of the manifest and how it came out.",
	"Expectation.Line":      "Line of the entry in the manifest.",
	"Expectation.Client":    "Client selector; unset means any.",
	"Expectation.Fault":     "Fault selector; unset means any.",
	"Expectation.Schema":    "Schema mode selector; unset means any.",
	"Expectation.Transport": "Transport selector; unset means any.",
	"Expectation.Outcome":   "The outcome every run of the selected cells must have; unset for a stable expectation.",
	"Expectation.Stable":    "Whether the expectation asks only that the runs of each selected cell agree (no cell mixed).",
	"Expectation.Status":    "held: every run of every selected cell had the outcome; unmet: some run did not (or a named client could not run); unchecked: no run of a selected cell took place in this sweep, so it neither held nor failed.",
	"Expectation.Held":      "Whether the status is held; kept for readers of older results.",
	"Expectation.Misses":    "The selected cells where some run had another outcome, with their counts.",
	"Expectation.Unchecked": "Why an unchecked expectation was not checked.",

	"Unavailable":        "A client that could not run, and why.",
	"Unavailable.Client": "The client.",
	"Unavailable.Reason": "Why it could not run.",

	"NotApplicable":        "A tool whose cells of some faults are not applicable, and were not run.",
	"NotApplicable.Tool":   "The tool.",
	"NotApplicable.Faults": "The faults not applicable to it.",
	"NotApplicable.Reason": "Why they are not applicable.",
}

// resultsComment looks up a type's or field's description for the reflector.
func resultsComment(t reflect.Type, field string) string {
	// A cell's coordinates are record.Cell's fields, embedded in tally.Cell.
	if p := t.PkgPath(); p != reflect.TypeFor[tally.Results]().PkgPath() && p != reflect.TypeFor[record.Cell]().PkgPath() {
		return ""
	}
	if field == "" {
		return resultsComments[t.Name()]
	}
	return resultsComments[t.Name()+"."+field]
}
