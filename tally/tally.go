package tally

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenario"
)

// Results is results.json: one scenario's sweep, counted per cell.
type Results struct {
	Scenario  string `json:"scenario"`
	Toolscore string `json:"toolscore"`
	// Backend is where the runs executed, and why that backend was chosen.
	Backend     string    `json:"backend"`
	BackendWhy  string    `json:"backend_why,omitempty"`
	Started     time.Time `json:"started"`
	Finished    time.Time `json:"finished"`
	Interrupted bool      `json:"interrupted,omitempty"`
	Shard       string    `json:"shard,omitempty"` // the slice of the runs this sweep ran, "i/n"; "" for all
	// RunsExecuted counts the runs this sweep ran; RunsReused those it took from the cell cache,
	// whose cells say where from (Cell.ReusedFrom).
	RunsExecuted int `json:"runs_executed"`
	RunsReused   int `json:"runs_reused"`
	// Installed are the clients a local sweep installed, or found installed and checked, for
	// cells it ran, and on docker those whose cell image it built or found; NotInstalled those
	// it installed or built nothing for, the cell cache holding every cell of each (issue 55).
	// A client with no install (a Go client on local) is in neither.
	Installed    []string      `json:"installed,omitempty"`
	NotInstalled []string      `json:"not_installed,omitempty"`
	Cells        []*Cell       `json:"cells"`
	Expectations []Expectation `json:"expectations,omitempty"`
	// Unavailable lists clients that could not run at all, with the reason.
	Unavailable []Unavailable `json:"unavailable,omitempty"`
	// NotApplicable lists the tools whose cells of some faults were left out of the matrix: the
	// faults break the result against an outputSchema, and the tool has none.
	NotApplicable []NotApplicable `json:"not_applicable,omitempty"`
	// CacheMisses say why cells of a sweep with a cell cache ran rather than came from it, one
	// entry a reason, in the order the matrix first met them.
	CacheMisses []CacheMiss `json:"cache_misses,omitempty"`
}

// CacheMiss is one reason cells of a sweep ran although it had a cell cache, and how many.
type CacheMiss struct {
	// Kind is what kept the cells from the cache: MissServer, MissInputs, MissNew, MissEntry or
	// MissUnchecked.
	Kind string `json:"kind"`
	// Why says it in words: what differs in the server's answers, or of the inputs the cells'
	// keys are made of, what changed since their last entries were stored.
	Why   string `json:"why"`
	Cells int    `json:"cells"`
	// First is the first such cell, and for MissServer what its answers differ in.
	First string `json:"first,omitempty"`
}

// The kinds of CacheMiss.
const (
	// MissServer: the live server answers differently from the sessions the entry recorded
	// (a tool whose answers change by design names those fields in its volatile list).
	MissServer = "server"
	// MissInputs: an input of the cell's key changed since its last entry (a file of the
	// client, toolscore's build, the manifest's entry of the tool...), so the key is another.
	MissInputs = "inputs"
	// MissNew: the cache holds no entry of the cell at all.
	MissNew = "new"
	// MissEntry: the entry is damaged, unreadable, or its sessions cannot be replayed.
	MissEntry = "entry"
	// MissUnchecked: the live server could not be checked against the entry.
	MissUnchecked = "unchecked"
)

// AddCacheMiss counts cell under the reason kind, why: the reason's first cell, or one more.
func (r *Results) AddCacheMiss(kind, why, cell string) {
	for i := range r.CacheMisses {
		if m := &r.CacheMisses[i]; m.Kind == kind && m.Why == why {
			m.Cells++
			return
		}
	}
	r.CacheMisses = append(r.CacheMisses, CacheMiss{Kind: kind, Why: why, Cells: 1, First: cell})
}

