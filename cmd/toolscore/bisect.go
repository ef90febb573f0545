package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/toolscore/toolscore/runner"
	"github.com/toolscore/toolscore/runner/backend"
	"github.com/toolscore/toolscore/runner/client"
	"github.com/toolscore/toolscore/runner/exitcode"
	"github.com/toolscore/toolscore/runner/report"
	"github.com/toolscore/toolscore/runner/scenario"
	"github.com/toolscore/toolscore/sweep"
)

// bisectCmd finds the first version of a client whose outcome in one cell differs from a good
// version's, each version built as its own cell image and run against the good version's
// recorded transcript, searched by halving.
func bisectCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bisect", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: toolscore bisect --client NAME --good V1 --bad V2 --cell FAULT/SCHEMA[/PROTOCOL[/TRANSPORT]] [--live] [SCENARIO]\n\nRecords the cell live with the client at V1 (docker backend), then runs the versions between\nV1 and V2, as the package's registry lists them, against that recording, halving the range,\nand prints the first version whose outcome differs from V1's, with both outcomes and their\nevidence. Exit 0 when it found one, 1 when V2's outcome is V1's, 2 on a usage error.\n\nflags:")
		fs.PrintDefaults()
	}
	name := fs.String("client", "", "the client, as the manifest names it (e.g. ts-sdk/list-then-call): one whose cell image installs a version, or a Go client, built for each")
	good := fs.String("good", "", "a version with the outcome to keep (recorded live)")
	bad := fs.String("bad", "", "a later version with another outcome")
	cellFlag := fs.String("cell", "", "the cell: FAULT/SCHEMA, FAULT/SCHEMA/PROTOCOL or FAULT/SCHEMA/PROTOCOL/TRANSPORT (default: the scenario's first protocol and transport)")
	live := fs.Bool("live", false, "run every version live against the server, not against V1's recording: for a change in what a client asks of the server (a newer protocol revision it offers), which a recording cannot answer")
	work := fs.String("work", "", "where to keep each version's output directory (default: a new directory under the system's temporary one)")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	usage := func(format string, a ...any) error {
		err := fmt.Errorf(format, a...)
		fmt.Fprintln(os.Stderr, "toolscore bisect:", err)
		return exitcode.UsageError(err)
	}
	if *name == "" || *good == "" || *bad == "" || *cellFlag == "" || len(positional) > 1 {
		fs.Usage()
		return exitcode.UsageError(errors.New("bisect needs --client, --good, --bad and --cell, and at most one scenario"))
	}
	manifest := ""
	if len(positional) == 1 {
		manifest = positional[0]
	}
	cellParts := strings.Split(*cellFlag, "/")
	if len(cellParts) < 2 || len(cellParts) > 4 {
		return usage("--cell %q: want FAULT/SCHEMA, FAULT/SCHEMA/PROTOCOL or FAULT/SCHEMA/PROTOCOL/TRANSPORT", *cellFlag)
	}
	d, _, ok := client.Lookup(*name)
	var pin backend.Pin
	switch {
	case ok && d.Module != "":
		// A Go client is built from its module at each version (backend.GoAdapter).
		pin = backend.Pin{Registry: "Go", Package: d.Module}
		*good, *bad = goVersion(*good), goVersion(*bad)
	case ok && d.Contained() && d.Image.VersionArg != "":
		if pin, err = backend.ImagePin(d.Image.Dir); err != nil {
			return usage("--client %s: %v", *name, err)
		}
	default:
		return usage("--client %q: bisect needs a client whose cell image installs a version from a registry, or a Go client (%v)", *name, client.Versioned())
	}
	sc, err := sweep.Load(manifest)
	if err != nil {
		sweep.PrintLoadError(os.Stderr, err)
		return exitcode.UsageError(err)
	}
	b := &bisection{manifest: manifest, fault: cellParts[0], schema: cellParts[1], live: *live, stderr: os.Stderr}
	if len(cellParts) >= 3 {
		b.protocol = cellParts[2]
	} else if len(sc.Protocols) > 0 {
		b.protocol = string(sc.Protocols[0])
	}
	if len(cellParts) == 4 {
		b.transport = cellParts[3]
	} else if len(sc.Transports) > 0 {
		b.transport = string(sc.Transports[0])
	}
	b.client = scenario.Client{Name: *name}
	for _, c := range sc.Clients {
		if c.Name == *name {
			b.client = c
		}
	}
	versions, err := registryVersions(ctx, pin.Registry, pin.Package)
	if err != nil {
		return usage("%v", err)
	}
	between, err := versionRange(versions, *good, *bad)
	if err != nil {
		return usage("%s: %v", pin.Package, err)
	}
	b.work = *work
	if b.work == "" {
		if b.work, err = os.MkdirTemp("", "toolscore-bisect-"); err != nil {
			return usage("%v", err)
		}
	}
	fmt.Fprintf(os.Stderr, "toolscore bisect: %s %s..%s: %d versions of %s on %s; outputs in %s\n",
		*name, *good, *bad, len(between), pin.Package, pin.Registry, b.work)
	found, before, err := b.search(ctx, between)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore bisect:", err)
		return exitcode.Failed(err)
	}
	if found == nil {
		fmt.Printf("%s %s and %s both: %s\n", *name, *good, *bad, before.describe())
		return exitcode.Failed(fmt.Errorf("%s %s and %s have one outcome", *name, *good, *bad))
	}
	fmt.Printf("first version whose outcome differs from %s's: %s %s\n", *good, *name, found.version)
	fmt.Printf("  %s: %s\n", found.version, found.describe())
	fmt.Printf("  %s (the version before): %s\n", before.version, before.describe())
	return nil
}

