// Command dockerbench measures what the docker backend's sweep costs over bare container runs.
//
//	go run ./bench/dockerbench [-repeats 2] [-runs 1] [-parallel 1,2,4] [-floor api|cli]
//	                           [-profile auto|on|off] [-warmup 1] [-bin PATH] [-keep]
//
// It builds the static toolscore binary once into a temporary directory (CGO_ENABLED=0 go build
// -o $TMP/toolscore ./cmd/toolscore), gets the cell image with `$TMP/toolscore images build`
// (it prints `TAG built|up to date` per image; the built-in clients' toolscore/cell-builtin one
// is used), and then, for every parallelism P, one after the other
// in the same process so machine noise hits both alike (which goes first alternates by
// repeat), times
//
//	sweep  $TMP/toolscore run --backend docker --runs R --parallel P
//	       --clients raw,go-sdk/call,go-sdk/list-then-call --faults clean,corrupt,type-swap,rpc-error
//	       --out $TMP/out-P-i
//	       (the embedded scenario: 3 clients × 4 faults × 2 schema modes × R runs; the whole
//	       command's wall time, as a user sees it; the clients are named so that clients the
//	       scenario gains later, in cell images of their own, do not change what is measured)
//	floor  the same number of container runs of the same cell image at the same parallelism,
//	       each a bare `docker run --rm --network none IMAGE /opt/toolscore/toolscore version`:
//	       with -floor api (the default) through the Engine API (github.com/docker/docker/client
//	       with API version negotiation, as the backend connects): create, wait, start, the
//	       exit, remove; with -floor cli the docker CLI itself
//
// and prints a table (parallel, runs, sweep s, floor s, ratio, ms per run of each), the
// medians per P and whether each meets sweep <= 1.2 × floor.
//
// With -profile auto (the default) it then, when a target was missed, finds where the time of
// a run goes: it runs the same runs through a copy of docker.Backend.Run's loop that makes the
// same Engine API calls in the same order with the same configuration, timing each step:
// create (the command of incell.Command, /opt/toolscore/toolscore client NAME with
// TOOLSCORE_CELL_STREAM=1, so the client itself writes the cell's tar stream on stdout at its
// end); copy-in only when Run makes it (the image's io.toolscore.workdir label is not the cell
// user, 1000:1000, or the run's directory has input files: the built-in image has the label
// and the embedded scenario's runs have no input files, so it is skipped); attach; wait;
// start; the exit; the stream read to its end (incell.ReadStream, which writes the run's
// files into its directory); inspect; copy-out only when Run makes it (the stream was not
// whole); remove. Beside it, in the same mixed queue, run the floor's command in the cell's
// configuration (to tell the sandbox's cost from the rest) and the floor itself, and it prints
// the median per step of each. The run's transcript (the proxy's tee, come out in the stream,
// stamped by the same kernel clock) splits the "exit" step into the container starting, the
// MCP session itself, and the client ending (writing the stream) and the container going away.
//
// Containers this program creates itself carry the label io.toolscore.bench=<session> (and
// not io.toolscore, so no sweep or `toolscore clean` takes them for its own); each is removed
// by its id. Nothing else is removed.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"

	"github.com/toolscore/toolscore/bench/internal/enginebench"
	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/backend/docker"
	"github.com/toolscore/toolscore/internal/runner"
	"github.com/toolscore/toolscore/record"

	// The agents register themselves as clients: the ledger names them.
	"github.com/toolscore/toolscore/fault"
	_ "github.com/toolscore/toolscore/internal/agent"
	tsclient "github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/scenarios"
)

const (
	targetRatio = 1.2 // sweep wall time / floor wall time, median per parallelism
	faultList   = "clean,corrupt,type-swap,rpc-error"
	clientList  = "raw,go-sdk/call,go-sdk/list-then-call" // the built-in clients, in the cell image
	builtinRepo = "toolscore/cell-builtin"                // their cell image's name
)

type config struct {
	repeats, runs, warmup int
	pars                  []int
	floor, profile        string
	bin                   string
	keep                  bool
}

