package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/toolscore/toolscore/bench/internal/enginebench"
	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/backend/docker"
	"github.com/toolscore/toolscore/internal/backend/incell"
	tsclient "github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/runner"
	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenario"
)

// steps is the time each named step of one run took.
type steps map[string]time.Duration

// The steps of a cell run, in the order docker.Backend.Run makes them; the three indented
// ones split "exit" by the transcript's timestamps (same kernel clock inside and out).
// copy-in and copy-out are made only when Run makes them.
var cellSteps = []string{"create", "copy-in", "attach", "wait", "start", "exit", "  start→proxy", "  session", "  proxy→exit", "stream", "inspect", "copy-out", "remove"}

// --- the plan: each run as the runner builds it for the docker backend -----------------------

// plan is the runner's plan of the sweep (runner.Options.Jobs), listed: the same cells, runs
// and seeds; each run's command, environment and input files come from the runner too
// (Options.Spec, Options.WriteInputs), with the docker backend's Self (/opt/toolscore/toolscore)
// and WorkDir (/run/toolscore).
func plan(sc *scenario.Scenario) (runner.Options, []runner.Job, error) {
	env, _, err := sc.ServerEnv(os.LookupEnv)
	if err != nil {
		return runner.Options{}, nil, err
	}
	// Only the backend's Self and WorkDir are asked: runs go through cellRun, not its Run.
	o := runner.Options{Plan: runner.Plan{Scenario: sc}, Backend: &docker.Backend{}, ServerEnv: env}
	return o, slices.Collect(o.Jobs()), nil
}

// cellConfig is the container docker.Backend.Run creates for a run (docker.CellConfig, the
// default sandbox), labelled as this benchmark's: with the session's label, which Create adds,
// the same number of labels as a sweep's, but not io.toolscore, so no sweep takes it for its own.
func cellConfig(image string, spec backend.Spec) (*container.Config, *container.HostConfig) {
	cfg, host := docker.CellConfig(image, docker.Sandbox{}, spec)
	cfg.Labels[enginebench.Label+".owner"] = "x"
	return cfg, host
}

// --- a copy of docker.Backend.Run, timed step by step -----------------------------------------

