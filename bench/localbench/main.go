// Command localbench measures what a run of an installed client (the TypeScript and Python SDK
// clients the local backend runs from its install cache) costs on the local backend, against
// the bare start of the same adapter and against the docker backend.
//
//	go run ./bench/localbench [-runs 5] [-rounds 2] [-clients ts-sdk/call,python-sdk/call] [-docker=true] [-bin PATH] [-keep] [-timeout 30m]
//
// It builds the static toolscore binary into a temporary directory ($TMP), installs the clients
// into the install cache as a sweep does (runner.ChooseBackend: the user's cache folder, or
// TOOLSCORE_CACHE), then per client, in rounds, interleaved so that machine noise hits every
// side alike, times
//
//	local   $TMP/toolscore run --backend local --clients C --faults clean --schema hidden
//	        --protocols 2025-11-25 --transports stdio --runs N --parallel 1: each run's own time
//	        (its "ms" in runs.jsonl: the adapter started in its process group to the group ended)
//	bare    the same N runs, each the adapter the sweep starts (node ./adapter.mjs, or
//	        ./venv/bin/python ./adapter.py, from the install folder) started directly, with the
//	        runner's own plan of the run (runner.Options.Jobs and Spec): the contract's
//	        TOOLSCORE_SERVER (the proxy command the sweep uses, the ledger behind it),
//	        TOOLSCORE_TOOL, TOOLSCORE_ARGUMENTS, the install's variables, on the allowlisted
//	        environment with HOME and TMPDIR the run's directory, in that directory; timed from
//	        its start to its exit
//	docker  the local side's sweep with --backend docker: each run's own time (container create
//	        to the end of the cell's output)
//
// after one untimed warm-up round of one run per side (the cell images are built then). It
// prints per client the medians of the three, the ratio local / bare against the target 1.3,
// and each sweep's wall time divided by its runs. Every run on every side must give the clean
// cell's observation (a returned result), and the proxy must have started with the same
// server command, fault, schema, protocol, seed and tool in a bare run as in the sweep's (its
// transcript's first record); the docker column is left out, with the reason, when no engine
// answers.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolscore/toolscore/bench/internal/enginebench"
	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/runenv"
	"github.com/toolscore/toolscore/internal/runner"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/sweep"
)

const targetRatio = 1.3 // local ms/run ÷ bare ms/run, medians

// The one cell every side runs: the clean ledger call, as plain as a run gets.
const (
	fault     = "clean"
	schema    = "hidden"
	protocol  = "2025-11-25"
	transport = "stdio"
)

func main() {
	runs := flag.Int("runs", 5, "runs per side per round")
	rounds := flag.Int("rounds", 2, "timed rounds (local, bare, docker per client in each)")
	clients := flag.String("clients", "ts-sdk/call,python-sdk/call", "installed clients to time, comma-separated")
	withDocker := flag.Bool("docker", true, "time the docker backend too (left out when no engine answers)")
	bin := flag.String("bin", "", "an already built static toolscore binary (default: CGO_ENABLED=0 go build ./cmd/toolscore)")
	keep := flag.Bool("keep", false, "keep the temporary directory (its path is printed)")
	timeout := flag.Duration("timeout", 30*time.Minute, "give up (and stop every process started) after this long")
	flag.Parse()
	if *runs < 1 || *rounds < 1 {
		fmt.Fprintln(os.Stderr, "localbench: -runs and -rounds must be at least 1")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, strings.Split(*clients, ","), *runs, *rounds, *withDocker, *bin, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "localbench:", err)
		cancel()
		os.Exit(1)
	}
}

// bench is one client's plan and figures.
type bench struct {
	id                    string
	o                     runner.Options // the runner's plan of the local sweep, for the bare side
	jobs                  []runner.Job
	local, bare, docker   []float64 // ms per run
	localWall, dockerWall []float64 // ms per run: a sweep's wall time ÷ its runs
	example               []string  // the bare side's command and contract, for the header
}

