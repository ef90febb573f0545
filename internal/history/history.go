// Package history finds since which version each cell of a scenario has the outcome it has:
// it sweeps the scenario with one client at sampled releases (the last of each minor line and
// both ends of the range), then, wherever a cell's outcome differs between two neighbouring
// samples, sweeps the versions between by halving until every boundary lies between two
// adjacent releases. Each version's sweep goes through the cell cache, so a version's cells
// run once ever. toolscore history is its command.
package history

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/sweep"
	"github.com/toolscore/toolscore/tally"
)

// Search is one client's history over a range of its releases.
type Search struct {
	Manifest string          // the manifest's path; "" is the embedded ledger
	Client   scenario.Client // the manifest's entry; each sweep sets its version
	Registry string          // where the releases came from, and the package
	Package  string
	// Releases is the range, oldest first in the registry's order, pre-releases left out
	// unless asked for.
	Releases []tally.Release
	// Every sweeps every release; otherwise the samples are the last release of each minor
	// line and both ends, and the search narrows from there.
	Every bool
	// Config is what each version's sweep is given: the axes' filters, the backend, the runs,
	// the cell cache, toolscore's version and binary. Out, Clients and FailOn are the search's.
	Config sweep.Config
	// Work is the history's output directory: version V's sweep goes to Work/Dir(V).
	Work   string
	Stderr io.Writer

	swept    map[string]*version // by version, once swept or failed
	executed int
	reused   int
}

// version is one release's sweep: its cells' behaviours, or why it could not run.
type version struct {
	cells    map[string]*tally.Cell // by the cell's key with the client's bare name
	failed   string                 // why it could not be installed or started
	dir      string                 // its sweep, relative to Work
	protocol string                 // what the client asked for in its initialize
}

// Dir is where a version's sweep of the client goes, relative to the history's directory.
func Dir(client, version string) string {
	return filepath.Join("versions", record.Slug(client), record.Slug(version))
}

// Run sweeps the range and returns the client's history, with how many runs the sweeps
// executed and how many they took from the cell cache. Only an interruption (or a manifest
// that no longer loads) stops it: a version that fails is a segment of its own.
func (s *Search) Run(ctx context.Context) (ch tally.ClientHistory, executed, reused int, err error) {
	s.swept = map[string]*version{}
	versions := make([]string, len(s.Releases))
	for i, r := range s.Releases {
		versions[i] = r.Version
	}
	if len(versions) == 0 {
		return ch, 0, 0, fmt.Errorf("%s: no released version in the range", s.Client.Name)
	}
	samples := Samples(versions, s.Every)
	fmt.Fprintf(s.stderr(), "toolscore history: %s: %d versions of %s on %s, %d sampled first\n",
		report.Plain(s.Client.Name), len(versions), report.Plain(s.Package), s.Registry, len(samples))
	for _, i := range samples {
		if _, err := s.sweep(ctx, versions[i]); err != nil {
			return ch, s.executed, s.reused, err
		}
	}
	for k := 1; k < len(samples); k++ {
		if err := s.narrow(ctx, versions, samples[k-1], samples[k]); err != nil {
			return ch, s.executed, s.reused, err
		}
	}
	return s.history(versions), s.executed, s.reused, nil
}

// narrow sweeps versions between lo and hi, both swept, halving, until every cell whose
// outcome differs between them changes between two adjacent versions. A version that could not
// run is an outcome of its own here, so where installing stops working is found exactly too.
func (s *Search) narrow(ctx context.Context, versions []string, lo, hi int) error {
	if hi-lo <= 1 || same(s.swept[versions[lo]], s.swept[versions[hi]]) {
		return nil
	}
	mid := (lo + hi) / 2
	if _, err := s.sweep(ctx, versions[mid]); err != nil {
		return err
	}
	if err := s.narrow(ctx, versions, lo, mid); err != nil {
		return err
	}
	return s.narrow(ctx, versions, mid, hi)
}