// cellRun makes the Engine API calls docker.Backend.Run makes, in its order and with its
// configuration (the default sandbox: network none, 1 GiB memory and no swap, 1 CPU, 256 pids,
// 1024 files, user 1000:1000, every capability dropped, no-new-privileges; the command and
// environment of incell.Command), timing each: create; the copy-in only when Run makes it
// (the image's work directory is not the cell user's, or the run has input files); attach;
// wait; start; the exit; the cell's stream read to its end (incell.ReadStream, which writes
// the run's files into dir); inspect; the copy-out only when Run makes it (the stream was not
// whole); remove.
//
// The variant sandboxVersion is the floor's command (toolscore version) in the cell's
// configuration, without attach, copies, stream or inspect, to tell the sandbox's cost from
// the rest.
func (b *bench) cellRun(ctx context.Context, j runner.Job, dir string, v variant) (steps, error) {
	st := steps{}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return st, err
	}
	if err := b.opts.WriteInputs(dir); err != nil {
		return st, err
	}
	spec, _ := b.opts.Spec(j, dir)
	t := time.Now()
	lap := func(name string) time.Time { now := time.Now(); st[name] = now.Sub(t); t = now; return now }

	cfg, host := cellConfig(b.image, spec)
	if v == sandboxVersion {
		cfg.Entrypoint, cfg.Cmd = docker.Argv([]string{backend.CellBinary, "version"})
		cfg.AttachStdin, cfg.AttachStdout, cfg.AttachStderr, cfg.OpenStdin, cfg.StdinOnce = false, false, false, false, false
	}
	id, err := b.sess.Create(ctx, cfg, host)
	lap("create")
	if err != nil {
		return st, err
	}
	defer func() {
		t = time.Now()
		b.sess.Remove(ctx, id)
		lap("remove")
	}()
	if v == sandboxVersion {
		return b.sandboxRest(ctx, id, st, t)
	}
	if !docker.Prepared(b.workdir, cfg.User) || docker.HasFiles(dir) {
		in, err := docker.TarDir(dir)
		if err != nil {
			return st, err
		}
		if err := b.api.CopyToContainer(ctx, id, "/", in, container.CopyToContainerOptions{}); err != nil {
			return st, fmt.Errorf("copy-in: %w", err)
		}
		lap("copy-in")
	}
	att, err := b.api.ContainerAttach(ctx, id, container.AttachOptions{Stream: true, Stdin: true, Stdout: true, Stderr: true})
	lap("attach")
	if err != nil {
		return st, fmt.Errorf("attach: %w", err)
	}
	defer att.Close()
	waitCh, waitErr := b.api.ContainerWait(context.WithoutCancel(ctx), id, container.WaitConditionNextExit)
	lap("wait")
	startCall := t
	if err := b.api.ContainerStart(ctx, id, container.StartOptions{}); err != nil {
		return st, fmt.Errorf("start: %w", err)
	}
	lap("start")
	_ = att.CloseWrite()
	// As Run: stdout is the cell's stream, read as it comes; stderr is kept.
	var stderr bytes.Buffer
	pr, pw := io.Pipe()
	whole := false
	streamed := make(chan struct{})
	go func() {
		whole = incell.ReadStream(pr, dir)
		close(streamed)
	}()
	read := make(chan struct{})
	go func() {
		_, _ = stdcopy.StdCopy(pw, &stderr, att.Reader)
		pw.Close()
		close(read)
	}()
	var exited time.Time
	var code int64
	select {
	case w := <-waitCh:
		exited = lap("exit")
		code = w.StatusCode
	case err := <-waitErr:
		return st, fmt.Errorf("wait: %w", err)
	case <-time.After(spec.Timeout):
		return st, fmt.Errorf("the cell did not exit within %s", spec.Timeout)
	}
	select {
	case <-read:
	case <-time.After(5 * time.Second):
		pw.CloseWithError(errors.New("the cell's output did not end"))
	}
	<-streamed
	lap("stream")
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	if _, err := b.api.ContainerInspect(ictx, id); err != nil {
		return st, fmt.Errorf("inspect: %w", err)
	}
	lap("inspect")
	if !whole {
		// Run copies out what a cell that could not send its stream left.
		if err := docker.CopyOut(ictx, b.api, id, dir); err != nil {
			return st, fmt.Errorf("copy-out: %w", err)
		}
		lap("copy-out")
	}

	if code != 0 {
		return st, fmt.Errorf("the cell exited %d: %s", code, enginebench.Tail(stderr.Bytes(), 500))
	}
	if !whole {
		return st, fmt.Errorf("the cell exited 0 but its stream was not whole: %s", enginebench.Tail(stderr.Bytes(), 500))
	}
	if _, err := tsclient.ReadObservation(filepath.Join(dir, backend.StdoutFile), nil); err != nil {
		stdout, _ := os.ReadFile(filepath.Join(dir, backend.StdoutFile))
		return st, fmt.Errorf("no observation: %v: %s", err, enginebench.Tail(stdout, 300))
	}
	// Split "exit" by the transcript (which came out in the stream): when the proxy started
	// and when the server had exited.
	tr, err := transcript.Read(filepath.Join(dir, record.TeeFile))
	if err != nil || len(tr) == 0 {
		return st, fmt.Errorf("the transcript: %v (%d entries)", err, len(tr))
	}
	first, last := tr[0].Time, tr[0].Time
	for _, e := range tr {
		if e.Time.Before(first) {
			first = e.Time
		}
		if e.Time.After(last) {
			last = e.Time
		}
	}
	st["  start→proxy"] = first.Sub(startCall)
	st["  session"] = last.Sub(first)
	st["  proxy→exit"] = exited.Sub(last)
	return st, nil
}