func run(ctx context.Context, ids []string, runs, rounds int, withDocker bool, bin string, keep bool) error {
	fmt.Printf("$ %s\n", enginebench.CommandLine("./bench/localbench"))
	fmt.Printf("go %s %s/%s, %d CPUs; %d runs per side per round, %d rounds after 1 warm-up round; cell %s × %s × %s × %s\n",
		strings.TrimPrefix(runtime.Version(), "go"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runs, rounds, fault, schema, protocol, transport)
	tmp, cleanup, err := enginebench.TempDir("localbench-", keep)
	if err != nil {
		return err
	}
	defer cleanup()
	self, err := enginebench.Toolscore(ctx, tmp, bin)
	if err != nil {
		return err
	}
	dockerNote := ""
	if !withDocker {
		dockerNote = "left out (-docker=false)"
	} else if api, sv, err := enginebench.Connect(ctx); err != nil {
		dockerNote = "left out: " + err.Error()
	} else {
		api.Close()
		enginebench.DefaultBaseImages()
		fmt.Printf("docker: engine %s (API %s) at %s\n", sv.Version, sv.APIVersion, os.Getenv("DOCKER_HOST"))
	}

	var benches []*bench
	for _, id := range ids {
		b, err := plan(ctx, self, id)
		if err != nil {
			return err
		}
		benches = append(benches, b)
	}
	fmt.Println()
	for _, b := range benches {
		fmt.Printf("bare %s, per run, in the run's directory:\n", b.id)
		for _, l := range b.example {
			fmt.Printf("    %s\n", strings.ReplaceAll(l, tmp, "$TMP"))
		}
	}
	fmt.Println()

	for r := 0; r <= rounds; r++ {
		n, warm := runs, r == 0
		if warm {
			n = 1
		}
		for _, b := range benches {
			out := filepath.Join(tmp, fmt.Sprintf("%s-%d", strings.ReplaceAll(b.id, "/", "_"), r))
			local, wall, err := sweepRuns(ctx, self, tmp, "local", b.id, n, out+"-local")
			if err != nil {
				return err
			}
			bare, err := bareRuns(ctx, b, n, out+"-bare")
			if err != nil {
				return err
			}
			var docker []float64
			var dockerWall float64
			if dockerNote == "" {
				if docker, dockerWall, err = sweepRuns(ctx, self, tmp, "docker", b.id, n, out+"-docker"); err != nil {
					return err
				}
			}
			if err := sameStart(out+"-local", out+"-bare"); err != nil {
				return fmt.Errorf("%s: %w", b.id, err)
			}
			fmt.Printf("round %s %-16s local %s  bare %s  docker %s\n", roundName(r), b.id, msList(local), msList(bare), msList(docker))
			if warm {
				continue
			}
			b.local, b.bare, b.docker = append(b.local, local...), append(b.bare, bare...), append(b.docker, docker...)
			b.localWall = append(b.localWall, wall)
			if docker != nil {
				b.dockerWall = append(b.dockerWall, dockerWall)
			}
		}
	}
	return report(benches, dockerNote)
}

func roundName(r int) string {
	if r == 0 {
		return "w"
	}
	return strconv.Itoa(r)
}

// plan installs the client as a local sweep does and takes the runner's plan of its cell on
// the local backend, from which the bare side starts each run.
func plan(ctx context.Context, self, id string) (*bench, error) {
	sc, err := sweep.Load("")
	if err != nil {
		return nil, err
	}
	if err := sc.Filter([]string{id}, []string{fault}, []string{schema}, []string{protocol}, []string{transport}); err != nil {
		return nil, err
	}
	sc.Runs = 1 // the bare side starts this one run n times
	choice, err := runner.ChooseBackend(ctx, "local", self, sc, os.Stdout)
	if err == nil {
		err = choice.Install(ctx, nil) // the bare side starts the install's adapter itself
	}
	if err != nil {
		return nil, err
	}
	if why, out := choice.Unavailable[id]; out {
		return nil, fmt.Errorf("%s cannot run on the local backend here: %s", id, why)
	}
	if choice.Installed[id] == "" {
		return nil, fmt.Errorf("%s is not a client the local backend installs: this benchmark times installed clients", id)
	}
	env, _, err := sc.ServerEnv(os.LookupEnv)
	if err != nil {
		return nil, err
	}
	b := &bench{id: id, o: runner.Options{Plan: runner.Plan{Scenario: sc}, Backend: choice.Backend, ServerEnv: env, Installed: choice.Installed}}
	b.jobs = slices.Collect(b.o.Jobs())
	if len(b.jobs) != 1 {
		return nil, fmt.Errorf("%s: the plan has %d runs, want the one cell's 1", id, len(b.jobs))
	}
	spec, _ := b.o.Spec(b.jobs[0], "$RUN")
	for _, kv := range spec.Env {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "TOOLSCORE_") {
			b.example = append(b.example, kv)
		}
	}
	b.example = append(b.example, strings.Join(spec.Command, " "))
	return b, nil
}

