// Command cellbench measures what the docker backend's container per cell costs against the
// local backend, side by side in one run: the same sweep of the embedded study's Go clients
// (raw, go-sdk/call, mcp-go/call × clean, corrupt, type-swap, rpc-error × hidden, published, one
// protocol, stdio, 3 runs a cell, parallel 2: 72 runs in 24 cells), then per installed client
// (ts-sdk/call, python-sdk/call) its clean cell, on each backend, interleaved round by round.
//
//	go run ./bench/cellbench [-rounds 3] [-runs 3] [-clients ts-sdk/call,python-sdk/call] [-bin PATH] [-keep]
//
// It prints, per round and as medians, the Go sweep's wall time on each backend and their ratio
// (target ≤ 2), and per installed client the median of each run's own time ("ms" in runs.jsonl)
// on each backend and their difference (target ≤ 0.15 s). One untimed warm-up round builds the
// cell images and fills the install cache first. Every run must pass, on both backends.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/toolscore/toolscore/bench/internal/enginebench"
	"github.com/toolscore/toolscore/record"
)

const (
	goClients  = "raw,go-sdk/call,mcp-go/call"
	goFaults   = "clean,corrupt,type-swap,rpc-error"
	ratioGoal  = 2.0
	deltaGoalS = 0.15
)

func main() {
	rounds := flag.Int("rounds", 3, "timed rounds")
	runs := flag.Int("runs", 3, "runs per cell")
	clients := flag.String("clients", "ts-sdk/call,python-sdk/call", "installed clients whose clean cell is timed on both backends")
	bin := flag.String("bin", "", "an already built static toolscore binary (default: CGO_ENABLED=0 go build ./cmd/toolscore)")
	keep := flag.Bool("keep", false, "keep the temporary directory")
	timeout := flag.Duration("timeout", 40*time.Minute, "give up after this long")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, *rounds, *runs, strings.Split(*clients, ","), *bin, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "cellbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, rounds, runs int, installed []string, bin string, keep bool) error {
	enginebench.DefaultBaseImages()
	api, ver, err := enginebench.Connect(ctx)
	if err != nil {
		return err
	}
	defer api.Close()
	tmp, cleanup, err := enginebench.TempDir("cellbench-", keep)
	if err != nil {
		return err
	}
	defer cleanup()
	if bin, err = enginebench.Toolscore(ctx, tmp, bin); err != nil {
		return err
	}
	fmt.Println(enginebench.CommandLine("./bench/cellbench"))
	fmt.Printf("engine %s (API %s), %d CPUs, load %s\n\n", ver.Version, ver.APIVersion, runtime.NumCPU(), enginebench.LoadAvg())

	n := 0
	sweep := func(backend, clients, faults, schemas string) (time.Duration, []enginebench.Run, error) {
		n++
		out := filepath.Join(tmp, "out-"+strconv.Itoa(n))
		argv := []string{"run", "--backend", backend, "--clients", clients, "--faults", faults, "--schema", schemas,
			"--protocols", "2026-07-28", "--transports", "stdio", "--runs", strconv.Itoa(runs), "--parallel", "2",
			"--fail-on", "never", "--out", out}
		stderr, wall, err := enginebench.Sweep(ctx, bin, tmp, argv)
		if err != nil {
			return 0, nil, err
		}
		all, err := enginebench.ReadAllRuns(out, stderr)
		return wall, all, err
	}
	goSweep := func(backend string) (time.Duration, error) {
		wall, all, err := sweep(backend, goClients, goFaults, "hidden,published")
		if err == nil && len(all) != 3*4*2*runs {
			err = fmt.Errorf("the %s sweep made %d runs, want %d", backend, len(all), 3*4*2*runs)
		}
		return wall, err
	}
	cleanMs := func(backend, c string) (float64, error) {
		_, all, err := sweep(backend, c, "clean", "hidden")
		if err != nil {
			return 0, err
		}
		var ms []float64
		for _, r := range all {
			if r.Outcome != record.Passed {
				return 0, fmt.Errorf("%s on %s: a clean run %s", c, backend, r.Outcome)
			}
			ms = append(ms, float64(r.Ms))
		}
		return enginebench.Median(ms), nil
	}

	// Warm-up: the cell images and the install cache.
	for _, b := range []string{"docker", "local"} {
		if _, err := goSweep(b); err != nil {
			return err
		}
		for _, c := range installed {
			if _, err := cleanMs(b, c); err != nil {
				return err
			}
		}
	}

	var dock, loc []float64
	ms := map[string]map[string][]float64{}
	fmt.Println("| round | Go sweep, docker s | Go sweep, local s | ratio |")
	fmt.Println("|---|---|---|---|")
	for i := 1; i <= rounds; i++ {
		// The side that goes first alternates, so a trend in the machine's load hits both.
		order := []string{"docker", "local"}
		if i%2 == 0 {
			order = []string{"local", "docker"}
		}
		walls := map[string]time.Duration{}
		for _, b := range order {
			if walls[b], err = goSweep(b); err != nil {
				return err
			}
			for _, c := range installed {
				m, err := cleanMs(b, c)
				if err != nil {
					return err
				}
				if ms[c] == nil {
					ms[c] = map[string][]float64{}
				}
				ms[c][b] = append(ms[c][b], m)
			}
		}
		d, l := walls["docker"].Seconds(), walls["local"].Seconds()
		dock, loc = append(dock, d), append(loc, l)
		fmt.Printf("| %d | %.2f | %.2f | %.2f |\n", i, d, l, d/l)
	}
	md, ml := enginebench.Median(dock), enginebench.Median(loc)
	fmt.Printf("| median | %.2f | %.2f | %.2f (target ≤ %.0f: %s) |\n\n", md, ml, md/ml, ratioGoal, verdict(md/ml <= ratioGoal))
	fmt.Println("| clean cell | docker ms/run | local ms/run | docker − local | target ≤ 150 ms |")
	fmt.Println("|---|---|---|---|---|")
	for _, c := range installed {
		d, l := enginebench.Median(ms[c]["docker"]), enginebench.Median(ms[c]["local"])
		fmt.Printf("| %s | %.0f | %.0f | %+.0f | %s |\n", c, d, l, d-l, verdict((d-l)/1000 <= deltaGoalS))
	}
	fmt.Printf("\nload after: %s\n", enginebench.LoadAvg())
	return nil
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "not met"
}
