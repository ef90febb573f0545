// Command studybench times the embedded study on the docker backend with its cell images built,
// and says where the machine's CPU went: inside the cells' containers (the clients, the proxy and
// the server of every run) or outside them (toolscore's runner, the engine, its shims).
//
//	go run ./bench/studybench [-parallel N] [-baseline docs/ledger-results.json] [-bin PATH] [-keep]
//
// It builds the cell images first (untimed), then runs `toolscore run` on the embedded scenario,
// reading the machine's busy and idle CPU (/proc/stat) and the CPU charged to the engine's
// cgroup parent (cgroup v1 cpuacct/docker or v2 docker/cpu.stat: every cell's processes) before
// and after. The cells' CPU over the machine's cores is the least wall time the study can take
// here with the clients it runs, whatever toolscore does around them (target: 7 minutes). It
// also sums each client's runs (runs.jsonl "ms") and compares the counts with the baseline.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/toolscore/toolscore/bench/internal/enginebench"
)

const goal = 7 * time.Minute

func main() {
	parallel := flag.Int("parallel", 0, "cells at a time (0: toolscore's default, one per CPU)")
	baseline := flag.String("baseline", "docs/ledger-results.json", "results whose counts the study must give (empty: no comparison)")
	bin := flag.String("bin", "", "an already built static toolscore binary (default: CGO_ENABLED=0 go build ./cmd/toolscore)")
	keep := flag.Bool("keep", false, "keep the temporary directory")
	timeout := flag.Duration("timeout", 60*time.Minute, "give up after this long")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, *parallel, *baseline, *bin, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "studybench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, parallel int, baseline, bin string, keep bool) error {
	enginebench.DefaultBaseImages()
	api, ver, err := enginebench.Connect(ctx)
	if err != nil {
		return err
	}
	api.Close()
	if baseline != "" {
		if baseline, err = filepath.Abs(baseline); err != nil {
			return err
		}
	}
	tmp, cleanup, err := enginebench.TempDir("studybench-", keep)
	if err != nil {
		return err
	}
	defer cleanup()
	if bin, err = enginebench.Toolscore(ctx, tmp, bin); err != nil {
		return err
	}
	fmt.Println(enginebench.CommandLine("./bench/studybench"))
	fmt.Printf("engine %s (API %s), %d CPUs, load %s\n", ver.Version, ver.APIVersion, runtime.NumCPU(), enginebench.LoadAvg())

	_, took, err := enginebench.Sweep(ctx, bin, tmp, []string{"images", "build"})
	if err != nil {
		return err
	}
	fmt.Printf("cell images built or found in %.1f s (untimed)\n\n", took.Seconds())

	out := filepath.Join(tmp, "out")
	argv := []string{"run", "--backend", "docker", "--fail-on", "never", "--out", out}
	if parallel > 0 {
		argv = append(argv, "--parallel", strconv.Itoa(parallel))
	}
	busy0, idle0, err := machineCPU()
	if err != nil {
		return err
	}
	cells0, cellsErr := cellsCPU()
	stderr, wall, err := enginebench.Sweep(ctx, bin, tmp, argv)
	if err != nil {
		return err
	}
	busy1, idle1, err := machineCPU()
	if err != nil {
		return err
	}
	cells1, _ := cellsCPU()
	runs, err := enginebench.ReadAllRuns(out, stderr)
	if err != nil {
		return err
	}

	busy, idle := busy1-busy0, idle1-idle0
	fmt.Printf("toolscore %s: %d runs in %s, load after %s\n", strings.Join(argv, " "), len(runs), wall.Round(time.Second), enginebench.LoadAvg())
	fmt.Printf("machine: %.0f CPU-s busy, %.0f CPU-s idle (%.0f%%)\n", busy.Seconds(), idle.Seconds(), 100*idle.Seconds()/(busy+idle).Seconds())
	if cellsErr != nil {
		fmt.Printf("inside the cells: not measured (%v)\n", cellsErr)
	} else {
		cells := cells1 - cells0
		floor := cells / time.Duration(runtime.NumCPU())
		fmt.Printf("inside the cells: %.0f CPU-s (%.0f%% of busy); outside them: %.0f CPU-s\n", cells.Seconds(), 100*cells.Seconds()/busy.Seconds(), (busy - cells).Seconds())
		verdict := "met"
		if wall > goal {
			verdict = "not met"
		}
		reach := "reachable with these clients"
		if floor > goal {
			reach = "out of reach with these clients on this machine"
		}
		fmt.Printf("the cells' CPU over %d CPUs: %s, the least wall time with nothing outside the cells; target %s: %s, %s\n\n",
			runtime.NumCPU(), floor.Round(time.Second), goal, verdict, reach)
	}

	byClient := map[string]time.Duration{}
	count := map[string]int{}
	var total time.Duration
	for _, r := range runs {
		d := time.Duration(r.Ms) * time.Millisecond
		byClient[r.Client] += d
		count[r.Client]++
		total += d
	}
	names := make([]string, 0, len(byClient))
	for c := range byClient {
		names = append(names, c)
	}
	sort.Slice(names, func(i, j int) bool { return byClient[names[i]] > byClient[names[j]] })
	fmt.Println("| client | runs | run time s | s/run |")
	fmt.Println("|---|---|---|---|")
	for _, c := range names {
		fmt.Printf("| %s | %d | %.0f | %.2f |\n", c, count[c], byClient[c].Seconds(), byClient[c].Seconds()/float64(count[c]))
	}
	fmt.Printf("| all | %d | %.0f | %.2f |\n\n", len(runs), total.Seconds(), total.Seconds()/float64(len(runs)))

	if baseline == "" {
		return nil
	}
	cmd := exec.CommandContext(ctx, bin, "diff", baseline, out)
	diff, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		fmt.Printf("counts: every cell as in %s\n", baseline)
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		fmt.Printf("counts: cells differ from %s:\n%s", baseline, diff)
	default:
		return fmt.Errorf("toolscore diff: %v\n%s", err, diff)
	}
	return nil
}