// sweepRuns times a sweep of n runs of the client's cell on the backend named and returns each
// run's own time (runs.jsonl's ms) and the sweep's wall time ÷ n, in ms; every run must have
// passed (the clean cell).
func sweepRuns(ctx context.Context, self, tmp, backendName, id string, n int, out string) ([]float64, float64, error) {
	argv := []string{"run", "--backend", backendName, "--clients", id, "--faults", fault, "--schema", schema,
		"--protocols", protocol, "--transports", transport, "--runs", strconv.Itoa(n), "--parallel", "1", "--out", out}
	stderr, wall, err := enginebench.Sweep(ctx, self, tmp, argv)
	if err != nil {
		return nil, 0, err
	}
	if !strings.Contains(string(stderr), " on the "+backendName+" backend") {
		return nil, 0, fmt.Errorf("the sweep did not say it ran on the %s backend:\n%s", backendName, enginebench.Tail(stderr, 2000))
	}
	recs, err := enginebench.ReadRuns(out, id, n, stderr)
	if err != nil {
		return nil, 0, err
	}
	var ms []float64
	for _, r := range recs {
		if r.Outcome != record.Passed {
			return nil, 0, fmt.Errorf("%s on %s: a run of the clean cell %s: %s", id, backendName, r.Outcome, enginebench.Tail([]byte(r.Stderr), 1500))
		}
		ms = append(ms, float64(r.Ms))
	}
	return ms, enginebench.Ms(wall) / float64(n), nil
}

// bareRuns starts the adapter n times as the runner's plan says, one after the other, each in a
// directory of its own, and returns each one's time from its start to its exit, in ms.
func bareRuns(ctx context.Context, b *bench, n int, out string) ([]float64, error) {
	var ms []float64
	for i := range n {
		dir := filepath.Join(out, strconv.Itoa(i+1))
		if err := os.MkdirAll(dir, 0o755); err != nil { // the proxy's transcript lands in it
			return nil, err
		}
		if err := b.o.WriteInputs(dir); err != nil {
			return nil, err
		}
		spec, _ := b.o.Spec(b.jobs[0], dir)
		cmd := exec.CommandContext(ctx, spec.Command[0], spec.Command[1:]...)
		cmd.Dir = dir
		cmd.Env = append(append(runenv.Allowed(os.Environ()), "HOME="+dir, "TMPDIR="+dir), spec.Env...)
		// Files, as the local backend gives them: a pipe would make Wait wait for whatever of the
		// run still holds it, which is not the adapter's start.
		stdout, err := os.Create(filepath.Join(dir, backend.StdoutFile))
		if err != nil {
			return nil, err
		}
		stderr, err := os.Create(filepath.Join(dir, "stderr"))
		if err != nil {
			stdout.Close()
			return nil, err
		}
		cmd.Stdout, cmd.Stderr = stdout, stderr
		t0 := time.Now()
		err = cmd.Run()
		took := time.Since(t0)
		stdout.Close()
		stderr.Close()
		if err != nil {
			e, _ := os.ReadFile(filepath.Join(dir, "stderr"))
			return nil, fmt.Errorf("bare %s: %v\n%s", b.id, err, enginebench.Tail(e, 1500))
		}
		obs, err := client.ReadObservation(filepath.Join(dir, backend.StdoutFile), nil)
		if err == nil && obs.Returned == nil {
			err = errors.New("the library raised, on the clean cell")
		}
		if err != nil {
			return nil, fmt.Errorf("bare %s: no clean observation: %w", b.id, err)
		}
		ms = append(ms, enginebench.Ms(took))
	}
	return ms, nil
}