// bisection is one search: the cell, the client, and where the versions' sweeps go.
type bisection struct {
	manifest                string
	client                  scenario.Client
	fault, schema, protocol string
	transport               string
	live                    bool // every version runs live, none against the recording
	work                    string
	recording               string // the good version's output directory
	stderr                  io.Writer
}

// probe is one version's run of the cell.
type probe struct {
	version, outcome, evidence string
}

func (p *probe) describe() string {
	s := report.Plain(p.outcome)
	if p.evidence != "" {
		s += " (" + report.Plain(p.evidence) + ")"
	}
	return s
}

// errUnbuilt is a version whose cell image could not be built (not served, or not installable).
var errUnbuilt = errors.New("its cell image could not be built")

// search records the cell at versions[0], then halves versions for the first whose outcome
// differs; found is nil when the last one's does not. before is the version just before found
// (or the good one).
func (b *bisection) search(ctx context.Context, versions []string) (found, before *probe, err error) {
	goodRun, err := b.run(ctx, versions[0])
	if err != nil {
		return nil, nil, fmt.Errorf("the good version %s: %w", versions[0], err)
	}
	if !b.live {
		b.recording = filepath.Join(b.work, versions[0])
	}
	last := len(versions) - 1
	badRun, err := b.run(ctx, versions[last])
	if err != nil {
		return nil, nil, fmt.Errorf("the bad version %s: %w", versions[last], err)
	}
	if badRun.outcome == goodRun.outcome {
		if !b.live {
			b.liveCheck(ctx, versions[last], goodRun)
		}
		return nil, badRun, nil
	}
	probes := map[string]*probe{versions[0]: goodRun, versions[last]: badRun}
	lo, hi := 0, last
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		p, err := b.run(ctx, versions[mid])
		if errors.Is(err, errUnbuilt) {
			fmt.Fprintf(b.stderr, "toolscore bisect: %s: %v; left out\n", versions[mid], err)
			versions = slices.Delete(versions, mid, mid+1)
			hi--
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("version %s: %w", versions[mid], err)
		}
		probes[versions[mid]] = p
		if p.outcome == goodRun.outcome {
			lo = mid
		} else {
			hi = mid
		}
	}
	return probes[versions[hi]], probes[versions[lo]], nil
}

// liveCheck runs the bad version live when it did what the good one did against the recording,
// and says so when live it does not: the change is then in what the server answers it.
func (b *bisection) liveCheck(ctx context.Context, version string, good *probe) {
	recording := b.recording
	b.recording, b.live = "", true
	defer func() { b.recording, b.live = recording, false }()
	p, err := b.runIn(ctx, version, filepath.Join(b.work, version+"-live"))
	if err != nil || p.outcome == good.outcome {
		return
	}
	fmt.Fprintf(b.stderr, "toolscore bisect: live, %s gives %s: the change is in what the server answers it, which %s's recording cannot show (it answers as the server answered %s); bisect with --live\n",
		report.Plain(version), p.describe(), report.Plain(good.version), report.Plain(good.version))
}

// run sweeps the cell with the client at version: live for the good version (and for every
// one with --live), against its recording for every other.
func (b *bisection) run(ctx context.Context, version string) (*probe, error) {
	return b.runIn(ctx, version, filepath.Join(b.work, version))
}

