package sweep

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/scenarios"
	"github.com/toolscore/toolscore/tally"
)

// recordedArgs is how a sweep was asked for, as its sweep.json keeps it for Resume: the
// Config as it took effect (the runs per cell, the backend chosen, the manifest's absolute
// path), so a resumed sweep is the sweep that was started. Its fields and their order are
// sweep.json's, which older toolscores wrote too: the axes comma-separated, the shard "i/n".
type recordedArgs struct {
	Scenario                                               string
	Clients, Faults, Schemas, Protocols, Transports, Tools string
	Runs, MaxRuns, Parallel                                int
	Shard, Backend, Out                                    string
	FailOn                                                 report.FailOn
	Replay                                                 string
	// ShardBy and Owner: a planned shard, its results file and the shard of every cell.
	ShardBy string `json:",omitempty"`
	Owner   []int  `json:",omitempty"`
	// Cache is the cell cache's folder, absolute; "" for none.
	Cache string `json:",omitempty"`
}

// sweepRecord is what sweep.json says of the sweep a asks for on the backend named backend,
// with sc loaded and narrowed.
func sweepRecord(a Config, sc *scenario.Scenario, backend string) outdir.Sweep {
	r := recordedArgs{
		Clients: join(a.Clients), Faults: join(a.Faults), Schemas: join(a.Schemas), Protocols: join(a.Protocols), Transports: join(a.Transports), Tools: join(a.Tools),
		Runs: sc.Runs, MaxRuns: a.MaxRuns, Parallel: a.Parallel, Shard: shardString(a.Shard, a.Shards), Backend: backend,
		FailOn: a.FailOn, Replay: a.Replay, ShardBy: a.ShardBy, Owner: a.owner,
	}
	if r.Replay != "" {
		r.Replay, _ = filepath.Abs(r.Replay)
	}
	if a.Cache != "" {
		r.Cache, _ = filepath.Abs(a.Cache)
	}
	s := outdir.Sweep{ID: rand.Text()}
	// A manifest that cannot be read now was read a moment ago; its digest stays empty, and a
	// resume refuses to guess.
	s.Manifest, s.SHA256, _ = manifestDigest(a.Scenario)
	r.Scenario = s.Manifest
	s.Args, _ = json.Marshal(r)
	return s
}

// Build is the identity of the running toolscore: its version and the SHA-256 of its binary, so
// two builds both called "dev" still differ, and, when its runs start another toolscore binary
// (self, as a program that calls Reenter may name), that binary's SHA-256 too: the runs' proxies
// and Go adapters are its code. Any change to the code changes it, an observation parsed or a
// record written differently included; a rebuild of the same source with the same Go and flags
// does not (Go's builds are reproducible). A sweep records it, a resume by another build is
// refused, and the cell cache keys every cell with it. err says a binary could not be read, and
// then the build is not known: two such builds could differ.
func Build(version, self string) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return version + " (binary sha256:unknown)", fmt.Errorf("finding toolscore's own binary: %w", err)
	}
	sum, err := binaryDigest(exe)
	b := version + " (binary sha256:" + sum + ")"
	if self == "" || err != nil || sameFile(self, exe) {
		return b, err
	}
	runs, err := binaryDigest(self)
	return b + " (runs' binary sha256:" + runs + ")", err
}

func sameFile(a, b string) bool {
	ia, err := os.Stat(a)
	if err != nil {
		return false
	}
	ib, err := os.Stat(b)
	return err == nil && os.SameFile(ia, ib)
}

// binaryDigest hashes a binary once per process and path: it is tens of megabytes.
func binaryDigest(path string) (string, error) {
	digestMu.Lock()
	defer digestMu.Unlock()
	if d, ok := digests[path]; ok {
		return d.sum, d.err
	}
	sum, err := fileDigest(path)
	digests[path] = digest{sum, err}
	return sum, err
}

type digest struct {
	sum string
	err error
}

var (
	digestMu sync.Mutex
	digests  = map[string]digest{}
)