// machineCPU reads the machine's busy and idle time since boot from /proc/stat's cpu line.
func machineCPU() (busy, idle time.Duration, err error) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 9 || fields[0] != "cpu" {
			continue
		}
		var n [8]int64
		for i := range n {
			if n[i], err = strconv.ParseInt(fields[i+1], 10, 64); err != nil {
				return 0, 0, fmt.Errorf("/proc/stat: %w", err)
			}
		}
		// user nice system idle iowait irq softirq steal, in clock ticks of 1/100 s on Linux.
		tick := 10 * time.Millisecond
		busy = time.Duration(n[0]+n[1]+n[2]+n[5]+n[6]+n[7]) * tick
		idle = time.Duration(n[3]+n[4]) * tick
		return busy, idle, nil
	}
	return 0, 0, errors.New("/proc/stat has no cpu line")
}

// cellsCPU reads the CPU charged to the engine's cgroup parent, which keeps what its removed
// containers used.
func cellsCPU() (time.Duration, error) {
	if b, err := os.ReadFile("/sys/fs/cgroup/cpuacct/docker/cpuacct.usage"); err == nil {
		ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return time.Duration(ns), err
	}
	b, err := os.ReadFile("/sys/fs/cgroup/docker/cpu.stat")
	if err != nil {
		return 0, errors.New("no cgroup parent named docker: the engine runs its containers elsewhere (systemd driver?)")
	}
	for _, line := range strings.Split(string(b), "\n") {
		if us, ok := strings.CutPrefix(line, "usage_usec "); ok {
			n, err := strconv.ParseInt(us, 10, 64)
			return time.Duration(n) * time.Microsecond, err
		}
	}
	return 0, errors.New("/sys/fs/cgroup/docker/cpu.stat has no usage_usec")
}