func (b *bisection) runIn(ctx context.Context, version, out string) (*probe, error) {
	sc, err := sweep.Load(b.manifest)
	if err != nil {
		return nil, err
	}
	c := b.client
	c.Version = version
	sc.Clients = []scenario.Client{c}
	sc.Expect = nil
	a := sweep.Config{
		Scenario: b.manifest, Faults: b.fault, Schemas: b.schema, Protocols: b.protocol, Transports: b.transport, Runs: 1, Parallel: 1, Backend: "docker", Out: out,
		FailOn: report.FailOnNever, Replay: b.recording,
		Version: version, Stderr: b.stderr,
	}
	res, _, err := sweep.Sweep(ctx, sc, a)
	if code := exitcode.Of(err); err != nil || code != 0 {
		return nil, fmt.Errorf("the sweep exited %d: %v", code, err)
	}
	if len(res.Unavailable) > 0 {
		return nil, fmt.Errorf("%w: %s", errUnbuilt, res.Unavailable[0].Reason)
	}
	recs := replayRecords(out)
	if len(recs) != 1 {
		return nil, fmt.Errorf("%s holds %d runs, want 1", out, len(recs))
	}
	p := &probe{version: version, outcome: recs[0].Outcome, evidence: recs[0].Evidence}
	how := "against the recording"
	if b.recording == "" {
		how = "live"
	}
	if b.recording == "" && !b.live {
		// The other versions play against this run's transcript: without one there is no search.
		if _, err := os.Stat(filepath.Join(out, recs[0].Tee)); err != nil {
			return nil, fmt.Errorf("its live run left no transcript to replay to the other versions (%s): %w", p.describe(), err)
		}
	}
	fmt.Fprintf(b.stderr, "toolscore bisect: %s %s, %s: %s\n", report.Plain(c.Name), report.Plain(version), how, p.describe())
	return p, nil
}

// replayRecords reads the run records of an output directory.
func replayRecords(dir string) []runner.RunRecord {
	f, err := os.Open(filepath.Join(dir, "runs.jsonl"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var recs []runner.RunRecord
	for d := json.NewDecoder(f); ; {
		var r runner.RunRecord
		if d.Decode(&r) != nil {
			return recs
		}
		recs = append(recs, r)
	}
}

// registryVersions lists a package's published versions, oldest first, from its registry
// through the registry's own client.
func registryVersions(ctx context.Context, registry, pkg string) ([]string, error) {
	switch registry {
	case "npm":
		out, err := exec.CommandContext(ctx, "npm", "view", pkg, "versions", "--json").Output()
		if err != nil {
			return nil, fmt.Errorf("npm view %s versions: %w", pkg, commandErr(err))
		}
		var vs []string
		if err := json.Unmarshal(out, &vs); err != nil {
			return nil, fmt.Errorf("npm view %s versions: not a JSON list: %w", pkg, err)
		}
		return vs, nil
	case "PyPI":
		out, err := exec.CommandContext(ctx, "python3", "-m", "pip", "index", "versions", pkg).Output()
		if err != nil {
			return nil, fmt.Errorf("pip index versions %s: %w", pkg, commandErr(err))
		}
		for _, line := range strings.Split(string(out), "\n") {
			if list, ok := strings.CutPrefix(strings.TrimSpace(line), "Available versions:"); ok {
				vs := strings.Split(list, ",")
				for i := range vs {
					vs[i] = strings.TrimSpace(vs[i])
				}
				slices.Reverse(vs) // pip lists the newest first
				return vs, nil
			}
		}
		return nil, fmt.Errorf("pip index versions %s: no \"Available versions:\" line in %q", pkg, out)
	case "Go":
		// Outside any module, so the list is the module proxy's, as go get would see it.
		cmd := exec.CommandContext(ctx, "go", "list", "-m", "-versions", "-json", pkg)
		cmd.Dir, cmd.Env = os.TempDir(), append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go list -m -versions %s: %w", pkg, commandErr(err))
		}
		var m struct{ Versions []string }
		if err := json.Unmarshal(out, &m); err != nil {
			return nil, fmt.Errorf("go list -m -versions %s: %w", pkg, err)
		}
		return m.Versions, nil
	}
	return nil, fmt.Errorf("no registry client for %s packages", registry)
}

func commandErr(err error) error {
	var exit *exec.ExitError
	if errors.As(err, &exit) && len(exit.Stderr) > 0 {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(exit.Stderr)))
	}
	return err
}

// release is a version that is no pre-release: numbers and dots (after a v for Go), or a PyPI
// post-release.
var release = regexp.MustCompile(`^v?[0-9]+(\.[0-9]+)*(\.post[0-9]+)?$`)

// goVersion is a Go module version as the module proxy writes it, with its v.
func goVersion(v string) string {
	if v != "" && !strings.HasPrefix(v, "v") {
		return "v" + v
	}
	return v
}

// versionRange is versions from good to bad, both included, in the registry's order, leaving
// out pre-releases between them.
func versionRange(versions []string, good, bad string) ([]string, error) {
	i, j := slices.Index(versions, good), slices.Index(versions, bad)
	switch {
	case i < 0:
		return nil, fmt.Errorf("--good %s is not a published version", good)
	case j < 0:
		return nil, fmt.Errorf("--bad %s is not a published version", bad)
	case j <= i:
		return nil, fmt.Errorf("--bad %s is not later than --good %s", bad, good)
	}
	out := []string{good}
	for _, v := range versions[i+1 : j] {
		if release.MatchString(v) {
			out = append(out, v)
		}
	}
	return append(out, bad), nil
}