func main() {
	var c config
	flag.IntVar(&c.repeats, "repeats", 2, "timed sweep/floor pairs per parallelism")
	flag.IntVar(&c.runs, "runs", 1, "runs per cell (24 cells: 1 gives 24 runs per sweep, 2 gives 48)")
	par := flag.String("parallel", "1,2,4", "parallelism settings, comma-separated")
	flag.StringVar(&c.floor, "floor", "api", "how the floor runs its containers: api (Engine API) or cli (docker run --rm)")
	flag.StringVar(&c.profile, "profile", "auto", "time each Engine API step of a run: auto (when a target is missed), on, off")
	flag.IntVar(&c.warmup, "warmup", 1, "untimed small sweep/floor pairs first (2 runs each)")
	flag.StringVar(&c.bin, "bin", "", "an already built static toolscore binary (default: CGO_ENABLED=0 go build ./cmd/toolscore)")
	flag.BoolVar(&c.keep, "keep", false, "keep the temporary directory (its path is printed)")
	timeout := flag.Duration("timeout", 40*time.Minute, "give up (and stop everything started) after this long")
	flag.Parse()
	var err error
	if c.pars, err = parseInts(*par); err != nil {
		fmt.Fprintln(os.Stderr, "dockerbench: -parallel:", err)
		os.Exit(2)
	}
	if c.repeats < 1 || c.runs < 1 || c.warmup < 0 || (c.floor != "api" && c.floor != "cli") ||
		(c.profile != "auto" && c.profile != "on" && c.profile != "off") {
		fmt.Fprintln(os.Stderr, "dockerbench: -repeats and -runs must be at least 1, -warmup at least 0, -floor api|cli, -profile auto|on|off")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "dockerbench:", err)
		cancel()
		os.Exit(1)
	}
}

func parseInts(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a whole number above 0", f)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, errors.New("no parallelism given")
	}
	return out, nil
}

// bench is one invocation's state: the engine, the binary, the image, what it created.
type bench struct {
	cfg   config
	api   *client.Client
	sess  *enginebench.Session // the containers this program created
	tmp   string
	self  string
	image string
	// workdir is what docker.Backend.Run reads from the image's io.toolscore.workdir label:
	// whom the work directory belongs to (see docker.Prepared).
	workdir string
	sc      *scenario.Scenario
	opts    runner.Options // the runner's plan: its jobs, each run's spec and inputs
	plan    []runner.Job
}