// fileDigest is the first 16 hex digits of the SHA-256 of the file at path, "unknown" when it
// cannot be read.
func fileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "unknown", fmt.Errorf("reading toolscore's binary to know its build: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unknown", fmt.Errorf("reading toolscore's binary %s to know its build: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// manifestDigest is the absolute path of the manifest at path ("" is the embedded ledger, and
// stays "") and the SHA-256 of its bytes.
func manifestDigest(path string) (abs, sum string, err error) {
	data := scenarios.Ledger
	if path != "" {
		if abs, err = filepath.Abs(path); err != nil {
			return "", "", err
		}
		if data, err = scenario.ReadFile(abs); err != nil {
			return abs, "", err
		}
	}
	h := sha256.Sum256(data)
	return abs, hex.EncodeToString(h[:]), nil
}

// NoCache, as Resume's Config.Cache, resumes a sweep without the cell cache it recorded.
const NoCache = "off"

// Resume is toolscore run --resume DIR: the sweep that dir's sweep.json records, run on from its
// runs.jsonl. Of c it reads Parallel and FailOn, which replace the recorded ones when set, Cache
// (another cell cache's folder, or NoCache; "" keeps the recorded one), and Version, Self,
// Stdout and Stderr; the scenario and every other field are the recorded ones.
// It returns what Sweep does; a sweep that cannot be resumed is a usage error.
func Resume(ctx context.Context, dir string, c Config) (res *tally.Results, out string, err error) {
	_, stderr := c.writers()
	usage := func(format string, args ...any) (*tally.Results, string, error) {
		return nil, dir, exitcode.UsageError(fmt.Errorf(format, args...))
	}
	s, err := outdir.ReadSweep(dir)
	if err != nil {
		return usage("cannot resume: %v", err)
	}
	var rec recordedArgs
	if err := json.Unmarshal(s.Args, &rec); err != nil || len(s.Args) == 0 {
		return usage("cannot resume: %s does not say how the sweep was run (%v)", filepath.Join(dir, record.SweepFile), err)
	}
	name := rec.Scenario
	if name == "" {
		name = "the embedded " + scenarios.LedgerPath
	}
	_, sum, err := manifestDigest(rec.Scenario)
	switch {
	case err != nil:
		return usage("cannot resume %s: its scenario %s: %v", dir, report.Plain(name), err)
	case s.SHA256 == "" || sum != s.SHA256:
		return usage("cannot resume %s: its scenario %s changed since the sweep started (sha256 %.12s then, %.12s now), and runs of two manifests do not add up; start a new sweep",
			dir, report.Plain(name), s.SHA256, sum)
	}
	sc, err := Load(rec.Scenario)
	if err != nil {
		return nil, dir, exitcode.UsageError(err)
	}
	shard, shards, err := ParseShard(rec.Shard)
	if err != nil {
		return usage("cannot resume: %s records the shard %w", filepath.Join(dir, record.SweepFile), err)
	}
	a := Config{
		Scenario: rec.Scenario, Clients: split(rec.Clients), Faults: split(rec.Faults), Schemas: split(rec.Schemas), Protocols: split(rec.Protocols), Transports: split(rec.Transports), Tools: split(rec.Tools),
		Runs: rec.Runs, MaxRuns: rec.MaxRuns, Parallel: rec.Parallel, Shard: shard, Shards: shards, Backend: rec.Backend, Out: dir,
		FailOn: rec.FailOn, Replay: rec.Replay, ShardBy: rec.ShardBy, owner: rec.Owner,
		Version: c.Version, Self: c.Self, Stdout: c.Stdout, Stderr: c.Stderr, Cache: rec.Cache,
	}
	switch c.Cache {
	case "":
	case NoCache:
		a.Cache = ""
	default:
		a.Cache = c.Cache
	}
	if c.Parallel != 0 {
		a.Parallel = c.Parallel
	}
	if c.FailOn != "" {
		a.FailOn = c.FailOn
	}
	now, err := Build(c.Version, c.Self)
	if err != nil && s.Build != "" {
		return usage("cannot resume %s: this toolscore's build cannot be told the same as the one that started it: %w", dir, err)
	}
	if s.Build != "" && s.Build != now {
		return usage("cannot resume %s: it was started by toolscore %s, this is toolscore %s: the runs of two builds do not add up; resume it with the toolscore that started it, or start a new sweep",
			dir, report.Plain(s.Build), now)
	}
	fmt.Fprintf(stderr, "resuming the sweep in %s, started %s\n", report.Plain(dir), s.Plan.Started.Local().Format("2006-01-02 15:04:05 MST"))
	if s.Build == "" {
		// An older toolscore's sweep.json: what it ran cannot be compared, only its version.
		fmt.Fprintf(stderr, "warning: %s predates the record of toolscore's build and of the clients' adapters: a change to either since the sweep started cannot be told, and its runs would be counted together\n", filepath.Join(report.Plain(dir), record.SweepFile))
		if s.Plan.Toolscore != c.Version {
			fmt.Fprintf(stderr, "warning: the sweep was started by toolscore %s, this is %s: the runs of both are counted together\n", report.Plain(s.Plan.Toolscore), c.Version)
		}
	}
	return sweep(ctx, sc, a, true)
}

// join is an axis of Config as sweep.json records it, comma-separated.
func join(values []string) string { return strings.Join(values, ",") }

// split is an axis recorded by join (or by an older toolscore, as its flag was given).
func split(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
