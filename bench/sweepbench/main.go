// Command sweepbench measures what the local sweep costs over the work it runs.
//
//	go run ./bench/sweepbench [-parallel 2] [-repeats 3] [-warmup 1] [-bin PATH] [-keep]
//
// It builds toolscore once into a temporary directory and writes a manifest there: the embedded
// scenarios/ledger.yaml without its latency fault (a sleep, which would hide the overhead) and
// without the clients that are not built into toolscore (they run only on the docker backend),
// with runs: 3. Then, alternating A/B/A/B... in one process so machine noise hits both alike, it times
//
//	A  sweep  $TMP/toolscore run $TMP/ledger.yaml --backend local --parallel P --out $TMP/sweep-N
//	          (the whole command's wall time, as a user sees it)
//	B  loop   the same cells × runs, each run exactly the command the runner starts for it,
//	          $TMP/toolscore client NAME with TOOLSCORE_SERVER (the proxy flags runner.runOne
//	          builds), TOOLSCORE_TOOL and TOOLSCORE_ARGUMENTS, in the run's directory, from a
//	          pool of P goroutines behind a semaphore; only each run's stdout is kept
//
// and prints, per repeat, both wall times, their ratio and the runner's overhead per run
// ((A-B)/runs), then the median ratio against the target 1.15. Both sides must produce one
// observation per run; the observations of the two sides are also compared run by run (same
// seed, same bytes on the wire, so the same observation). The machine's noise (the spread of
// one side over the repeats) and the load average are printed beside the verdict: on a shared
// 2-CPU machine it can exceed the 15% margin under test.
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
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/toolscore/toolscore/runner/backend"
	"github.com/toolscore/toolscore/runner/client"
	"github.com/toolscore/toolscore/runner/fault"
	"github.com/toolscore/toolscore/runner/scenario"
	"github.com/toolscore/toolscore/scenarios"
)

const targetRatio = 1.15 // sweep wall time / plain loop wall time, median over repeats

func main() {
	parallel := flag.Int("parallel", 2, "runs at once, on both sides")
	repeats := flag.Int("repeats", 3, "timed A/B pairs")
	warmup := flag.Int("warmup", 1, "untimed A/B pairs before the timed ones")
	bin := flag.String("bin", "", "an already built toolscore binary (default: go build ./cmd/toolscore)")
	keep := flag.Bool("keep", false, "keep the temporary directory (its path is printed)")
	timeout := flag.Duration("timeout", 10*time.Minute, "give up (and stop every process started) after this long")
	flag.Parse()
	if *parallel < 1 || *repeats < 1 || *warmup < 0 {
		fmt.Fprintln(os.Stderr, "sweepbench: -parallel and -repeats must be at least 1, -warmup at least 0")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, *parallel, *repeats, *warmup, *bin, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "sweepbench:", err)
		cancel()
		os.Exit(1)
	}
}

// commandLine is how the program was invoked, with go run's temporary binary named as the
// package it was built from.
func commandLine() string {
	name := os.Args[0]
	if strings.Contains(name, "go-build") {
		name = "go run ./bench/sweepbench"
	}
	return strings.Join(append([]string{name}, os.Args[1:]...), " ")
}