func run(ctx context.Context, c config) error {
	fmt.Printf("$ %s\n", enginebench.CommandLine("./bench/dockerbench"))
	api, sv, err := enginebench.Connect(ctx)
	if err != nil {
		return err
	}
	defer api.Close()
	fmt.Printf("go %s %s/%s, %d CPUs; Docker Engine %s (API %s, negotiated %s, %s/%s) at %s\n",
		strings.TrimPrefix(runtime.Version(), "go"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(),
		sv.Version, sv.APIVersion, api.ClientVersion(), sv.Os, sv.Arch, api.DaemonHost())

	tmp, cleanup, err := enginebench.TempDir("dockerbench-", c.keep)
	if err != nil {
		return err
	}
	defer cleanup()
	b := &bench{cfg: c, api: api, sess: enginebench.NewSession(api), tmp: tmp}
	defer b.sess.RemoveLeft()

	if b.self, err = enginebench.Toolscore(ctx, tmp, c.bin); err != nil {
		return err
	}
	if b.image, err = b.ensureImage(ctx); err != nil {
		return err
	}
	if b.sc, err = loadScenario(c.runs); err != nil {
		return err
	}
	if b.opts, b.plan, err = plan(b.sc); err != nil {
		return err
	}
	n := len(b.plan)
	fmt.Printf("scenario: %s (embedded), --faults %s: %d clients × %d faults × %d schema modes = %d cells × %d runs = %d runs per sweep\n",
		scenarios.LedgerPath, faultList, len(b.sc.Clients), len(b.sc.Faults), len(b.sc.SchemaModes), len(b.sc.Cells()), c.runs, n)
	fmt.Println()
	fmt.Printf("  sweep  %s\n", strings.Join(b.sweepArgv("P", "$TMP/out-P-i", nil), " "))
	switch c.floor {
	case "api":
		fmt.Printf("  floor  %d container runs, P at a time, each through the Engine API: create {Image: %s, Cmd: [%s version],\n", n, b.image, backend.CellBinary)
		fmt.Printf("         HostConfig {NetworkMode: none}}, wait (next-exit), start, the exit, remove (force)\n")
		fmt.Printf("         = docker run --rm --network none %s %s version, minus the CLI process and its attach\n", b.image, backend.CellBinary)
	case "cli":
		fmt.Printf("  floor  %d container runs, P at a time, each: %s\n", n, strings.Join(floorCLIArgv(b.image), " "))
	}
	fmt.Println()

	for i := 0; i < c.warmup; i++ {
		wa := []string{"--clients", "raw", "--faults", "clean"}
		if _, err := b.sweep(ctx, c.pars[0], filepath.Join(tmp, fmt.Sprintf("out-warmup-%d", i+1)), wa, 2); err != nil {
			return fmt.Errorf("warm-up sweep: %w", err)
		}
		if _, err := b.floor(ctx, c.pars[0], 2); err != nil {
			return fmt.Errorf("warm-up floor: %w", err)
		}
	}
	if c.warmup > 0 {
		fmt.Printf("warm-up: %d untimed pair(s) of 2 runs each (sweep --clients raw --faults clean; floor)\n\n", c.warmup)
	}

	load0 := enginebench.LoadAvg()
	var rows []row
	for i := 1; i <= c.repeats; i++ {
		for _, p := range c.pars {
			r := row{par: p, repeat: i, runs: n, floorFirst: i%2 == 0}
			out := filepath.Join(tmp, fmt.Sprintf("out-%d-%d", p, i))
			doSweep := func() error {
				s, err := b.sweep(ctx, p, out, nil, n)
				r.sweep = s
				return err
			}
			doFloor := func() error {
				f, err := b.floor(ctx, p, n)
				r.floor = f
				return err
			}
			order := []func() error{doSweep, doFloor}
			if r.floorFirst {
				order = []func() error{doFloor, doSweep}
			}
			for _, f := range order {
				if err := f(); err != nil {
					return fmt.Errorf("parallel %d, repeat %d: %w", p, i, err)
				}
			}
			rows = append(rows, r)
			if !c.keep {
				_ = os.RemoveAll(out)
			}
		}
	}
	missed := printResults(rows, c, load0)

	if c.profile == "on" || (c.profile == "auto" && missed) {
		return b.profileSteps(ctx, rows)
	}
	return nil
}

// --- building, the image, the scenario -------------------------------------------------------

// ensureImage runs `toolscore images build` and takes the built-in clients' cell image from
// its output: one `TAG built ...|up to date` line per image. Images of other clients (built
// from registries) may fail to build here; they are not what is measured, so only the
// built-in one must be there.
func (b *bench) ensureImage(ctx context.Context) (string, error) {
	cmd := exec.CommandContext(ctx, b.self, "images", "build")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	err := cmd.Run()
	took := time.Since(t0).Round(time.Millisecond)
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		tag, state, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok || !strings.HasPrefix(tag, builtinRepo+":") {
			continue
		}
		if state != "up to date" && !strings.HasPrefix(state, "built") {
			return "", fmt.Errorf("toolscore images build printed %q, want `TAG built|up to date`", line)
		}
		note := ""
		if err != nil {
			note = fmt.Sprintf("; the command exited %v: other clients' images did not build, not used here", err)
		}
		fmt.Printf("image: $TMP/toolscore images build: %s (%s%s)\n", line, took, note)
		return tag, nil
	}
	return "", fmt.Errorf("toolscore images build printed no %s image (%v):\n%s%s", builtinRepo, err, stdout.String(), enginebench.Tail(stderr.Bytes(), 2000))
}

// loadScenario loads the embedded scenario as `toolscore run --faults ... --runs R` does.
func loadScenario(runs int) (*scenario.Scenario, error) {
	sc, err := scenario.Load(scenarios.LedgerPath, scenarios.Ledger, scenario.Known{Faults: fault.Names(), Clients: tsclient.Names(), Builtins: []string{"ledger"}})
	if err != nil {
		return nil, err
	}
	if err := sc.Filter(strings.Split(clientList, ","), strings.Split(faultList, ","), nil, nil, nil); err != nil {
		return nil, err
	}
	sc.Runs = runs
	return sc, nil
}

func (b *bench) sweepArgv(par, out string, extra []string) []string {
	faults := []string{"--clients", clientList, "--faults", faultList}
	if len(extra) > 0 {
		faults = extra
	}
	argv := []string{"$TMP/toolscore", "run", "--backend", "docker", "--runs", strconv.Itoa(b.cfg.runs), "--parallel", par}
	argv = append(argv, faults...)
	return append(argv, "--out", out)
}

func floorCLIArgv(image string) []string {
	return []string{"docker", "run", "--rm", "--network", "none", image, backend.CellBinary, "version"}
}

// --- the sweep -------------------------------------------------------------------------------

type sweepSide struct {
	wall     time.Duration
	setup    time.Duration // start of the command to its "N cells × R runs on the docker backend" line
	teardown time.Duration // its last cell's line to its exit
	runs     int           // records in runs.jsonl
	outcomes map[record.Outcome]int
	runMs    []float64 // each record's ms (backend.Result.Took: create to the end of the output)
	foreign  int       // the most containers of somebody else's running at once, sampled
}

