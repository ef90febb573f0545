// Command handedsweep measures what a large handed value costs the runner's own memory and the
// record of its run.
//
//	go run ./bench/handedsweep [-mib 1,16,128] [-bin PATH] [-keep]
//
// It builds the static toolscore binary once into a temporary directory (or copies -bin there)
// and, for each size N of -mib, writes there a manifest of the built-in ledger, fault clean,
// schema hidden, and one client of its own (runtime binary) whose adapter, a shell script, prints
// a framework's handed value of N MiB (an excerpt of N MiB of "x", and a block as large) without
// calling the tool. It runs
//
//	$TMP/toolscore run $TMP/handed-N.yaml --backend local --out $TMP/out-N
//
// reading the high-water mark of the resident set (VmHWM in /proc/PID/status) of the toolscore
// process every 5 ms, and prints for each N the outcome, that peak, the size of the run's line
// in runs.jsonl and the wall time, then the ratio of the largest peak to the smallest (target: at
// most 2) and of the largest record line to the smallest (target: at most 2). A last read comes
// at most 5 ms before the process exits, so a peak can only be low by what it grows in that time.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/toolscore/toolscore/bench/internal/enginebench"
	"github.com/toolscore/toolscore/record"
)

func main() {
	sizes := flag.String("mib", "1,16,128", "sizes of the handed value in MiB, comma-separated")
	bin := flag.String("bin", "", "an already built static toolscore binary (default: CGO_ENABLED=0 go build ./cmd/toolscore)")
	keep := flag.Bool("keep", false, "keep the temporary directory (its path is printed)")
	timeout := flag.Duration("timeout", 20*time.Minute, "give up (and stop the sweep) after this long")
	flag.Parse()
	var mibs []int
	for f := range strings.SplitSeq(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "handedsweep: -mib: %q is not a size\n", f)
			os.Exit(2)
		}
		mibs = append(mibs, n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, mibs, *bin, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "handedsweep:", err)
		cancel()
		os.Exit(1)
	}
}

// adapter prints a handed value of $1 MiB: its excerpt and its block are that many "x".
const adapter = `#!/bin/sh
x() { head -c $(($1 * 1048576)) /dev/zero | tr '\0' x; }
printf '{"client":"big-handed","library":"handedsweep 1","listed":false,"handed":{"kind":"text","excerpt":"'
x "$1"
printf '","block":{"text":"'
x "$1"
printf '"}}}\n'
`

// figures are what one sweep measured.
type figures struct {
	mib     int
	outcome string
	hwm     int64 // KiB
	line    int   // bytes of the run's record
	wall    time.Duration
}

func run(ctx context.Context, mibs []int, bin string, keep bool) error {
	fmt.Printf("$ %s\n", enginebench.CommandLine("./bench/handedsweep"))
	fmt.Printf("go %s %s/%s, %d CPUs\n", strings.TrimPrefix(runtime.Version(), "go"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	tmp, cleanup, err := enginebench.TempDir("handedsweep-", keep)
	if err != nil {
		return err
	}
	defer cleanup()
	self, err := enginebench.Toolscore(ctx, tmp, bin)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, "big.sh"), []byte(adapter), 0o755); err != nil {
		return err
	}
	fmt.Printf("sweep: toolscore run handed-N.yaml (ledger; a client of its own printing a handed value of N MiB; clean) --backend local\n\n")
	fmt.Printf("%8s  %-12s  %18s  %12s  %9s\n", "MiB", "outcome", "toolscore peak RSS", "record line", "wall")
	var all []figures
	for _, n := range mibs {
		f, err := sweep(ctx, tmp, self, n)
		if err != nil {
			return fmt.Errorf("%d MiB: %w", n, err)
		}
		all = append(all, f)
		fmt.Printf("%8d  %-12s  %14.1f MiB  %8.1f KiB  %9s\n", f.mib, f.outcome, float64(f.hwm)/1024, float64(f.line)/1024, f.wall.Round(10*time.Millisecond))
	}
	lo, hi, short, long := all[0], all[0], all[0], all[0]
	for _, f := range all {
		if f.hwm < lo.hwm {
			lo = f
		}
		if f.hwm > hi.hwm {
			hi = f
		}
		if f.line < short.line {
			short = f
		}
		if f.line > long.line {
			long = f
		}
	}
	fmt.Printf("\ntoolscore peak RSS, largest ÷ smallest: %.2f (%d MiB ÷ %d MiB; target ≤ 2)\n", float64(hi.hwm)/float64(lo.hwm), hi.mib, lo.mib)
	fmt.Printf("record line, largest ÷ smallest: %.2f (%d MiB ÷ %d MiB; target ≤ 2)\n", float64(long.line)/float64(short.line), long.mib, short.mib)
	return nil
}

// sweep runs the cell once with a handed value of n MiB and measures it.
func sweep(ctx context.Context, tmp, self string, n int) (figures, error) {
	f := figures{mib: n}
	manifest := filepath.Join(tmp, fmt.Sprintf("handed-%d.yaml", n))
	if err := os.WriteFile(manifest, []byte(fmt.Sprintf(`name: handed
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [clean]
schema_modes: [hidden]
protocols: [2025-11-25]
clients:
  - name: big-handed
    runtime: binary
    command: [sh, ./big.sh, "%d"]
runs: 1
timeout: 10m
`, n)), 0o644); err != nil {
		return f, err
	}
	out := filepath.Join(tmp, fmt.Sprintf("out-%d", n))
	cmd := exec.CommandContext(ctx, self, "run", manifest, "--backend", "local", "--out", out)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return f, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	var werr error
wait:
	for {
		select {
		case werr = <-done:
			break wait
		case <-tick.C:
			f.hwm = max(f.hwm, enginebench.PeakRSS(cmd.Process.Pid)>>10)
		}
	}
	f.wall = time.Since(start)
	if werr != nil && cmd.ProcessState.ExitCode() != 1 {
		return f, fmt.Errorf("toolscore run: %v\n%s", werr, enginebench.Tail(stderr.Bytes(), 3000))
	}
	runs, err := os.Open(filepath.Join(out, record.RunsFile))
	if err != nil {
		return f, err
	}
	defer runs.Close()
	r := bufio.NewReaderSize(runs, 1<<20)
	line, err := r.ReadBytes('\n')
	if err != nil {
		return f, fmt.Errorf("reading the run's record: %w", err)
	}
	f.line = len(line)
	if i := bytes.Index(line, []byte(`"outcome":"`)); i >= 0 {
		f.outcome, _, _ = strings.Cut(string(line[i+len(`"outcome":"`):]), `"`)
	}
	return f, nil
}
