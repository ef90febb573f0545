// Command sweepbench measures what the local sweep costs over the work it runs.
//
//	go run ./bench/sweepbench [-parallel 2] [-repeats 3] [-warmup 1] [-bin PATH] [-keep]
//
// It builds the static toolscore binary once into a temporary directory (CGO_ENABLED=0 go build
// -o $TMP/toolscore ./cmd/toolscore) and writes a manifest there: the embedded
// scenarios/ledger.yaml without its latency fault (a sleep, which would hide the overhead) and
// without the clients that are not built into toolscore (they run only on the docker backend),
// with runs: 3. Then, alternating A/B/A/B... in one process so machine noise hits both alike, it times
//
//	A  sweep  $TMP/toolscore run $TMP/ledger.yaml --backend local --parallel P --out $TMP/sweep-N
//	          (the whole command's wall time, as a user sees it)
//	B  loop   the same cells × runs, each run exactly the command the runner starts for it (its
//	          plan: runner.Options.Jobs and Spec), $TMP/toolscore client NAME with
//	          TOOLSCORE_SERVER (the proxy and its flags), TOOLSCORE_TOOL and TOOLSCORE_ARGUMENTS,
//	          in the run's directory, from a pool of P goroutines behind a semaphore; only each
//	          run's stdout is kept
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

	"github.com/toolscore/toolscore/bench/internal/enginebench"
	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/backend/local"
	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/runner"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/scenarios"
)

const targetRatio = 1.15 // sweep wall time / plain loop wall time, median over repeats

func main() {
	parallel := flag.Int("parallel", 2, "runs at once, on both sides")
	repeats := flag.Int("repeats", 3, "timed A/B pairs")
	warmup := flag.Int("warmup", 1, "untimed A/B pairs before the timed ones")
	bin := flag.String("bin", "", "an already built static toolscore binary (default: CGO_ENABLED=0 go build ./cmd/toolscore)")
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

func run(ctx context.Context, parallel, repeats, warmup int, bin string, keep bool) error {
	fmt.Printf("$ %s\n", enginebench.CommandLine("./bench/sweepbench"))
	fmt.Printf("go %s %s/%s, %d CPUs, GOMAXPROCS %d; parallel %d, %d timed A/B pairs after %d warm-up pair(s)\n",
		strings.TrimPrefix(runtime.Version(), "go"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0),
		parallel, repeats, warmup)

	// The runner names itself by os.Executable, which has every symlink resolved; so does TempDir.
	tmp, cleanup, err := enginebench.TempDir("sweepbench-", keep)
	if err != nil {
		return err
	}
	defer cleanup()
	self, err := enginebench.Toolscore(ctx, tmp, bin)
	if err != nil {
		return err
	}
	manifest, sc, err := writeManifest(tmp)
	if err != nil {
		return err
	}
	o, jobs, err := plan(sc, self)
	if err != nil {
		return err
	}
	fmt.Printf("manifest: %s = %s without the latency fault, built-in clients only, runs: %d: %d faults × %d schema modes × %d clients = %d cells × %d runs = %d runs\n",
		short(manifest, tmp), scenarios.LedgerPath, sc.Runs, len(sc.Faults), len(sc.SchemaModes), len(sc.Clients), len(sc.Cells()), sc.Runs, len(jobs))
	fmt.Println()
	fmt.Printf("  A sweep  %s\n", strings.Join(shortAll(sweepArgv(self, manifest, parallel, "$TMP/sweep-N"), tmp), " "))
	fmt.Printf("  B loop   %d workers, per run (cwd and TMPDIR the run's directory, as the local backend sets them):\n", parallel)
	// The longest command line: show it.
	var ex backend.Spec
	var exReq client.Request
	for _, j := range jobs {
		spec, req := o.Spec(j, filepath.Join("$TMP/loop-N", j.Dir()))
		if len(req.Server) > len(exReq.Server) {
			ex, exReq = spec, req
		}
	}
	fmt.Printf("           %s=%s \\\n", client.EnvServer, shellQuote(string(mustJSON(shortAll(exReq.Server, tmp)))))
	fmt.Printf("           %s=%s %s=%s \\\n", client.EnvTool, exReq.Tool, client.EnvArguments, shellQuote(string(mustJSON(exReq.Arguments))))
	fmt.Printf("           %s\n", strings.Join(shortAll(ex.Command, tmp), " "))
	fmt.Println()

	var rows []row
	loadBefore = enginebench.LoadAvg()
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
		b, err := loop(ctx, o, jobs, parallel, filepath.Join(tmp, "loop-"+strconv.Itoa(n)))
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

// plan is the runner's plan of the sweep on the local backend with self as the toolscore
// binary (runner.Options.Jobs), listed: the same cells, runs and seeds, and each run's command
// and environment from Options.Spec.
func plan(sc *scenario.Scenario, self string) (runner.Options, []runner.Job, error) {
	env, _, err := sc.ServerEnv(os.LookupEnv)
	if err != nil {
		return runner.Options{}, nil, err
	}
	o := runner.Options{Plan: runner.Plan{Scenario: sc}, Backend: local.Backend{Binary: self}, ServerEnv: env}
	return o, slices.Collect(o.Jobs()), nil
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
func sweep(ctx context.Context, jobs []runner.Job, self, manifest string, parallel int, out, tmp string) (side, error) {
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
		return s, fmt.Errorf("%v\n%s", err, enginebench.Tail(stderr.Bytes(), 2000))
	}
	s.cpu = cpu(cmd.ProcessState)
	if !bytes.Contains(stderr.Bytes(), []byte(" on the local backend")) {
		return s, fmt.Errorf("the sweep did not say it ran on the local backend:\n%s", enginebench.Tail(stderr.Bytes(), 2000))
	}

	// Map each record back to its job by its run's directory, where its transcript is.
	f, err := os.Open(filepath.Join(out, record.RunsFile))
	if err != nil {
		return s, err
	}
	defer f.Close()
	byDir := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r record.Run
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return s, fmt.Errorf("%s: %w", record.RunsFile, err)
		}
		s.runs++
		if r.Observation != nil {
			s.n++
			byDir[filepath.Dir(r.Tee)] = string(mustJSON(r.Observation))
		}
	}
	if err := sc.Err(); err != nil {
		return s, err
	}
	s.obs = make([]string, len(jobs))
	for k, j := range jobs {
		s.obs[k] = byDir[j.Dir()]
	}
	return s, nil
}