// Cell is one client × fault × schema mode × protocol × transport, with its outcome counts.
type Cell struct {
	record.Cell
	// Runs is how many runs finished; Planned how many the matrix asked for.
	Runs    int            `json:"runs"`
	Planned int            `json:"planned"`
	Outcome map[string]int `json:"outcomes"`
	// Mixed says the cell's runs disagree: they had more than one outcome, which on a loaded
	// machine may be the load rather than the client (IsMixed, from the counts).
	Mixed bool `json:"mixed,omitempty"`
	// Library is the client library and version the runs used, as the adapter reported it.
	Library string `json:"library,omitempty"`
	// Examples holds, per outcome, the first run that had it: where to find its evidence.
	Examples map[string]Example `json:"examples,omitempty"`
	// ModelView counts, for an agent, what its client layer put in front of the model: structured,
	// text, error or none. Answer counts how the agent's final answer graded: truth,
	// fault-value, no-value, other, obeyed (it said what an injected sentence asked), and
	// flagged alongside when it named the problem.
	ModelView map[string]int `json:"model_view,omitempty"`
	Answer    map[string]int `json:"answer,omitempty"`
	// Negotiated counts the protocol versions the runs' handshakes settled on, as the proxy saw
	// them ("none" when a run had no handshake), so a cap the client did not follow shows.
	Negotiated map[string]int `json:"negotiated,omitempty"`
	// Calls counts the runs by how many times the client sent the target call in each ("1",
	// "2", ...; "0" for none), and Cancelled and Duplicate the runs in which it cancelled a
	// target call, and repeated a call of a tool with side effects (record.Calls).
	Calls     map[string]int `json:"calls,omitempty"`
	Cancelled int            `json:"cancelled,omitempty"`
	Duplicate int            `json:"duplicate,omitempty"`
	// Alone counts the outcomes of the cell's runs run again alone after the sweep: one whose
	// first run was hung, crashed, server-exited or no-call, which on a loaded machine may be
	// the load's doing. They are beside the counts, never in them.
	Alone map[string]int `json:"alone,omitempty"`
	// AloneFor counts the outcomes those runs had first, under the sweep: with Alone, what
	// Settled compares. Results of toolscores before it lack it.
	AloneFor map[string]int `json:"alone_for,omitempty"`
	// AloneNotRun says a run of the cell had an outcome the machine's load may make and was not
	// run again alone: the sweep had reached its limit of runs alone. Its counts stand
	// unconfirmed, marked so, never silently the client's.
	AloneNotRun bool `json:"alone_not_run,omitempty"`
	// MedianMillis is the median wall time of the cell's runs.
	MedianMillis int64 `json:"median_ms"`
	// ReusedFrom, for a cell taken from the cell cache, is when the sweep that ran it started;
	// CacheKey is its entry's key. A cell run by this sweep has neither. RunsReused counts the
	// runs the cache gave: all of them in a sweep, some in a merge of a shard that reused its
	// slice of the cell with one that ran its own (then ReusedFrom is the earliest such sweep,
	// and CacheKey names each entry, ", " between).
	ReusedFrom *time.Time `json:"reused_from,omitempty"`
	CacheKey   string     `json:"cache_key,omitempty"`
	RunsReused int        `json:"runs_reused,omitempty"`
	durations  []time.Duration
	// firsts is the outcome of each run counted, by run number, until a run alone replaces it
	// (AddRun): results read back have none, and keep AloneFor instead.
	firsts map[int]string
}

// Example points at one run's evidence in runs.jsonl and its transcript.
type Example struct {
	Run      int    `json:"run"`
	Evidence string `json:"evidence,omitempty"`
	Tee      string `json:"tee,omitempty"`
	// Calls is how the run's client sent the target call (absent in results before it).
	Calls *record.Calls `json:"calls,omitempty"`
}

// Expectation is one `expect` entry of the manifest and whether it held.
type Expectation struct {
	Line      int    `json:"line"`
	Client    string `json:"client,omitempty"`
	Fault     string `json:"fault,omitempty"`
	Schema    string `json:"schema,omitempty"`
	Protocol  string `json:"protocol,omitempty"`
	Transport string `json:"transport,omitempty"`
	Tool      string `json:"tool,omitempty"`
	// Outcome is what every run of the selected cells must have; with Stable and no outcome,
	// the runs of each selected cell must only agree (no cell mixed).
	Outcome string `json:"outcome,omitempty"`
	Stable  bool   `json:"stable,omitempty"`
	// Status is Held, Unmet or Unchecked.
	Status string `json:"status"`
	// Held is Status == Held, for readers of older results.
	Held bool `json:"held"`
	// Misses lists the cells where some run had another outcome, with their counts.
	Misses []string `json:"misses,omitempty"`
	// Unchecked says why an unchecked expectation was not checked.
	Unchecked string `json:"unchecked,omitempty"`
}