// sweep runs the scenario with the client at version, once.
func (s *Search) sweep(ctx context.Context, ver string) (*version, error) {
	if v := s.swept[ver]; v != nil {
		return v, nil
	}
	sc, err := sweep.Load(s.Manifest)
	if err != nil {
		return nil, err
	}
	c := s.Client
	c.Version = ver
	sc.Clients = []scenario.Client{c}
	sc.Expect = nil
	dir := Dir(s.Client.Name, ver)
	out := filepath.Join(s.Work, dir)
	if err := os.RemoveAll(out); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	// The sweep's own log stays in its directory; the history's log says one line a version.
	log, err := os.Create(filepath.Join(out, "sweep.log"))
	if err != nil {
		return nil, err
	}
	defer log.Close()
	a := s.Config
	a.Clients, a.Out, a.FailOn, a.Stdout, a.Stderr = nil, out, report.FailOnNever, nil, log
	res, _, err := sweep.Sweep(ctx, sc, a)
	if err != nil && (res == nil || exitcode.Of(err) == exitcode.Interrupted) {
		// What stops a sweep before it runs (the backend, the binary, the manifest) stops every
		// version's: it is toolscore's, never the version's.
		return nil, fmt.Errorf("%s %s: %w", s.Client.Name, ver, err)
	}
	v := &version{dir: dir, cells: map[string]*tally.Cell{}}
	switch {
	case len(res.Unavailable) > 0:
		v.failed = res.Unavailable[0].Reason
	default:
		s.executed += res.RunsExecuted
		s.reused += res.RunsReused
		for _, cell := range res.Cells {
			k := cell.Cell
			k.Client = s.Client.Name
			v.cells[k.Key()] = cell
		}
		v.protocol = asked(out)
		if why := neverStarted(out, res); why != "" {
			v.failed = why
		}
	}
	s.swept[ver] = v
	what := ""
	if v.failed != "" {
		what = "could not run: " + firstLine(v.failed)
	} else {
		what = fmt.Sprintf("%d cells, %d runs executed, %d reused", len(res.Cells), res.RunsExecuted, res.RunsReused)
	}
	fmt.Fprintf(s.stderr(), "toolscore history: %s %s: %s\n", report.Plain(s.Client.Name), report.Plain(ver), report.Plain(what))
	return v, nil
}

// neverStarted says why, when every run of the sweep crashed before its client sent the server
// anything (an import that fails: a dependency range resolving to a release the version no
// longer works with): that is the version not starting, no behaviour of it.
func neverStarted(out string, res *tally.Results) string {
	recs := record.RunsIn(out)
	if len(recs) == 0 {
		return ""
	}
	for _, r := range recs {
		if r.Outcome != record.Crashed || r.Negotiated != "" || spoke(filepath.Join(out, r.Tee)) {
			return ""
		}
	}
	why := recs[0].Evidence
	if recs[0].Stderr != "" {
		why += "\n" + tail(recs[0].Stderr, 8)
	}
	return "the client never started: " + why
}

// spoke says whether the transcript holds a message from the client.
func spoke(tee string) bool {
	entries, err := transcript.Read(tee)
	if errors.Is(err, fs.ErrNotExist) {
		return false // a stdio client that died before it started its server has no transcript
	}
	if err != nil {
		return true // unreadable: not evidence that it never spoke
	}
	for _, e := range entries {
		if e.Dir == transcript.ClientToServer {
			return true
		}
	}
	return false
}

// asked is the protocol version the client asked for in the sweep's first run's handshake.
func asked(out string) string {
	for _, r := range record.RunsIn(out) {
		entries, err := transcript.Read(filepath.Join(out, r.Tee))
		if err != nil {
			continue
		}
		if n := transcript.Negotiated(entries); n.ClientAsked != "" {
			return n.ClientAsked
		}
	}
	return ""
}

// same says two swept versions had every cell's outcome alike, or both could not run.
func same(a, b *version) bool {
	if a.failed != "" || b.failed != "" {
		return a.failed != "" && b.failed != ""
	}
	if len(a.cells) != len(b.cells) {
		return false
	}
	for k, c := range a.cells {
		d, ok := b.cells[k]
		if !ok || tally.Behaviour(c) != tally.Behaviour(d) {
			return false
		}
	}
	return true
}

// minor is a version's major.minor line: "1.11" of "1.11.4", "v1.2" of "v1.2.0".
var minor = regexp.MustCompile(`^v?[0-9]+(\.[0-9]+)?`)