func run(ctx context.Context, parallel, repeats, warmup int, bin string, keep bool) error {
	fmt.Printf("$ %s\n", commandLine())
	fmt.Printf("go %s %s/%s, %d CPUs, GOMAXPROCS %d; parallel %d, %d timed A/B pairs after %d warm-up pair(s)\n",
		strings.TrimPrefix(runtime.Version(), "go"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0),
		parallel, repeats, warmup)

	tmp, err := os.MkdirTemp("", "sweepbench-")
	if err != nil {
		return err
	}
	// The runner names itself by os.Executable, which has every symlink resolved; so must we.
	if tmp, err = filepath.EvalSymlinks(tmp); err != nil {
		return err
	}
	if keep {
		fmt.Printf("temporary directory (kept): %s\n", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	self, err := build(ctx, tmp, bin)
	if err != nil {
		return err
	}
	manifest, sc, err := writeManifest(tmp)
	if err != nil {
		return err
	}
	jobs := plan(sc, self)
	fmt.Printf("manifest: %s = %s without the latency fault, built-in clients only, runs: %d: %d faults × %d schema modes × %d clients = %d cells × %d runs = %d runs\n",
		short(manifest, tmp), scenarios.LedgerPath, sc.Runs, len(sc.Faults), len(sc.SchemaModes), len(sc.Clients), len(sc.Cells()), sc.Runs, len(jobs))
	fmt.Println()
	fmt.Printf("  A sweep  %s\n", strings.Join(shortAll(sweepArgv(self, manifest, parallel, "$TMP/sweep-N"), tmp), " "))
	fmt.Printf("  B loop   %d workers, per run (cwd and TMPDIR the run's directory, as the local backend sets them):\n", parallel)
	ex := jobs[0]
	for _, j := range jobs {
		if j.decoy { // the longest command line: show it
			ex = j
			break
		}
	}
	exDir := filepath.Join("$TMP/loop-N", ex.rel)
	fmt.Printf("           %s=%s \\\n", client.EnvServer, shellQuote(string(mustJSON(shortAll(ex.server(exDir), tmp)))))
	fmt.Printf("           %s=%s %s=%s \\\n", client.EnvTool, sc.Tool, client.EnvArguments, shellQuote(string(mustJSON(sc.Arguments))))
	fmt.Printf("           %s\n", strings.Join(shortAll(ex.command, tmp), " "))
	fmt.Println()

	var rows []row
	loadBefore = loadAvg()
	for i := -warmup; i < repeats; i++ {
		n := i + 1
		label := strconv.Itoa(n)
		if i < 0 {
			label = "w" + strconv.Itoa(i+warmup+1)
			n = i + warmup + 1 + repeats // distinct directories for the warm-up pairs
		}
		a, err := sweep(ctx, jobs, self, manifest, parallel, filepath.Join(tmp, "sweep-"+strconv.Itoa(n)), tmp)
		if err != nil {
			return fmt.Errorf("repeat %s, sweep: %w", label, err)
		}
		b, err := loop(ctx, jobs, parallel, filepath.Join(tmp, "loop-"+strconv.Itoa(n)), sc)
		if err != nil {
			return fmt.Errorf("repeat %s, loop: %w", label, err)
		}
		same := 0
		for k := range jobs {
			if a.obs[k] != "" && a.obs[k] == b.obs[k] {
				same++
			}
		}
		r := row{label: label, warm: i < 0, a: a, b: b, same: same}
		rows = append(rows, r)
	}
	return printTable(rows, len(jobs))
}

// --- building and the manifest -------------------------------------------------------------

// build compiles toolscore from the module holding this program, unless given one.
func build(ctx context.Context, dir, bin string) (string, error) {
	out := filepath.Join(dir, "toolscore")
	if bin != "" { // copied in, so both sides and the printed commands name $TMP/toolscore
		b, err := os.ReadFile(bin)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(out, b, 0o755); err != nil {
			return "", err
		}
		fmt.Printf("toolscore: %s, copied to %s\n", bin, out)
		return out, nil
	}
	gomod, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "./cmd/toolscore")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/toolscore: %w\n%s", err, b)
	}
	fmt.Printf("built: (cd %s && go build -o %s ./cmd/toolscore)\n", root, out)
	return out, nil
}

var runsLine = regexp.MustCompile(`(?m)^runs:.*$`)

// writeManifest writes the embedded ledger manifest without its latency fault, with only the
// clients built into the toolscore binary (the ones `toolscore client NAME` runs; a client whose
// library lives in a cell image runs no run on the local backend, and the loop could not run it
// either) and with runs: 3. It loads it back as the runner will, so the plain loop runs the very
// cells the sweep does.
func writeManifest(dir string) (string, *scenario.Scenario, error) {
	var kept, droppedClients []string
	section := ""
	lines := strings.Split(string(scenarios.Ledger), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l != "" && l[0] != ' ' && l[0] != '#' && l[0] != '-' {
			section, _, _ = strings.Cut(l, ":")
		}
		name, isEntry := entryName(l)
		drop := isEntry && ((section == "faults" && name == "latency") ||
			(section == "clients" && !builtIn(name)))
		if !drop {
			kept = append(kept, l)
			continue
		}
		if section == "clients" {
			droppedClients = append(droppedClients, name)
		}
		// Drop the entry and the lines indented under its dash.
		dash := len(l) - len(strings.TrimLeft(l, " "))
		for i+1 < len(lines) {
			next := lines[i+1]
			if t := strings.TrimSpace(next); t != "" && !strings.HasPrefix(t, "#") && len(next)-len(strings.TrimLeft(next, " ")) <= dash {
				break
			}
			i++
		}
	}
	text := strings.Join(kept, "\n")
	if runsLine.MatchString(text) {
		text = runsLine.ReplaceAllString(text, "runs: 3")
	} else {
		text = strings.TrimRight(text, "\n") + "\nruns: 3\n"
	}
	path := filepath.Join(dir, "ledger.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return "", nil, err
	}
	sc, err := scenario.Load(path, []byte(text), scenario.Known{Faults: fault.Names(), Clients: client.Names(), Builtins: []string{"ledger"}})
	if err != nil {
		return "", nil, fmt.Errorf("the manifest written to %s does not load: %w", path, err)
	}
	for _, f := range sc.Faults {
		if f.Name == "latency" || f.Options["latency"] != nil {
			return "", nil, fmt.Errorf("%s still has a latency fault: the embedded manifest changed shape", path)
		}
	}
	for _, c := range sc.Clients {
		if !builtIn(c.Name) {
			return "", nil, fmt.Errorf("%s still has client %s, which is not built in: the embedded manifest changed shape", path, c.Name)
		}
	}
	if sc.Runs != 3 {
		return "", nil, fmt.Errorf("%s has runs: %d, want 3", path, sc.Runs)
	}
	if len(droppedClients) > 0 {
		fmt.Printf("left out of the manifest, not built in (the local backend runs none of their runs): %s\n", strings.Join(droppedClients, ", "))
	}
	return path, sc, nil
}