// The status of an expectation: every run of the cells it selects had its outcome (held),
// some run did not (unmet), or no run of a cell it selects took place in this sweep (unchecked:
// the matrix was narrowed, the runs were another shard's, the sweep was interrupted).
const (
	Held      = "held"
	Unmet     = "unmet"
	Unchecked = "unchecked"
)

// State is Status, or for an expectation made without one, what Held says.
func (e Expectation) State() string {
	switch {
	case e.Status != "":
		return e.Status
	case e.Held:
		return Held
	}
	return Unmet
}

// Want is what the expectation asks of the runs, as the reports name it: its outcome, or
// "stable" when it asks only that each cell's runs agree.
func (e Expectation) Want() string {
	if e.Outcome == "" && e.Stable {
		return "stable"
	}
	return e.Outcome
}

// Allows says whether a run of cell c that had outcome keeps the expectation: it is the
// outcome asked for, or, for a stable one, c's runs all had it.
func (e Expectation) Allows(c *Cell, outcome string) bool {
	if e.Outcome != "" && outcome != e.Outcome {
		return false
	}
	return !e.Stable || !c.IsMixed()
}

// Breaks says whether cell c's finished runs break the expectation.
func (e Expectation) Breaks(c *Cell) bool {
	for o, n := range c.Outcome {
		if n > 0 && !e.Allows(c, o) {
			return true
		}
	}
	return false
}

// setStatus sets Status, and Held with it.
func (e *Expectation) setStatus(s string) { e.Status, e.Held = s, s == Held }

// UnmarshalJSON reads an expectation, taking the status of results written before there was
// one from held (where held false was all that was said).
func (e *Expectation) UnmarshalJSON(b []byte) error {
	type plain Expectation
	if err := json.Unmarshal(b, (*plain)(e)); err != nil {
		return err
	}
	e.setStatus(e.State())
	return nil
}

// Count tallies expectations by status.
func Count(es []Expectation) (held, unmet, unchecked int) {
	for _, e := range es {
		switch e.State() {
		case Held:
			held++
		case Unchecked:
			unchecked++
		default:
			unmet++
		}
	}
	return held, unmet, unchecked
}

// NotApplicable is a tool whose cells of Faults are not in the matrix, not run, and why.
type NotApplicable struct {
	Tool   string   `json:"tool"`
	Faults []string `json:"faults"`
	Reason string   `json:"reason"`
}

// Unavailable is a client that could not run, and why.
type Unavailable struct {
	Client string `json:"client"`
	Reason string `json:"reason"`
}

// UnmarshalJSON reads a cell, taking results written before there was a protocol axis as as-is.
func (c *Cell) UnmarshalJSON(b []byte) error {
	type plain Cell
	if err := json.Unmarshal(b, (*plain)(c)); err != nil {
		return err
	}
	c.Protocol = protocolOr(c.Protocol)
	c.Mixed = c.IsMixed()
	return nil
}

// IsMixed says whether the cell's runs had more than one outcome.
func (c *Cell) IsMixed() bool {
	n := 0
	for _, k := range c.Outcome {
		if k > 0 {
			n++
		}
	}
	return n > 1
}

// protocolOr is the protocol entry p, or as-is when none was written.
func protocolOr(p string) string {
	if p == "" {
		return string(scenario.ProtocolAsIs)
	}
	return p
}

// Coordinates renders where a cell sits in the matrix for a sentence: "raw × clean × hidden",
// with the protocol when it is not as-is and the transport when it is not stdio, and the tool
// first when the scenario has several.
func (c *Cell) Coordinates() string {
	s := c.Client + " × " + c.Fault + " × " + c.Schema
	if c.Tool != "" {
		s = c.Tool + ": " + s
	}
	if p := protocolOr(c.Protocol); p != string(scenario.ProtocolAsIs) {
		s += " × " + p
	}
	if c.Transport != "" && c.Transport != string(scenario.TransportStdio) {
		s += " × " + c.Transport
	}
	return s
}

