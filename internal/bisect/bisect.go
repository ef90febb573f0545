// Package bisect finds the first version of a client whose outcome in one cell differs from a
// good version's: it records the cell live at the good version with package sweep, then sweeps
// the versions between, as the package's registry lists them (package registry: npm, PyPI, the
// Go module proxy, crates.io, Maven Central), against that recording, halving the range.
// toolscore bisect is its command.
package bisect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/registry"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/sweep"
)

// Search is one bisection: the cell, the client, and where the versions' sweeps go.
type Search struct {
	Manifest                string          // the manifest's path; "" is the embedded ledger
	Client                  scenario.Client // the client, its version set for each sweep
	Fault, Schema, Protocol string          // the cell
	Transport               string
	Live                    bool   // every version runs live, none against the recording
	Work                    string // where each version's output directory goes
	Version                 string // toolscore's, recorded in each sweep's results
	Stderr                  io.Writer
	recording               string // the good version's output directory
}

// Probe is one version's run of the cell.
type Probe struct {
	Version  string
	Outcome  record.Outcome
	Evidence string
}

// Describe is the probe's outcome and its evidence, as plain text.
func (p *Probe) Describe() string {
	s := report.Plain(string(p.Outcome))
	if p.Evidence != "" {
		s += " (" + report.Plain(p.Evidence) + ")"
	}
	return s
}

// errUnbuilt is a version whose cell image could not be built (not served, or not installable).
var errUnbuilt = errors.New("its cell image could not be built")

// Run records the cell at versions[0], then halves versions for the first whose outcome
// differs; found is nil when the last one's does not. before is the version just before found
// (or the good one).
func (b *Search) Run(ctx context.Context, versions []string) (found, before *Probe, err error) {
	goodRun, err := b.run(ctx, versions[0])
	if err != nil {
		return nil, nil, fmt.Errorf("the good version %s: %w", versions[0], err)
	}
	if !b.Live {
		b.recording = filepath.Join(b.Work, versions[0])
	}
	last := len(versions) - 1
	badRun, err := b.run(ctx, versions[last])
	if err != nil {
		return nil, nil, fmt.Errorf("the bad version %s: %w", versions[last], err)
	}
	if badRun.Outcome == goodRun.Outcome {
		if !b.Live {
			b.liveCheck(ctx, versions[last], goodRun)
		}
		return nil, badRun, nil
	}
	probes := map[string]*Probe{versions[0]: goodRun, versions[last]: badRun}
	lo, hi := 0, last
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		p, err := b.run(ctx, versions[mid])
		if errors.Is(err, errUnbuilt) {
			fmt.Fprintf(b.Stderr, "toolscore bisect: %s: %v; left out\n", versions[mid], err)
			versions = slices.Delete(versions, mid, mid+1)
			hi--
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("version %s: %w", versions[mid], err)
		}
		probes[versions[mid]] = p
		if p.Outcome == goodRun.Outcome {
			lo = mid
		} else {
			hi = mid
		}
	}
	return probes[versions[hi]], probes[versions[lo]], nil
}

// liveCheck runs the bad version live when it did what the good one did against the recording,
// and says so when live it does not: the change is then in what the server answers it.
func (b *Search) liveCheck(ctx context.Context, version string, good *Probe) {
	recording := b.recording
	b.recording, b.Live = "", true
	defer func() { b.recording, b.Live = recording, false }()
	p, err := b.runIn(ctx, version, filepath.Join(b.Work, version+"-live"))
	if err != nil || p.Outcome == good.Outcome {
		return
	}
	fmt.Fprintf(b.Stderr, "toolscore bisect: live, %s gives %s: the change is in what the server answers it, which %s's recording cannot show (it answers as the server answered %s); bisect with --live\n",
		report.Plain(version), p.Describe(), report.Plain(good.Version), report.Plain(good.Version))
}

// run sweeps the cell with the client at version: live for the good version (and for every
// one with --live), against its recording for every other.
func (b *Search) run(ctx context.Context, version string) (*Probe, error) {
	return b.runIn(ctx, version, filepath.Join(b.Work, version))
}

func (b *Search) runIn(ctx context.Context, version, out string) (*Probe, error) {
	sc, err := sweep.Load(b.Manifest)
	if err != nil {
		return nil, err
	}
	c := b.Client
	c.Version = version
	sc.Clients = []scenario.Client{c}
	sc.Expect = nil
	a := sweep.Config{
		Scenario: b.Manifest, Faults: only(b.Fault), Schemas: only(b.Schema), Protocols: only(b.Protocol), Transports: only(b.Transport), Runs: 1, Parallel: 1, Backend: "docker", Out: out,
		FailOn: report.FailOnNever, Replay: b.recording,
		Version: b.Version, Stderr: b.Stderr,
	}
	res, _, err := sweep.Sweep(ctx, sc, a)
	if code := exitcode.Of(err); err != nil || code != 0 {
		return nil, fmt.Errorf("the sweep exited %d: %v", code, err)
	}
	if len(res.Unavailable) > 0 {
		return nil, fmt.Errorf("%w: %s", errUnbuilt, res.Unavailable[0].Reason)
	}
	recs := record.RunsIn(out)
	if len(recs) != 1 {
		return nil, fmt.Errorf("%s holds %d runs, want 1", out, len(recs))
	}
	p := &Probe{Version: version, Outcome: recs[0].Outcome, Evidence: recs[0].Evidence}
	how := "against the recording"
	if b.recording == "" {
		how = "live"
	}
	if b.recording == "" && !b.Live {
		// The other versions play against this run's transcript: without one there is no search.
		if _, err := os.Stat(filepath.Join(out, recs[0].Tee)); err != nil {
			return nil, fmt.Errorf("its live run left no transcript to replay to the other versions (%s): %w", p.Describe(), err)
		}
	}
	fmt.Fprintf(b.Stderr, "toolscore bisect: %s %s, %s: %s\n", report.Plain(c.Name), report.Plain(version), how, p.Describe())
	return p, nil
}

// GoVersion is a Go module version as the module proxy writes it, with its v.
func GoVersion(v string) string {
	if v != "" && !strings.HasPrefix(v, "v") {
		return "v" + v
	}
	return v
}

// VersionRange is the versions from good to bad, both included, in the registry's order (as
// registry.Releases lists them), leaving out pre-releases between them.
func VersionRange(releases []registry.Release, good, bad string) ([]string, error) {
	at := func(v string) int {
		return slices.IndexFunc(releases, func(r registry.Release) bool { return r.Version == v })
	}
	i, j := at(good), at(bad)
	switch {
	case i < 0:
		return nil, fmt.Errorf("--good %s is not a published version", good)
	case j < 0:
		return nil, fmt.Errorf("--bad %s is not a published version", bad)
	case j <= i:
		return nil, fmt.Errorf("--bad %s is not later than --good %s", bad, good)
	}
	out := []string{good}
	for _, r := range releases[i+1 : j] {
		if !r.Pre {
			out = append(out, r.Version)
		}
	}
	return append(out, bad), nil
}

// only is the one value of an axis the cell names, or nil (the whole axis) for "".
func only(v string) []string {
	if v == "" {
		return nil
	}
	return []string{v}
}