// entryName is the name of a list entry written "- NAME", "- name: NAME" or "- {name: NAME, ...}".
func entryName(line string) (string, bool) {
	t, ok := strings.CutPrefix(strings.TrimSpace(line), "- ")
	if !ok {
		return "", false
	}
	t = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(t, "{"), "}"))
	if rest, ok := strings.CutPrefix(t, "name:"); ok {
		t, _, _ = strings.Cut(rest, ",")
	}
	if i := strings.Index(t, " #"); i >= 0 {
		t = t[:i]
	}
	return strings.Trim(strings.TrimSpace(t), `"'`), true
}

// --- the plan: what the runner starts per run ----------------------------------------------

// job is one run as runner.runOne starts it, its directory relative to the output directory.
type job struct {
	rel     string   // runs/<slug>/run-N
	proxy   []string // self proxy --fault F --tool T --schema S --seed N
	opts    []string // the fault's options, which runOne puts after --tee
	target  []string // the server command after "--"
	env     []string // the server's own environment (a command server's env)
	command []string // self client NAME
	tool    string
	args    map[string]any
	timeout time.Duration
	decoy   bool
}

// plan expands the scenario the way runner.Run does (cells in order, runs 1..Runs) and builds
// each run's command the way runner.runOne does.
func plan(sc *scenario.Scenario, self string) []job {
	var jobs []job
	for _, c := range sc.Cells() {
		for r := 1; r <= sc.Runs; r++ {
			seed := uint64(1)
			if c.Fault.Seed != nil {
				seed = uint64(*c.Fault.Seed)
			}
			seed += uint64(r - 1)
			p := []string{self, "proxy", "--fault", c.Fault.Name, "--tool", sc.Tool, "--schema", string(c.Schema),
				"--seed", strconv.FormatUint(seed, 10)}
			f := c.Fault
			var opts []string
			if f.Probability != nil {
				opts = append(opts, "--probability", strconv.FormatFloat(*f.Probability, 'g', -1, 64))
			}
			if f.Nth > 0 {
				opts = append(opts, "--nth", strconv.Itoa(f.Nth))
			}
			if len(f.Options) > 0 {
				b, _ := json.Marshal(f.Options)
				opts = append(opts, "--options", string(b))
			}
			// A manifest output_schema would be written by the runner to OUT/output-schema.json;
			// the ledger manifest has none, and run() refuses one (see below).
			j := job{
				rel: filepath.Join("runs", slug(c.Key()), "run-"+strconv.Itoa(r)), proxy: p, opts: opts,
				command: []string{self, "client", c.Client.Name}, tool: sc.Tool, args: sc.Arguments,
				timeout: sc.Timeout.Std(), decoy: f.Options["decoy_args"] != nil,
			}
			if sc.Server.Builtin != "" {
				j.target = []string{self, sc.Server.Builtin}
			} else {
				j.target = sc.Server.Command
				j.env, _, _ = sc.ServerEnv(os.LookupEnv)
				for _, kv := range j.env {
					name, _, _ := strings.Cut(kv, "=")
					j.opts = append(j.opts, "--env", name)
				}
			}
			jobs = append(jobs, j)
		}
	}
	return jobs
}

// server is TOOLSCORE_SERVER for a run in dir: the proxy, its tee in dir, then the server.
// The flag order is runOne's: --tee follows --seed, the fault's options follow --tee.
func (j job) server(dir string) []string {
	argv := append(slices.Clone(j.proxy), "--tee", filepath.Join(dir, "tee.jsonl"))
	argv = append(append(argv, j.opts...), "--")
	return append(argv, j.target...)
}