// Samples are the indices of versions swept first: every one, or both ends and the last
// release of each minor line, in order.
func Samples(versions []string, every bool) []int {
	var out []int
	for i := range versions {
		last := i == len(versions)-1
		if every || i == 0 || last || minor.FindString(versions[i]) != minor.FindString(versions[i+1]) {
			out = append(out, i)
		}
	}
	return out
}

// history folds the swept versions into the client's history: per cell, the segments.
func (s *Search) history(versions []string) tally.ClientHistory {
	ch := tally.ClientHistory{Client: s.Client.Name, Registry: s.Registry, Package: s.Package}
	published := map[string]*tally.Release{}
	for _, r := range s.Releases {
		r := r
		if v := s.swept[r.Version]; v != nil {
			r.Swept = v.failed == ""
			r.Sweep, r.InstallFailed, r.Protocol = v.dir, v.failed, v.protocol
		}
		ch.Versions = append(ch.Versions, r)
		published[r.Version] = &ch.Versions[len(ch.Versions)-1]
	}
	ch.OutOfOrder = outOfOrder(ch.Versions)
	// The cells are every swept version's, in the order the newest sweep gave them.
	var keys []string
	cellOf := map[string]record.Cell{}
	for i := len(versions) - 1; i >= 0; i-- {
		v := s.swept[versions[i]]
		if v == nil || v.failed != "" {
			continue
		}
		for k, c := range v.cells {
			if _, ok := cellOf[k]; !ok {
				cc := c.Cell
				cc.Client = s.Client.Name
				cellOf[k] = cc
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		ch.Cells = append(ch.Cells, tally.CellHistory{Cell: cellOf[k], Segments: s.segments(versions, k, published)})
	}
	return ch
}

// segments walks the range in order: a swept version's outcome extends the segment before it
// when alike, versions not swept lie between two alike and extend it too, and versions that
// could not run make a segment of their own.
func (s *Search) segments(versions []string, key string, published map[string]*tally.Release) []tally.Segment {
	var segs []tally.Segment
	extend := func(ver, outcome string) *tally.Segment {
		if n := len(segs); n > 0 && segs[n-1].Outcome == outcome {
			segs[n-1].Last, segs[n-1].LastPublished = ver, published[ver].Published
			return &segs[n-1]
		}
		segs = append(segs, tally.Segment{First: ver, Last: ver, FirstPublished: published[ver].Published, LastPublished: published[ver].Published, Outcome: outcome})
		return &segs[len(segs)-1]
	}
	for _, ver := range versions {
		v := s.swept[ver]
		switch {
		case v == nil:
			// Not swept: it lies between two versions alike, so it is taken to be alike.
			if n := len(segs); n > 0 {
				extend(ver, segs[n-1].Outcome)
			}
		case v.failed != "":
			seg := extend(ver, tally.InstallFailed)
			if seg.Reason == "" {
				seg.Reason = v.failed
			}
		default:
			c := v.cells[key]
			if c == nil {
				continue // the cell was not in this version's matrix
			}
			seg := extend(ver, tally.Behaviour(c))
			seg.Swept = append(seg.Swept, ver)
			if seg.Outcomes == nil {
				seg.Outcomes = map[string]int{}
			}
			for o, n := range c.Outcome {
				seg.Outcomes[o] += n
			}
			if seg.Protocol == "" {
				seg.Protocol = v.protocol
			}
			if seg.Example == nil {
				for _, o := range record.Outcomes() {
					if ex, ok := c.Examples[string(o)]; ok {
						seg.Example = &tally.SegmentExample{Version: ver, Sweep: v.dir, Run: ex.Run, Evidence: ex.Evidence, Tee: ex.Tee}
						break
					}
				}
			}
		}
	}
	return segs
}

// outOfOrder names the versions published after a version later in the registry's order.
func outOfOrder(rs []tally.Release) []string {
	var out []string
	for i, r := range rs {
		if r.Published == nil {
			continue
		}
		for _, later := range rs[i+1:] {
			if later.Published != nil && r.Published.After(*later.Published) {
				out = append(out, r.Version)
				break
			}
		}
	}
	return out
}

func (s *Search) stderr() io.Writer {
	if s.Stderr == nil {
		return io.Discard
	}
	return s.Stderr
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