// sameStart checks that the bare side ran what the sweep ran: the proxy's first record (the
// server command, fault, schema, protocol, seed and tool it started with) is the same in the
// sweep's first run and the bare side's, but for the process ids.
func sameStart(sweepOut, bareOut string) error {
	first := func(pattern string) (map[string]any, error) {
		paths, _ := filepath.Glob(pattern)
		if len(paths) != 1 {
			return nil, fmt.Errorf("%d transcripts match %s, want 1", len(paths), pattern)
		}
		f, err := os.Open(paths[0])
		if err != nil {
			return nil, err
		}
		defer f.Close()
		var rec struct {
			Event  string         `json:"event"`
			Detail map[string]any `json:"detail"`
		}
		if err := json.NewDecoder(f).Decode(&rec); err != nil || rec.Event != "start" {
			return nil, fmt.Errorf("%s does not start with the proxy's start record (%v)", paths[0], err)
		}
		for _, k := range []string{"pid", "pgid", "proxy_pid"} {
			delete(rec.Detail, k)
		}
		return rec.Detail, nil
	}
	swept, err := first(filepath.Join(sweepOut, "runs", "*", "run-1", record.TeeFile))
	if err != nil {
		return err
	}
	bare, err := first(filepath.Join(bareOut, "1", record.TeeFile))
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(swept, bare) {
		return fmt.Errorf("the bare run started the proxy otherwise than the sweep:\n  sweep %v\n  bare  %v", swept, bare)
	}
	return nil
}

func msList(xs []float64) string {
	if xs == nil {
		return "-"
	}
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strings.Join(parts, " ")
}

func report(benches []*bench, dockerNote string) error {
	fmt.Println()
	fmt.Printf("%-16s %13s %12s %7s %14s %8s   %16s %17s\n", "client", "local ms/run", "bare ms/run", "ratio", "docker ms/run", "≤ 1.3", "local wall/run", "docker wall/run")
	for _, b := range benches {
		l, bare := enginebench.Median(b.local), enginebench.Median(b.bare)
		ratio := l / bare
		verdict := "PASS"
		if ratio > targetRatio {
			verdict = "FAIL"
		}
		docker, dockerWall := "-", "-"
		if b.docker != nil {
			docker = fmt.Sprintf("%.0f", enginebench.Median(b.docker))
			dockerWall = fmt.Sprintf("%.0f", enginebench.Median(b.dockerWall))
		}
		fmt.Printf("%-16s %13.0f %12.0f %7.2f %14s %8s   %16.0f %17s\n", b.id, l, bare, ratio, docker, verdict, enginebench.Median(b.localWall), dockerWall)
	}
	fmt.Println()
	fmt.Printf("medians over %d runs per side; ratio = local ÷ bare (target ≤ %.1f)\n", len(benches[0].local), targetRatio)
	fmt.Println("local, docker: each run's own time in runs.jsonl; bare: the adapter's start to its exit, as the runner's plan starts it")
	fmt.Println("wall/run: a whole sweep (loading, installs checked, images checked, reports written) ÷ its runs, median over rounds")
	if dockerNote != "" {
		fmt.Println("docker:", dockerNote)
	}
	fmt.Println("load average after:", enginebench.LoadAvg())
	return nil
}