// AddNegotiated counts the protocol version one run negotiated ("" counts as none).
func (c *Cell) AddNegotiated(version string) {
	if c.Negotiated == nil {
		c.Negotiated = map[string]int{}
	}
	if version == "" {
		version = "none"
	}
	c.Negotiated[version]++
}

// Add counts one finished run.
func (c *Cell) Add(outcome string, run int, evidence, tee string, took time.Duration) {
	if c.Outcome == nil {
		c.Outcome = map[string]int{}
	}
	c.Outcome[outcome]++
	c.Runs++
	c.Mixed = c.IsMixed()
	if c.Examples == nil {
		c.Examples = map[string]Example{}
	}
	if _, ok := c.Examples[outcome]; !ok {
		c.Examples[outcome] = Example{Run: run, Evidence: evidence, Tee: tee}
	}
	c.durations = append(c.durations, took)
	d := append([]time.Duration(nil), c.durations...)
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	c.MedianMillis = d[len(d)/2].Milliseconds()
}

// AddAgent counts an agent run's model view and graded answer (Add counts its outcome).
func (c *Cell) AddAgent(view string, answers ...string) {
	if c.ModelView == nil {
		c.ModelView, c.Answer = map[string]int{}, map[string]int{}
	}
	c.ModelView[view]++
	for _, a := range answers {
		c.Answer[a]++
	}
}

// Counts renders the outcome counts the way a person reads them: "threw 3/3", or
// "passed 2/3, hung 1/3", most frequent first, ties by name; runs that never happened (an
// interrupted sweep) are said so.
func (c *Cell) Counts() string {
	if c.Runs == 0 {
		return "not run"
	}
	keys := make([]string, 0, len(c.Outcome))
	for k := range c.Outcome {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if c.Outcome[keys[i]] != c.Outcome[keys[j]] {
			return c.Outcome[keys[i]] > c.Outcome[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d/%d", k, c.Outcome[k], c.Runs))
	}
	s := strings.Join(parts, ", ")
	if c.Runs < c.Planned {
		s += fmt.Sprintf(" (%d of %d not run)", c.Planned-c.Runs, c.Planned)
	}
	return s
}

// Shown is the counts as the reports show them: Counts, then what the runs run again alone
// had, e.g. "hung 1/3, passed 2/3, alone: passed". Baselines, diffs and expectations read
// Counts alone.
func (c *Cell) Shown() string {
	if alone := c.AloneCounts(); alone != "" {
		return c.Counts() + ", alone: " + alone
	}
	if c.AloneNotRun {
		return c.Counts() + ", alone: not run (over the sweep's limit)"
	}
	return c.Counts()
}

// AloneCounts says what the cell's runs run again alone had, e.g. "passed" or "hung 1/2";
// "" when none was.
func (c *Cell) AloneCounts() string {
	n := 0
	keys := make([]string, 0, len(c.Alone))
	for k, v := range c.Alone {
		keys = append(keys, k)
		n += v
	}
	if n == 0 {
		return ""
	}
	if len(keys) == 1 && n == 1 {
		return keys[0]
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d/%d", k, c.Alone[k], n)
	}
	return strings.Join(parts, ", ")
}

// MarshalJSON writes the results as their fields say, but without runs_executed and
// runs_reused when both are 0: results of toolscores before the cell cache had neither, and read
// back they print as they did; a sweep that ran or reused any run has them both.
func (r Results) MarshalJSON() ([]byte, error) {
	type plain Results
	if r.RunsExecuted != 0 || r.RunsReused != 0 {
		return json.Marshal(plain(r))
	}
	// The outer fields take the two names from the embedded ones and, being 0, are left out.
	return json.Marshal(struct {
		plain
		RunsExecuted int `json:"runs_executed,omitempty"`
		RunsReused   int `json:"runs_reused,omitempty"`
	}{plain: plain(r)})
}
