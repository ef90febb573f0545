// Command cachebench times the embedded study on the local backend twice with one fresh cell
// cache: the first sweep runs every cell and stores it, the second finds each one in the cache,
// checks that the server still answers its recorded requests the same, and reuses it. It prints
// the second sweep's wall time over the first's (target ≤ 0.1) and checks that both count alike.
//
//	go run ./bench/cachebench [-bin PATH] [-keep]
//
// Both sweeps run in this one process, one after the other, on the same machine load. The
// local backend is forced (DOCKER_HOST names no engine), as a user without docker runs it.
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
	"runtime"
	"strings"
	"time"

	"github.com/toolscore/toolscore/bench/internal/enginebench"
	"github.com/toolscore/toolscore/tally"
)

const goal = 0.1

func main() {
	bin := flag.String("bin", "", "an already built static toolscore binary (default: CGO_ENABLED=0 go build ./cmd/toolscore)")
	keep := flag.Bool("keep", false, "keep the temporary directory")
	timeout := flag.Duration("timeout", 60*time.Minute, "give up after this long")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, *bin, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "cachebench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, bin string, keep bool) error {
	// No engine: the sweeps run on the local backend whatever the machine has.
	os.Setenv("DOCKER_HOST", "unix:///nonexistent")
	tmp, cleanup, err := enginebench.TempDir("cachebench-", keep)
	if err != nil {
		return err
	}
	defer cleanup()
	if bin, err = enginebench.Toolscore(ctx, tmp, bin); err != nil {
		return err
	}
	fmt.Println(enginebench.CommandLine("./bench/cachebench"))
	fmt.Printf("%d CPUs, load %s\n", runtime.NumCPU(), enginebench.LoadAvg())

	cells := filepath.Join(tmp, "cells")
	sweep := func(name string) (*tally.Results, time.Duration, error) {
		out := filepath.Join(tmp, name)
		argv := []string{"run", "--backend", "local", "--fail-on", "never", "--out", out, "--cache", cells}
		stderr, wall, err := enginebench.Sweep(ctx, bin, tmp, argv)
		if err != nil {
			return nil, 0, err
		}
		b, err := os.ReadFile(filepath.Join(out, "results.json"))
		if err != nil {
			return nil, 0, err
		}
		var res tally.Results
		if err := json.Unmarshal(b, &res); err != nil {
			return nil, 0, fmt.Errorf("%s/results.json: %w", name, err)
		}
		fmt.Printf("%s: toolscore run --backend local --cache $TMP/cells: %s, %d runs executed, %d reused, %d cells, load after %s\n",
			name, wall.Round(100*time.Millisecond), res.RunsExecuted, res.RunsReused, len(res.Cells), enginebench.LoadAvg())
		// What the cache did, and why a cell it holds ran all the same.
		for _, line := range strings.Split(string(stderr), "\n") {
			if strings.HasPrefix(line, "cell cache:") || strings.Contains(line, " reused, ") || strings.HasSuffix(line, "none reused") {
				fmt.Println("  " + line)
			}
		}
		return &res, wall, nil
	}
	first, w1, err := sweep("first")
	if err != nil {
		return err
	}
	second, w2, err := sweep("second")
	if err != nil {
		return err
	}
	ratio := w2.Seconds() / w1.Seconds()
	verdict := "met"
	if ratio > goal {
		verdict = "not met"
	}
	fmt.Printf("second / first: %.3f (target ≤ %.1f: %s)\n", ratio, goal, verdict)
	if second.RunsReused != first.RunsExecuted || second.RunsExecuted != 0 {
		fmt.Printf("reuse: the second sweep ran %d runs and reused %d of the first's %d\n", second.RunsExecuted, second.RunsReused, first.RunsExecuted)
	}

	diff, err := exec.CommandContext(ctx, bin, "diff", filepath.Join(tmp, "first"), filepath.Join(tmp, "second")).CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		fmt.Println("counts: every cell as in the first sweep")
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		fmt.Printf("counts: cells differ from the first sweep:\n%s", diff)
	default:
		return fmt.Errorf("toolscore diff: %v\n%s", err, diff)
	}
	return nil
}