// sandboxRest is the rest of a sandboxVersion run: wait, start, the exit (the remove is deferred).
func (b *bench) sandboxRest(ctx context.Context, id string, st steps, t time.Time) (steps, error) {
	lap := func(name string) { now := time.Now(); st[name] = now.Sub(t); t = now }
	code, err := b.sess.StartToExit(ctx, id, lap)
	if err == nil && code != 0 {
		err = fmt.Errorf("the container exited %d", code)
	}
	return st, err
}

// --- the profile -------------------------------------------------------------------------------

type variant int

const (
	cellAsIs       variant = iota // docker.Backend.Run as it is
	sandboxVersion                // the cell's configuration, the floor's command and calls
	bareFloor                     // the floor itself
)

var variants = []struct {
	v          variant
	head, what string
}{
	{cellAsIs, "cell", "docker.Backend.Run's calls in its order, timed, in its configuration (docker.CellConfig)"},
	{sandboxVersion, "sandbox+ver", "the floor's command and calls (create, wait, start, exit, remove) in the cell's Config/HostConfig"},
	{bareFloor, "floor", "the floor: create {network none}, wait, start, exit, remove"},
}

// mixedBatch runs every job of the plan once in every variant (the floor's runs for bareFloor),
// par at a time from one queue in which the variants take turns, so that a machine getting
// busier or quieter meanwhile slows all of them alike.
func (b *bench) mixedBatch(ctx context.Context, par int, out string) (map[variant][]steps, time.Duration, error) {
	res := map[variant][]steps{}
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	t0 := time.Now()
	for k, j := range b.plan {
		for i := range variants {
			v := variants[(k+i)%len(variants)].v
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				t := time.Now()
				var st steps
				var err error
				if v == bareFloor {
					st, err = b.floorAPI(ctx)
				} else {
					st, err = b.cellRun(ctx, j, filepath.Join(out, strconv.Itoa(int(v)), j.Dir()), v)
				}
				st["run"] = time.Since(t)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					if firstErr == nil {
						firstErr = fmt.Errorf("%s, %s run %d: %w", variantHead(v), j.Cell.Key(), j.Run, err)
					}
					return
				}
				res[v] = append(res[v], st)
			}()
		}
	}
	wg.Wait()
	return res, time.Since(t0), firstErr
}

func variantHead(v variant) string {
	for _, x := range variants {
		if x.v == v {
			return x.head
		}
	}
	return "?"
}

// workdirOwner is what docker.Backend.Run reads from the image's labels: whom its work
// directory belongs to ("" when it has none), so that a run with no input files is not
// copied in when that is the cell user (docker.Prepared).
func (b *bench) workdirOwner(ctx context.Context) (string, error) {
	info, err := b.api.ImageInspect(ctx, b.image)
	if err != nil {
		return "", err
	}
	if info.Config == nil {
		return "", nil
	}
	return info.Config.Labels[docker.LabelWorkdir], nil
}