// loop runs every job directly, parallel at a time, keeping each run's stdout.
func loop(ctx context.Context, o runner.Options, jobs []runner.Job, parallel int, out string) (side, error) {
	var s side
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
			dir := filepath.Join(out, j.Dir())
			if err := os.MkdirAll(dir, 0o755); err != nil { // the proxy's tee lands in it
				errs[i] = err
				return
			}
			if err := o.WriteInputs(dir); err != nil {
				errs[i] = err
				return
			}
			spec, _ := o.Spec(j, dir)
			cmd := exec.CommandContext(ctx, spec.Command[0], spec.Command[1:]...)
			cmd.Dir = dir
			cmd.Env = append(append(base, "TMPDIR="+dir), spec.Env...)
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
	med := enginebench.Median(ratios)
	fmt.Printf("runs per side: %d; median ratio %.3f over %d repeats; median runner overhead %.0f µs per run\n",
		runs, med, len(ratios), enginebench.Median(extras))
	fmt.Printf("less moved by noise: fastest sweep / fastest loop = %.3f (%.3f / %.3f s); runner cpu (sweep cpu - loop cpu) / runs, median %.0f µs per run\n",
		minOf(sweeps)/minOf(loops), minOf(sweeps), minOf(loops), enginebench.Median(cpus))
	verdict := "met"
	if med > targetRatio {
		verdict = "MISSED"
	}
	fmt.Printf("target sweep <= %.2f × loop: %s\n", targetRatio, verdict)
	spread := max(slices.Max(sweeps)/minOf(sweeps), slices.Max(loops)/minOf(loops))
	fmt.Printf("noise: slowest / fastest of one side over the repeats, %.2f; load average before %s, after %s\n",
		spread, loadBefore, enginebench.LoadAvg())
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
