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
	"github.com/toolscore/toolscore/internal/install"
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
	// Order is the order the range is searched and its segments are made in: tally.OrderRegistry
	// (the default) or tally.OrderDate, by publish date. The boundaries of the two differ where
	// a maintenance release of an older line came out after a newer line.
	Order string
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
	// matrix is the scenario's cells as the axes' filters leave them, with the client's bare
	// name: a history none of whose versions ran still says which cells would not install.
	matrix []record.Cell
	// sweepOne sweeps one version; nil is the real sweep (Search.sweep). The tests of the
	// search give it a release's outcomes instead, to hold the sampling to real sequences.
	sweepOne func(ctx context.Context, ver string) (*version, error)
	// scrub are the machine's own folders (the history's, the caches', the home folder) as
	// they may appear in an install's or a run's words, with what history.json says instead.
	scrub []string
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
	if s.sweepOne == nil {
		s.sweepOne = s.sweep
		if s.matrix, err = matrix(s.Manifest, s.Client, s.Config); err != nil {
			return ch, 0, 0, err
		}
		s.scrub = machinePaths(s.Work, s.Config.Cache)
	}
	ordered, err := Ordered(s.Releases, s.Order)
	if err != nil {
		return ch, 0, 0, fmt.Errorf("%s: %w", s.Client.Name, err)
	}
	versions := make([]string, len(ordered))
	for i, r := range ordered {
		versions[i] = r.Version
	}
	if len(versions) == 0 {
		return ch, 0, 0, fmt.Errorf("%s: no released version in the range", s.Client.Name)
	}
	samples := Samples(versions, s.Every)
	fmt.Fprintf(s.stderr(), "toolscore history: %s: %d %s of %s on %s in %s order, %d sampled first\n",
		report.Plain(s.Client.Name), len(versions), report.Plural(len(versions), "version", "versions"), report.Plain(s.Package), s.Registry, orderName(s.Order), len(samples))
	for _, i := range samples {
		if _, err := s.visit(ctx, versions[i]); err != nil {
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
	if _, err := s.visit(ctx, versions[mid]); err != nil {
		return err
	}
	if err := s.narrow(ctx, versions, lo, mid); err != nil {
		return err
	}
	return s.narrow(ctx, versions, mid, hi)
}

// visit sweeps a version once.
func (s *Search) visit(ctx context.Context, ver string) (*version, error) {
	if v := s.swept[ver]; v != nil {
		return v, nil
	}
	v, err := s.sweepOne(ctx, ver)
	if err != nil {
		return nil, err
	}
	v.failed = s.scrubbed(v.failed)
	s.swept[ver] = v
	return v, nil
}

// sweep runs the scenario with the client at version.
func (s *Search) sweep(ctx context.Context, ver string) (*version, error) {
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

// history folds the swept versions into the client's history: per cell, the segments, in the
// order versions are given in.
func (s *Search) history(versions []string) tally.ClientHistory {
	ch := tally.ClientHistory{Client: s.Client.Name, Registry: s.Registry, Package: s.Package, Order: orderName(s.Order), Cells: []tally.CellHistory{}}
	published := map[string]*tally.Release{}
	for _, r := range s.Releases {
		published[r.Version] = &r
	}
	for _, ver := range versions {
		r := *published[ver]
		if v := s.swept[ver]; v != nil {
			// Tried: it ran, came from the cell cache, or could not be installed or started.
			r.Swept = true
			r.Sweep, r.InstallFailed, r.Protocol = v.dir, v.failed, v.protocol
		}
		ch.Versions = append(ch.Versions, r)
	}
	ch.OutOfOrder = outOfOrder(s.Releases)
	// The cells are every swept version's, in the order the newest sweep gave them.
	var keys []string
	cellOf := map[string]record.Cell{}
	add := func(cc record.Cell) {
		cc.Client = s.Client.Name
		if k := cc.Key(); cellOf[k] == (record.Cell{}) {
			cellOf[k] = cc
			keys = append(keys, k)
		}
	}
	for i := len(versions) - 1; i >= 0; i-- {
		v := s.swept[versions[i]]
		if v == nil || v.failed != "" {
			continue
		}
		for _, c := range v.cells {
			add(c.Cell)
		}
	}
	if len(keys) == 0 {
		// No version ran: the scenario's cells, each a segment of versions that would not
		// install, so history.json still says which cells and why.
		for _, c := range s.matrix {
			add(c)
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
// could not run make a segment of their own. A segment's dates are the earliest and the latest
// of its releases', so they never run backwards, whichever order it was made in.
func (s *Search) segments(versions []string, key string, published map[string]*tally.Release) []tally.Segment {
	var segs []tally.Segment
	extend := func(ver, outcome string) *tally.Segment {
		at := published[ver].Published
		if n := len(segs); n > 0 && segs[n-1].Outcome == outcome {
			seg := &segs[n-1]
			seg.Last = ver
			if at != nil && (seg.FirstPublished == nil || at.Before(*seg.FirstPublished)) {
				seg.FirstPublished = at
			}
			if at != nil && (seg.LastPublished == nil || at.After(*seg.LastPublished)) {
				seg.LastPublished = at
			}
			return seg
		}
		segs = append(segs, tally.Segment{First: ver, Last: ver, FirstPublished: at, LastPublished: at, Outcome: outcome, Swept: []string{}})
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
			seg.Swept = append(seg.Swept, ver)
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
			if v.protocol != "" && !slices.Contains(seg.Protocols, v.protocol) {
				seg.Protocols = append(seg.Protocols, v.protocol)
			}
			if seg.Protocol == "" {
				seg.Protocol = v.protocol
			}
			if seg.Example == nil {
				for _, o := range record.Outcomes() {
					if ex, ok := c.Examples[string(o)]; ok {
						seg.Example = &tally.SegmentExample{Version: ver, Sweep: v.dir, Run: ex.Run, Evidence: s.scrubbed(ex.Evidence), Tee: ex.Tee}
						break
					}
				}
			}
		}
	}
	for i := range segs {
		if len(segs[i].Protocols) < 2 {
			segs[i].Protocols = nil // one protocol is Protocol's to say
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

// Ordered is the range in the order given: the registry's (as it is), or by publish date, the
// registry's order keeping releases published at the same instant. By date, every release must
// have a date: one without would have no place.
func Ordered(rs []tally.Release, order string) ([]tally.Release, error) {
	out := slices.Clone(rs)
	switch order {
	case "", tally.OrderRegistry:
		return out, nil
	case tally.OrderDate:
	default:
		return nil, fmt.Errorf("order %q: want %s or %s", order, tally.OrderRegistry, tally.OrderDate)
	}
	for _, r := range out {
		if r.Published == nil {
			return nil, fmt.Errorf("--order date: the registry gives no publish date for %s", r.Version)
		}
	}
	slices.SortStableFunc(out, func(a, b tally.Release) int { return a.Published.Compare(*b.Published) })
	return out, nil
}

// orderName is the order as history.json names it.
func orderName(order string) string {
	if order == "" {
		return tally.OrderRegistry
	}
	return order
}

// matrix is the scenario's cells for the client as the sweep of a version would have them (the
// axes' filters applied), each with the client's bare name.
func matrix(manifest string, c scenario.Client, cfg sweep.Config) ([]record.Cell, error) {
	sc, err := sweep.Load(manifest)
	if err != nil {
		return nil, err
	}
	sc.Clients = []scenario.Client{c}
	if err := errors.Join(sc.Filter(nil, cfg.Faults, cfg.Schemas, cfg.Protocols, cfg.Transports), sc.FilterTools(cfg.Tools)); err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	var out []record.Cell
	for _, cell := range sc.Cells() {
		k := cell.Coordinates()
		k.Client = c.Name
		out = append(out, k)
	}
	return out, nil
}

// machinePaths are the folders of this machine that an install's or a run's words may name
// (the history's own, the caches', the home folder), each followed by what stands for it in
// history.json, longest first so a folder inside another is named as the inner one.
func machinePaths(work, cellCache string) []string {
	var pairs [][2]string
	addPath := func(dir, name string) {
		if dir == "" {
			return
		}
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		if dir != string(filepath.Separator) {
			pairs = append(pairs, [2]string{dir, name})
		}
	}
	addPath(work, "<history>")
	addPath(cellCache, "<cell cache>")
	if root, err := install.Root(); err == nil {
		addPath(root, "<install cache>")
	}
	if c, err := os.UserCacheDir(); err == nil {
		addPath(c, "<cache>")
	}
	if h, err := os.UserHomeDir(); err == nil {
		addPath(h, "~")
	}
	addPath(os.TempDir(), "<tmp>")
	slices.SortStableFunc(pairs, func(a, b [2]string) int { return len(b[0]) - len(a[0]) })
	var out []string
	for _, p := range pairs {
		out = append(out, p[0], p[1])
	}
	return out
}

// scrubbed is text with this machine's folders named instead of spelt out: history.json and
// the pages made of it are shared, and a cache's path says nothing of the client.
func (s *Search) scrubbed(text string) string {
	if len(s.scrub) == 0 || text == "" {
		return text
	}
	return strings.NewReplacer(s.scrub...).Replace(text)
}
