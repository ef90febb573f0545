package tally

import (
	"strings"
	"time"

	"github.com/toolscore/toolscore/record"
)

// HistoryFile is the name toolscore history gives its history.json.
const HistoryFile = "history.json"

// InstallFailed is a segment's outcome for versions whose cell image could not be built or
// whose client could not start: not the client's behaviour, never a boundary of it.
const InstallFailed = "install-failed"

// The orders a history walks a client's releases in (ClientHistory.Order).
const (
	OrderRegistry = "registry" // as the registry lists them, oldest first
	OrderDate     = "date"     // by publish date, oldest first
)

// History is one history.json: per client, its released versions in a range, and per cell the
// segments of versions over which the cell's outcome held.
type History struct {
	Scenario  string    `json:"scenario"`
	Toolscore string    `json:"toolscore"`
	Backend   string    `json:"backend"`
	Started   time.Time `json:"started"`
	Finished  time.Time `json:"finished"`
	// RunsExecuted and RunsReused add up every version's sweep: a history over a range the cell
	// cache has seen executes none.
	RunsExecuted int             `json:"runs_executed"`
	RunsReused   int             `json:"runs_reused"`
	Clients      []ClientHistory `json:"clients"`
}

// ClientHistory is one client's releases and its cells' segments.
type ClientHistory struct {
	Client   string `json:"client"` // as the manifest names it, without a version
	Registry string `json:"registry"`
	Package  string `json:"package"`
	// Order is the order Versions and the segments are in: OrderRegistry or OrderDate.
	Order string `json:"order"`
	// Versions is the range in Order, oldest first.
	Versions []Release `json:"versions"`
	// OutOfOrder names the versions published after a version later in the registry's order
	// (a maintenance release of an older line): there the two orders differ.
	OutOfOrder []string      `json:"published_out_of_order,omitempty"`
	Cells      []CellHistory `json:"cells"`
}

// Release is one published version and what history did with it.
type Release struct {
	Version   string     `json:"version"`
	Published *time.Time `json:"published,omitempty"`
	// Swept says the history tried the version: its cells ran (or came from the cell cache), or
	// it could not be installed or started (InstallFailed says why); a version not swept lies
	// between two swept ones with the same outcomes and is taken to share them.
	Swept bool `json:"swept"`
	// Sweep is the version's output directory, relative to history.json's.
	Sweep string `json:"sweep,omitempty"`
	// InstallFailed is why the version could not be installed or started, the step's last lines.
	InstallFailed string `json:"install_failed,omitempty"`
	// Protocol is the protocol version the client asked for in its initialize.
	Protocol string `json:"protocol_offered,omitempty"`
}

// CellHistory is one cell (its client without a version) across the client's releases.
type CellHistory struct {
	record.Cell
	Segments []Segment `json:"segments"`
}

// Segment is a run of adjacent versions, in the client's Order, with one outcome.
type Segment struct {
	First string `json:"first"`
	Last  string `json:"last"`
	// FirstPublished and LastPublished are the earliest and the latest publish dates of the
	// segment's releases: in the registry's order a maintenance release may come out after a
	// newer line, so First's own date may be later than Last's.
	FirstPublished *time.Time `json:"first_published,omitempty"`
	LastPublished  *time.Time `json:"last_published,omitempty"`
	// Outcome is what every run of the segment's swept versions had, the outcomes joined with
	// "+" in order when the runs of a version disagreed, or install-failed.
	Outcome string `json:"outcome"`
	// Outcomes counts the runs of the segment's swept versions.
	Outcomes map[string]int `json:"outcomes,omitempty"`
	// Swept names the segment's versions that ran.
	Swept []string `json:"swept"`
	// Example is one run of the segment and its evidence; Reason, for install-failed, says why.
	Example  *SegmentExample `json:"example,omitempty"`
	Reason   string          `json:"reason,omitempty"`
	Protocol string          `json:"protocol_offered,omitempty"`
	// Protocols lists every protocol its swept releases asked for, in order, where they asked
	// for more than one.
	Protocols []string `json:"protocols_offered,omitempty"`
}

// SegmentExample points at one run's evidence: the version, its sweep and the run in it.
type SegmentExample struct {
	Version  string `json:"version"`
	Sweep    string `json:"sweep"`
	Run      int    `json:"run"`
	Evidence string `json:"evidence,omitempty"`
	Tee      string `json:"tee,omitempty"`
}

// Behaviour is a cell's outcome as history compares it: the outcomes its runs had, in order,
// joined with "+".
func Behaviour(c *Cell) string {
	var names []string
	for _, o := range record.Outcomes() {
		if c.Outcome[string(o)] > 0 {
			names = append(names, string(o))
		}
	}
	return strings.Join(names, "+")
}

// Since is the segment that holds a cell's outcome at the client's version in the cell
// (name@version), or at its newest version swept, with the first version of it: "threw since
// 1.11.4". ok is false for a cell or a version the history has not.
func (h *History) Since(c record.Cell) (seg Segment, ok bool) {
	name, version, _ := strings.Cut(c.Client, "@")
	for _, ch := range h.Clients {
		if ch.Client != name {
			continue
		}
		at := map[string]int{}
		for i, r := range ch.Versions {
			at[r.Version] = i
		}
		for _, cell := range ch.Cells {
			k := cell.Cell
			k.Client = c.Client
			if k.Key() != c.Key() {
				continue
			}
			for i := len(cell.Segments) - 1; i >= 0; i-- {
				s := cell.Segments[i]
				if s.Outcome == InstallFailed {
					continue
				}
				if version == "" {
					return s, true
				}
				v, known := at[version]
				if known && at[s.First] <= v && v <= at[s.Last] {
					return s, true
				}
			}
		}
	}
	return Segment{}, false
}