// sweep runs `toolscore run` as a user runs it, timing the whole command, and reads its
// stderr as it comes to split off the set-up before the first run and the tail after the last.
func (b *bench) sweep(ctx context.Context, par int, out string, extra []string, want int) (sweepSide, error) {
	var s sweepSide
	argv := b.sweepArgv(strconv.Itoa(par), out, extra)
	cmd := exec.CommandContext(ctx, b.self, argv[1:]...)
	cmd.Dir = b.tmp
	cmd.WaitDelay = 10 * time.Second
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	pr, pw, err := os.Pipe()
	if err != nil {
		return s, err
	}
	cmd.Stderr = pw
	var stderr bytes.Buffer
	var header, lastCell time.Time
	read := make(chan struct{})
	t0 := time.Now()
	err = cmd.Start()
	pw.Close()
	if err != nil {
		pr.Close()
		return s, err
	}
	// The sweep's containers carry its owner label, host:pid of the sweep.
	owner := ":" + strconv.Itoa(cmd.Process.Pid)
	stop := b.sess.SampleForeign(ctx, &s.foreign, func(labels map[string]string) bool {
		return strings.HasSuffix(labels[docker.LabelOwner], owner)
	})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			now := time.Now()
			line := sc.Text()
			stderr.WriteString(line + "\n")
			switch {
			case header.IsZero() && strings.Contains(line, " on the docker backend "):
				header = now
			case strings.HasPrefix(line, "["):
				lastCell = now
			}
		}
		pr.Close()
	}()
	err = cmd.Wait()
	s.wall = time.Since(t0)
	<-read
	stop()
	if err != nil {
		return s, fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, enginebench.Tail(stderr.Bytes(), 3000))
	}
	if header.IsZero() || lastCell.IsZero() {
		return s, fmt.Errorf("the sweep did not print its header line or a cell line on the docker backend:\n%s", enginebench.Tail(stderr.Bytes(), 3000))
	}
	s.setup, s.teardown = header.Sub(t0), t0.Add(s.wall).Sub(lastCell)

	f, err := os.Open(filepath.Join(out, record.RunsFile))
	if err != nil {
		return s, err
	}
	defer f.Close()
	s.outcomes = map[record.Outcome]int{}
	scan := bufio.NewScanner(f)
	scan.Buffer(nil, 64<<20)
	for scan.Scan() {
		var rec struct {
			Outcome record.Outcome `json:"outcome"`
			Ms      int64          `json:"ms"`
		}
		if err := json.Unmarshal(scan.Bytes(), &rec); err != nil {
			return s, fmt.Errorf("runs.jsonl: %w", err)
		}
		s.runs++
		s.outcomes[rec.Outcome]++
		s.runMs = append(s.runMs, float64(rec.Ms))
	}
	if err := scan.Err(); err != nil {
		return s, err
	}
	if s.runs != want {
		return s, fmt.Errorf("runs.jsonl has %d runs, want %d", s.runs, want)
	}
	for _, bad := range []record.Outcome{record.Crashed, record.Hung} {
		if s.outcomes[bad] > 0 {
			return s, fmt.Errorf("%d run(s) %s: %s", s.outcomes[bad], bad, enginebench.Tail(stderr.Bytes(), 2000))
		}
	}
	return s, nil
}

// --- the floor -------------------------------------------------------------------------------

type floorSide struct {
	wall    time.Duration
	steps   []steps // per container run, in completion order (api)
	runMs   []float64
	foreign int
}

// floor runs n bare containers of the cell image, par at a time.
func (b *bench) floor(ctx context.Context, par, n int) (floorSide, error) {
	var f floorSide
	stop := b.sess.SampleForeign(ctx, &f.foreign, nil)
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	t0 := time.Now()
	for i := 0; i < n; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			t := time.Now()
			var st steps
			var err error
			if b.cfg.floor == "cli" {
				err = floorCLI(ctx, b.image)
			} else {
				st, err = b.floorAPI(ctx)
			}
			d := time.Since(t)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = err
			}
			f.runMs = append(f.runMs, enginebench.Ms(d))
			if st != nil {
				f.steps = append(f.steps, st)
			}
		}()
	}
	wg.Wait()
	f.wall = time.Since(t0)
	stop()
	return f, firstErr
}

func floorCLI(ctx context.Context, image string) error {
	argv := floorCLIArgv(image)
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v: %s", strings.Join(argv, " "), err, out)
	}
	if !bytes.HasPrefix(out, []byte("toolscore ")) {
		return fmt.Errorf("%s printed %q", strings.Join(argv, " "), out)
	}
	return nil
}