// slug is runner.slug: a cell key as a directory name.
func slug(key string) string {
	return strings.NewReplacer("/", "_", "|", "__", "@", "_at_", " ", "_").Replace(key)
}

// --- the two sides -------------------------------------------------------------------------

type side struct {
	wall time.Duration
	cpu  time.Duration // user+sys of every process the side started, and theirs
	obs  []string      // per job, in plan order: the observation re-encoded, "" when none
	n    int           // observations
	runs int           // runs that finished (records in runs.jsonl, or commands that exited)
	note string
}

func sweepArgv(self, manifest string, parallel int, out string) []string {
	// --backend local: the local sweep is what is measured, also where a Docker daemon answers
	// (run's default then is docker).
	return []string{self, "run", manifest, "--backend", "local", "--parallel", strconv.Itoa(parallel), "--out", out}
}

// sweep times `toolscore run` as a user runs it, then reads the observations from runs.jsonl.
func sweep(ctx context.Context, jobs []job, self, manifest string, parallel int, out, tmp string) (side, error) {
	var s side
	cmd := exec.CommandContext(ctx, self, sweepArgv(self, manifest, parallel, out)[1:]...)
	cmd.Dir = tmp
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	err := cmd.Run()
	s.wall = time.Since(t0)
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		s.note = "exit 1: an expectation did not hold"
	case err != nil:
		return s, fmt.Errorf("%v\n%s", err, tail(stderr.Bytes(), 2000))
	}
	s.cpu = cpu(cmd.ProcessState)
	if !bytes.Contains(stderr.Bytes(), []byte(" on the local backend")) {
		return s, fmt.Errorf("the sweep did not say it ran on the local backend:\n%s", tail(stderr.Bytes(), 2000))
	}

	// Map each record back to its job by cell key and run number.
	f, err := os.Open(filepath.Join(out, "runs.jsonl"))
	if err != nil {
		return s, err
	}
	defer f.Close()
	type rec struct {
		Client, Fault, Schema, Transport string
		Run                              int
		Observation                      *client.Observation `json:"observation"`
	}
	byKey := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r rec
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return s, fmt.Errorf("runs.jsonl: %w", err)
		}
		s.runs++
		if r.Observation != nil {
			s.n++
			byKey[filepath.Join("runs", slug(r.Client+"|"+r.Fault+"|"+r.Schema+"|"+r.Transport), "run-"+strconv.Itoa(r.Run))] = string(mustJSON(r.Observation))
		}
	}
	if err := sc.Err(); err != nil {
		return s, err
	}
	s.obs = make([]string, len(jobs))
	for k, j := range jobs {
		s.obs[k] = byKey[j.rel]
	}
	return s, nil
}

// loop runs every job directly, parallel at a time, keeping each run's stdout.
func loop(ctx context.Context, jobs []job, parallel int, out string, sc *scenario.Scenario) (side, error) {
	var s side
	if len(sc.OutputSchema) > 0 {
		return s, errors.New("the manifest has an output_schema; the loop does not write it")
	}
	base := os.Environ()
	stdouts := make([]string, len(jobs))
	errs := make([]error, len(jobs))
	cpus := make([]time.Duration, len(jobs))
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	t0 := time.Now()
	for i, j := range jobs {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			dir := filepath.Join(out, j.rel)
			if err := os.MkdirAll(dir, 0o755); err != nil { // the proxy's tee lands in it
				errs[i] = err
				return
			}
			req := client.Request{Server: j.server(dir), Tool: j.tool, Arguments: j.args}
			cmd := exec.CommandContext(ctx, j.command[0], j.command[1:]...)
			cmd.Dir = dir
			cmd.Env = append(append(append(base, "TMPDIR="+dir), j.env...), req.Env()...)
			// As the local backend does: the adapter's stdout goes to a file in the run's directory.
			stdouts[i] = filepath.Join(dir, backend.StdoutFile)
			f, err := os.Create(stdouts[i])
			if err != nil {
				errs[i] = err
				return
			}
			cmd.Stdout = f
			errs[i] = cmd.Run()
			f.Close()
			cpus[i] = cpu(cmd.ProcessState)
		}()
	}
	wg.Wait()
	s.wall = time.Since(t0)

	s.obs = make([]string, len(jobs))
	failed := 0
	for i := range jobs {
		s.cpu += cpus[i]
		if errs[i] != nil {
			failed++
			continue
		}
		s.runs++
		if o, err := client.ReadObservation(stdouts[i], nil); err == nil {
			s.n++
			s.obs[i] = string(mustJSON(o))
		}
	}
	if failed > 0 {
		s.note = fmt.Sprintf("%d runs exited non-zero", failed)
	}
	return s, nil
}

