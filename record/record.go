// Package record is what a sweep leaves in its output directory, as plain data shared by the
// code that writes it and the code that reads it back: the names of the directory's files, a
// cell's coordinates with their one key, the outcomes a run is graded with, and each run's
// record, read from runs.jsonl and written to it a line at a time.
//
// The output directory of a sweep:
//
//	sweep.json     how the sweep was asked for and what it planned (SweepFile)
//	sweep.lock     held while a sweep runs there (LockFile)
//	runs.jsonl     a record a finished run, appended as runs end (RunsFile)
//	results.json   the counts per cell (ResultsFile), with summary.md, report.html, junit.xml
//	               and ctrf.json rendered from them
//	runs/<cell>/run-<n>/tee.jsonl  each run's transcript (TeeFile), beside its stdout (StdoutFile)
//	                               (and tee.2.jsonl, ... when the client started the server again)
//	alone.jsonl    the runs run again alone after the sweep (AloneFile), in alone/<cell>/run-<n>
//
// A runs.jsonl record is a Run: a Cell, the run's number and seed, its Grade (an Outcome, one
// of Outcomes, with its evidence and the client's Observation) and the run's timings. Every
// reader of the file, the counts (tally), the HTML report's evidence (report), a resumed or a
// replayed sweep, reads it with ReadRuns (or ReadRunsAny, to show a record without an outcome
// too), so a cut-short last line (a sweep killed while writing it) is taken the same way
// everywhere. Line writes a record as runs.jsonl holds it.
// results.json is the counts made of these records: its type and reader are tally's (Results,
// ReadResults), as the counts are made there.
//
// The JSON of each file is kept byte-compatible: results, runs and baselines written by an
// older toolscore load and compare as they did (cmd/toolscore's TestOldSweepReadsTheSame).
package record

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// The files of an output directory.
const (
	SweepFile   = "sweep.json"   // how the sweep was asked for and what it planned, before its first run
	LockFile    = "sweep.lock"   // held by the sweep running in the directory
	RunsFile    = "runs.jsonl"   // one record a run, with its evidence
	ResultsFile = "results.json" // the counts, as report.JSON writes them
	SummaryFile = "summary.md"   // the same as a Markdown report
	HTMLFile    = "report.html"  // the matrix to click through, with each cell's evidence
	JUnitFile   = "junit.xml"    // a test case per cell, for CI report tools
	CTRFFile    = "ctrf.json"    // the same in the Common Test Report Format
	// RunsDir holds a directory per run: RunsDir/<cell>/run-<n>.
	RunsDir = "runs"
	// AloneFile records, like RunsFile, the runs run again alone after the sweep (beside the
	// counts, never in them), each in AloneDir/<cell>/run-<n>.
	AloneFile = "alone.jsonl"
	AloneDir  = "alone"
	// The files of a run's directory: its transcript, as the proxy tees it, and what the client
	// adapter printed.
	TeeFile    = "tee.jsonl"
	StdoutFile = "stdout"
)

// ProtocolAsIs is the protocol entry under which the proxy leaves the server's protocol
// versions as they are (scenario.ProtocolAsIs).
const ProtocolAsIs = "as-is"

// Cell is where a run sits in the matrix, as runs.jsonl, results.json and baselines write it.
// Each record of a cell embeds it.
type Cell struct {
	Client string `json:"client"`
	Fault  string `json:"fault"`
	Schema string `json:"schema"`
	// Protocol is the protocol entry the proxy enforced: as-is, or the newest version the server
	// was seen to offer.
	Protocol  string `json:"protocol"`
	Transport string `json:"transport"`
	// Tool is the tool the cell called, in a scenario with tools: (empty for a single tool).
	Tool string `json:"tool,omitempty"`
}

// Key names the cell in results, baselines and diffs, e.g. "go-sdk/call|corrupt|hidden|stdio";
// it stays the same from run to run. The protocol is added only when it is not as-is (or
// unset), and the tool only in a scenario with tools:, so the keys (and baselines) from before
// there were those axes keep meaning the same cells.
func (c Cell) Key() string {
	k := c.Client + "|" + c.Fault + "|" + c.Schema + "|" + c.Transport
	if c.Protocol != "" && c.Protocol != ProtocolAsIs {
		k += "|" + c.Protocol
	}
	if c.Tool != "" {
		k += "|tool:" + c.Tool
	}
	return k
}

// maxSlug bounds a slug well under the 255 bytes a path element may have on every file system.
const maxSlug = 160

// Slug makes a cell key (or any name in one, a tool's) a single path element that is safe
// everywhere a run's directory goes: it is the run's HOME and TMPDIR, so it ends up in the PATH
// npx builds and in shell words, where ':' or a space breaks them. Letters, digits, '.' and '-'
// stay; '/' becomes '_', '|' '__' and '@' '_at_' as they always did, anything else '_'. A key
// those rules could not tell apart from another ('_', ':', a space, any other character) or a
// long one gets 8 hex digits of its hash, so two cells never share a directory.
func Slug(key string) string {
	var b strings.Builder
	lossy := false
	for _, r := range key {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			b.WriteRune(r)
		case r == '/':
			b.WriteByte('_')
		case r == '|':
			b.WriteString("__")
		case r == '@':
			b.WriteString("_at_")
		default:
			b.WriteByte('_')
			lossy = true
		}
	}
	s := b.String()
	if strings.HasPrefix(s, ".") { // a hidden directory, or ".." itself
		s, lossy = "_"+s[1:], true
	}
	if !lossy && len(s) <= maxSlug {
		return s
	}
	sum := sha256.Sum256([]byte(key))
	if len(s) > maxSlug {
		s = s[:maxSlug]
	}
	return s + "-" + hex.EncodeToString(sum[:4])
}