// floorAPI is `docker run --rm --network none IMAGE toolscore version` through the Engine API.
func (b *bench) floorAPI(ctx context.Context) (steps, error) {
	st := steps{}
	t := time.Now()
	lap := func(name string) { now := time.Now(); st[name] = now.Sub(t); t = now }
	id, err := b.sess.Create(ctx, &container.Config{Image: b.image, Cmd: []string{backend.CellBinary, "version"}},
		&container.HostConfig{NetworkMode: "none"})
	lap("create")
	if err != nil {
		return st, fmt.Errorf("floor: %w", err)
	}
	defer func() {
		t = time.Now()
		b.sess.Remove(ctx, id)
		lap("remove")
	}()
	code, err := b.sess.StartToExit(ctx, id, lap)
	if err != nil {
		return st, fmt.Errorf("floor: %w", err)
	}
	if code != 0 {
		return st, fmt.Errorf("floor: the container exited %d", code)
	}
	return st, nil
}

// --- the report ------------------------------------------------------------------------------

type row struct {
	par, repeat, runs int
	floorFirst        bool
	sweep             sweepSide
	floor             floorSide
}

func (r row) ratio() float64 { return r.sweep.wall.Seconds() / r.floor.wall.Seconds() }

// printResults prints the table and the medians; it says whether any parallelism missed.
func printResults(rows []row, c config, load0 string) bool {
	fmt.Printf("%8s %6s %5s %9s %9s %7s %10s %10s %8s %8s %9s %9s %5s %7s\n",
		"parallel", "repeat", "runs", "sweep s", "floor s", "ratio", "sweep ms/r", "floor ms/r",
		"setup s", "tail s", "sweep lat", "floor lat", "first", "foreign")
	for _, r := range rows {
		first := "sweep"
		if r.floorFirst {
			first = "floor"
		}
		fmt.Printf("%8d %6d %5d %9.2f %9.2f %7.3f %10.0f %10.0f %8.2f %8.2f %9.0f %9.0f %5s %7s\n",
			r.par, r.repeat, r.runs, r.sweep.wall.Seconds(), r.floor.wall.Seconds(), r.ratio(),
			enginebench.Ms(r.sweep.wall)/float64(r.runs), enginebench.Ms(r.floor.wall)/float64(r.runs),
			r.sweep.setup.Seconds(), r.sweep.teardown.Seconds(),
			enginebench.Median(r.sweep.runMs), enginebench.Median(r.floor.runMs), first,
			fmt.Sprintf("%d/%d", r.sweep.foreign, r.floor.foreign))
	}
	fmt.Println()
	fmt.Println("ratio = sweep s / floor s (target <= 1.2); ms/r = wall time / runs, the cost of a run at that parallelism")
	fmt.Println("setup s: sweep command start to its \"on the docker backend\" line (connect, sweep leftovers, ensure images);")
	fmt.Println("tail s: its last cell line to its exit (results, report, removing leftovers)")
	fmt.Println("sweep lat: median runs.jsonl ms per run (create to the end of the cell's stream; not inspect, copy-out, remove);")
	fmt.Println("floor lat: median time of one floor container run, create to removed")
	fmt.Println("foreign: the most running containers of somebody else's sampled during sweep/floor (a test suite sharing the engine)")
	fmt.Println()
	missed := false
	fmt.Printf("%8s %8s %12s %12s %13s %14s %14s  %s\n", "parallel", "repeats", "sweep s med", "floor s med", "ratio median", "sweep ms/r med", "floor ms/r med", "sweep <= 1.2 × floor")
	for _, p := range c.pars {
		var sw, fl, ra []float64
		runs := 0
		for _, r := range rows {
			if r.par == p {
				sw, fl, ra = append(sw, r.sweep.wall.Seconds()), append(fl, r.floor.wall.Seconds()), append(ra, r.ratio())
				runs = r.runs
			}
		}
		ok := enginebench.Median(ra) <= targetRatio
		missed = missed || !ok
		fmt.Printf("%8d %8d %12.2f %12.2f %13.3f %14.0f %14.0f  %s\n", p, len(ra),
			enginebench.Median(sw), enginebench.Median(fl), enginebench.Median(ra),
			enginebench.Median(sw)*1000/float64(runs), enginebench.Median(fl)*1000/float64(runs), verdict(ok))
	}
	fmt.Printf("\nfloor: %s; load average before %s, after %s\n", map[string]string{"api": "Engine API (create, wait, start, exit, remove)", "cli": "docker CLI"}[c.floor], load0, enginebench.LoadAvg())
	return missed
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}