func cpu(ps *os.ProcessState) time.Duration {
	if ps == nil {
		return 0
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0
	}
	return time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
}

// --- the report ----------------------------------------------------------------------------

type row struct {
	label string
	warm  bool
	a, b  side
	same  int
}

func printTable(rows []row, runs int) error {
	fmt.Printf("%-7s %9s %9s %7s %13s %11s %11s %12s %12s %10s\n",
		"repeat", "sweep s", "loop s", "ratio", "µs/run extra", "sweep cpu s", "loop cpu s", "sweep obs", "loop obs", "identical")
	var ratios, extras, sweeps, loops, cpus []float64
	var bad []string
	for _, r := range rows {
		ratio := r.a.wall.Seconds() / r.b.wall.Seconds()
		extra := float64(r.a.wall-r.b.wall) / float64(time.Microsecond) / float64(runs)
		label := r.label
		if r.warm {
			label += " (w)"
		} else {
			ratios = append(ratios, ratio)
			extras = append(extras, extra)
			sweeps, loops = append(sweeps, r.a.wall.Seconds()), append(loops, r.b.wall.Seconds())
			cpus = append(cpus, float64(r.a.cpu-r.b.cpu)/float64(time.Microsecond)/float64(runs))
		}
		fmt.Printf("%-7s %9.3f %9.3f %7.3f %13.0f %11.3f %11.3f %12s %12s %10s\n", label,
			r.a.wall.Seconds(), r.b.wall.Seconds(), ratio, extra, r.a.cpu.Seconds(), r.b.cpu.Seconds(),
			fmt.Sprintf("%d/%d", r.a.n, runs), fmt.Sprintf("%d/%d", r.b.n, runs), fmt.Sprintf("%d/%d", r.same, runs))
		if r.a.n != r.b.n || r.a.n != runs {
			bad = append(bad, fmt.Sprintf("repeat %s: sweep %d observations, loop %d, of %d runs", r.label, r.a.n, r.b.n, runs))
		}
		for _, n := range []string{r.a.note, r.b.note} {
			if n != "" {
				bad = append(bad, "repeat "+r.label+": "+n)
			}
		}
	}
	fmt.Println()
	fmt.Println("ratio = sweep s / loop s; µs/run extra = (sweep - loop) / runs; (w) = warm-up pair, not counted")
	fmt.Println("cpu s: user+sys of every process the side started (for the sweep: toolscore run and all under it)")
	fmt.Println("obs: runs that printed an observation; identical: runs whose observation is the same on both sides")
	fmt.Println()
	med := median(ratios)
	fmt.Printf("runs per side: %d; median ratio %.3f over %d repeats; median runner overhead %.0f µs per run\n",
		runs, med, len(ratios), median(extras))
	fmt.Printf("less moved by noise: fastest sweep / fastest loop = %.3f (%.3f / %.3f s); runner cpu (sweep cpu - loop cpu) / runs, median %.0f µs per run\n",
		minOf(sweeps)/minOf(loops), minOf(sweeps), minOf(loops), median(cpus))
	verdict := "met"
	if med > targetRatio {
		verdict = "MISSED"
	}
	fmt.Printf("target sweep <= %.2f × loop: %s\n", targetRatio, verdict)
	spread := max(slices.Max(sweeps)/minOf(sweeps), slices.Max(loops)/minOf(loops))
	fmt.Printf("noise: slowest / fastest of one side over the repeats, %.2f; load average before %s, after %s\n",
		spread, loadBefore, loadAvg())
	if spread-1 > targetRatio-1 {
		fmt.Printf("  the same work varied by more than the %.0f%% margin under test: this machine was busy, so the ratio is noise-bound (more -repeats, or a quiet machine)\n", (targetRatio-1)*100)
	}
	if len(bad) == 0 {
		fmt.Println("observations: both sides the same count, one per run, every repeat")
		return nil
	}
	for _, b := range bad {
		fmt.Println("check:", b)
	}
	return errors.New("the two sides did not produce the same observations")
}

// loadBefore is the load average as the first pair starts.
var loadBefore string

// loadAvg is the first three fields of /proc/loadavg, or "?".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func minOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return slices.Min(xs)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

func short(p, tmp string) string {
	return strings.ReplaceAll(p, tmp+string(filepath.Separator), "$TMP/")
}

func shortAll(argv []string, tmp string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = short(a, tmp)
	}
	return out
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// builtIn says whether the client named runs inside toolscore itself (no cell image of its own).
func builtIn(name string) bool {
	d, _, ok := client.Lookup(name)
	return ok && !d.Contained()
}