// profileSteps runs the plan through the timed copy of the run loop, its variants and the API
// floor, mixed, at every parallelism, and prints the median of every step side by side.
func (b *bench) profileSteps(ctx context.Context, rows []row) error {
	n := len(b.plan)
	fmt.Println()
	fmt.Printf("== where a run's time goes: %d runs in each of %d variants, one mixed queue per parallelism (the variants take turns) ==\n", n, len(variants))
	label, err := b.workdirOwner(ctx)
	if err != nil {
		return fmt.Errorf("inspecting the cell image: %w", err)
	}
	b.workdir = label
	// Every run of a sweep has the same input files and runs as the same user.
	probe := filepath.Join(b.tmp, "inputs")
	if err := os.MkdirAll(probe, 0o755); err != nil {
		return err
	}
	if err := b.opts.WriteInputs(probe); err != nil {
		return err
	}
	inputs := 0
	if docker.HasFiles(probe) {
		inputs = n
	}
	spec, _ := b.opts.Spec(b.plan[0], probe)
	cfg, _ := cellConfig(b.image, spec)
	prepared := docker.Prepared(label, cfg.User)
	cmd, env := incell.Command(spec.Command)
	copyIn := "made (the image's work directory is not the cell user's)"
	switch {
	case prepared && inputs == 0:
		copyIn = "skipped (the image's " + docker.LabelWorkdir + " is " + label + ", and no run has an input file)"
	case prepared:
		copyIn = fmt.Sprintf("made for the %d runs with an input file (output-schema.json), skipped for the rest", inputs)
	}
	for _, v := range variants {
		fmt.Printf("  %-11s %s\n", v.head, v.what)
		if v.v == cellAsIs {
			fmt.Printf("  %-11s Cmd %v (each run its client), Env [TMPDIR HOME %s + the request's]\n", "", cmd, strings.Join(env, " "))
			fmt.Printf("  %-11s copy-in %s; copy-out only for a run whose stream is not whole\n", "", copyIn)
		}
	}
	for _, p := range b.cfg.pars {
		out := filepath.Join(b.tmp, fmt.Sprintf("steps-%d", p))
		res, wall, err := b.mixedBatch(ctx, p, out)
		if err != nil {
			return fmt.Errorf("profile, parallel %d: %w", p, err)
		}
		if !b.cfg.keep {
			_ = os.RemoveAll(out)
		}
		var sw, fl []float64
		for _, r := range rows {
			if r.par == p {
				sw = append(sw, enginebench.Ms(r.sweep.wall)/float64(r.runs))
				fl = append(fl, enginebench.Ms(r.floor.wall)/float64(r.runs))
			}
		}
		fmt.Println()
		fmt.Printf("parallel %d: %d runs in %.1f s, load average after %s; the timed pairs above: sweep %.0f, floor %.0f ms/run\n",
			p, n*len(variants), wall.Seconds(), enginebench.LoadAvg(), enginebench.Median(sw), enginebench.Median(fl))
		printProfile(res)
	}
	fmt.Println()
	fmt.Println("steps are laps, one after the other within a run; medians over the runs, in ms; - = the step is not made")
	fmt.Println("copy-in, copy-out: made only when docker.Backend.Run makes them (see above); the median is over the runs that made them")
	fmt.Println("exit: ContainerStart returned to the wait answering; start→proxy: ContainerStart called to the proxy's first")
	fmt.Println("transcript entry (runc, the client process, the proxy); session: first to last entry (the MCP exchange and the")
	fmt.Println("ledger's exit); proxy→exit: last entry to the wait answering (the client's end, its writing the cell's stream,")
	fmt.Println("the container's exit); stream: the wait answering to the stream read to its end (files, stdout, exit entry)")
	fmt.Println("run: a run's first step to its last (the median of the sums, not the sum of the medians); - floor: run minus the floor's run;")
	fmt.Println("÷ floor: run / the floor's run, what sweep s / floor s would be with that backend and no runner of its own")
	fmt.Println("(a sweep keeps P runs going, so its wall time is about runs × run / P)")
	return nil
}

func printProfile(res map[variant][]steps) {
	fmt.Printf("%-14s", "median ms")
	for _, v := range variants {
		fmt.Printf(" %11s", v.head)
	}
	fmt.Println()
	for _, s := range append(slices.Clone(cellSteps), "run") {
		fmt.Printf("%-14s", s)
		for _, v := range variants {
			if x := stepMedian(res[v.v], s); math.IsNaN(x) {
				fmt.Printf(" %11s", "-")
			} else {
				fmt.Printf(" %11.1f", x)
			}
		}
		fmt.Println()
	}
	fl := stepMedian(res[bareFloor], "run")
	fmt.Printf("%-14s", "- floor")
	for _, v := range variants {
		fmt.Printf(" %+11.1f", stepMedian(res[v.v], "run")-fl)
	}
	fmt.Println()
	fmt.Printf("%-14s", "÷ floor")
	for _, v := range variants {
		fmt.Printf(" %11.3f", stepMedian(res[v.v], "run")/fl)
	}
	fmt.Println()
}

func stepMedian(runs []steps, name string) float64 {
	var xs []float64
	for _, st := range runs {
		if d, ok := st[name]; ok {
			xs = append(xs, enginebench.Ms(d))
		}
	}
	return enginebench.Median(xs)
}
