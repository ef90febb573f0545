// Command floodsweep measures what a flood of messages costs the runner's own memory.
//
//	go run ./bench/floodsweep [-frames 10000,100000,1000000] [-runs 1] [-parallel 1] [-bin PATH] [-keep]
//
// It builds the static toolscore binary once into a temporary directory (or copies -bin there)
// and, for each count N of -frames, writes a manifest there: the hostile built-in server's flood
// tool with arguments {frames: N} (N notifications/message before a clean answer), fault clean,
// schema as-is, client raw, -runs runs. It runs
//
//	$TMP/toolscore run $TMP/flood-N.yaml --backend local --parallel P --out $TMP/out-N
//
// and, while it runs, reads the high-water mark of the resident set (VmHWM in /proc/PID/status)
// of the toolscore process itself every 5 ms, and of the proxy it starts (a process of its own,
// under the adapter) every 50 ms. It prints both for each N beside the outcome, the size of the
// transcripts and the notifications they hold (N each: the files stay whole), the CPU time of the
// toolscore process and the wall time, and the ratio of the largest peak of the toolscore
// process to the smallest (target: at most 2). A last read comes at most 5 ms (50 ms for the
// proxy) before the process exits, so a figure can only be low by what it grows in that time.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/toolscore/toolscore/bench/internal/enginebench"
	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/record"
)

func main() {
	frames := flag.String("frames", "10000,100000,1000000", "notification counts, comma-separated")
	runs := flag.Int("runs", 1, "runs of the cell")
	parallel := flag.Int("parallel", 1, "runs at once")
	bin := flag.String("bin", "", "an already built static toolscore binary (default: CGO_ENABLED=0 go build ./cmd/toolscore)")
	keep := flag.Bool("keep", false, "keep the temporary directory (its path is printed)")
	timeout := flag.Duration("timeout", 30*time.Minute, "give up (and stop the sweep) after this long")
	flag.Parse()
	var counts []int
	for f := range strings.SplitSeq(*frames, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			fmt.Fprintf(os.Stderr, "floodsweep: -frames: %q is not a count\n", f)
			os.Exit(2)
		}
		counts = append(counts, n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, counts, *runs, *parallel, *bin, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "floodsweep:", err)
		cancel()
		os.Exit(1)
	}
}

// figures are what one sweep measured.
type figures struct {
	frames        int
	outcome       string
	hwm, proxyHWM int64 // KiB
	cpu, wall     time.Duration
	teeBytes      int64
	notifications int
}

func run(ctx context.Context, counts []int, runs, parallel int, bin string, keep bool) error {
	fmt.Printf("$ %s\n", enginebench.CommandLine("./bench/floodsweep"))
	fmt.Printf("go %s %s/%s, %d CPUs\n", strings.TrimPrefix(runtime.Version(), "go"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	tmp, cleanup, err := enginebench.TempDir("floodsweep-", keep)
	if err != nil {
		return err
	}
	defer cleanup()
	self, err := enginebench.Toolscore(ctx, tmp, bin)
	if err != nil {
		return err
	}
	fmt.Printf("sweep: toolscore run flood-N.yaml (hostile flood, N notifications/message then the answer; raw; clean; %d runs) --backend local --parallel %d\n\n", runs, parallel)
	fmt.Printf("%10s  %-10s  %18s  %15s  %14s  %14s  %9s  %9s\n", "frames", "outcome", "toolscore peak RSS", "proxy peak RSS", "transcripts", "fewest notif.", "CPU", "wall")
	var all []figures
	for _, n := range counts {
		f, err := sweep(ctx, tmp, self, n, runs, parallel)
		if err != nil {
			return fmt.Errorf("%d frames: %w", n, err)
		}
		all = append(all, f)
		fmt.Printf("%10d  %-10s  %14.1f MiB  %11.1f MiB  %10.1f MiB  %14d  %9s  %9s\n", f.frames, f.outcome,
			float64(f.hwm)/1024, float64(f.proxyHWM)/1024, float64(f.teeBytes)/(1<<20), f.notifications,
			f.cpu.Round(10*time.Millisecond), f.wall.Round(10*time.Millisecond))
	}
	lo, hi := all[0], all[0]
	for _, f := range all {
		if f.hwm < lo.hwm {
			lo = f
		}
		if f.hwm > hi.hwm {
			hi = f
		}
	}
	fmt.Printf("\ntoolscore peak RSS, largest ÷ smallest: %.2f (%d frames ÷ %d frames; target ≤ 2)\n",
		float64(hi.hwm)/float64(lo.hwm), hi.frames, lo.frames)
	return nil
}

// sweep runs the flood of n frames once and measures it.
func sweep(ctx context.Context, tmp, self string, n, runs, parallel int) (figures, error) {
	f := figures{frames: n}
	manifest := filepath.Join(tmp, fmt.Sprintf("flood-%d.yaml", n))
	if err := os.WriteFile(manifest, []byte(fmt.Sprintf(`name: flood
server: {builtin: hostile}
tool: flood
arguments: {frames: %d}
faults: [clean]
schema_modes: [as-is]
clients: [raw]
runs: %d
timeout: 20m
`, n, runs)), 0o644); err != nil {
		return f, err
	}
	out := filepath.Join(tmp, fmt.Sprintf("out-%d", n))
	cmd := exec.CommandContext(ctx, self, "run", manifest, "--backend", "local", "--parallel", strconv.Itoa(parallel), "--out", out)
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
	for i := 0; ; i++ {
		select {
		case werr = <-done:
			break wait
		case <-tick.C:
			f.hwm = max(f.hwm, enginebench.PeakRSS(cmd.Process.Pid)>>10)
			f.cpu = max(f.cpu, enginebench.CPUTime(cmd.Process.Pid))
			if i%10 == 0 {
				for _, pid := range proxies(cmd.Process.Pid) {
					f.proxyHWM = max(f.proxyHWM, enginebench.PeakRSS(pid)>>10)
				}
			}
		}
	}
	f.wall = time.Since(start)
	if werr != nil && cmd.ProcessState.ExitCode() != 1 { // 1 is an unmet expectation: none here
		return f, fmt.Errorf("toolscore run: %v\n%s", werr, enginebench.Tail(stderr.Bytes(), 3000))
	}
	var err error
	if f.outcome, err = outcome(out); err != nil {
		return f, err
	}
	tees, _ := filepath.Glob(filepath.Join(out, record.RunsDir, "*", "*", record.TeeFile))
	if len(tees) != runs {
		return f, fmt.Errorf("%d transcripts in %s, want %d", len(tees), out, runs)
	}
	f.notifications = n
	for _, tee := range tees {
		size, got, err := notifications(tee)
		if err != nil {
			return f, err
		}
		f.teeBytes += size
		f.notifications = min(f.notifications, got)
	}
	return f, nil
}

// proxies are the toolscore proxy processes among the descendants of pid.
func proxies(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The fields after the command's name, which is in parentheses and may hold spaces.
		if f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:])); len(f) > 1 {
			parent[p], _ = strconv.Atoi(f[1])
		}
	}
	var out []int
	for p := range parent {
		for a := parent[p]; a > 1; a = parent[a] {
			if a == pid {
				argv, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/cmdline")
				if args := strings.Split(string(argv), "\x00"); len(args) > 1 && args[1] == "proxy" {
					out = append(out, p)
				}
				break
			}
		}
	}
	return out
}

// outcome is the runs' outcomes, from results.json.
func outcome(out string) (string, error) {
	b, err := os.ReadFile(outdir.Results(out))
	if err != nil {
		return "", err
	}
	var res struct {
		Cells []struct {
			Outcomes map[string]int `json:"outcomes"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		return "", err
	}
	var got []string
	for _, c := range res.Cells {
		for o, k := range c.Outcomes {
			got = append(got, fmt.Sprintf("%s %d", o, k))
		}
	}
	return strings.Join(got, ","), nil
}

// notifications is the size of a transcript and how many notifications/message went to the
// client in it.
func notifications(tee string) (size int64, n int, err error) {
	f, err := os.Open(tee)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		line, err := r.ReadSlice('\n')
		size += int64(len(line))
		if bytes.Contains(line, []byte(`"dir":"to-client"`)) && bytes.Contains(line, []byte(`notifications/message`)) {
			n++
		}
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer (the answer is not): read on, it is not counted.
			for err == bufio.ErrBufferFull {
				line, err = r.ReadSlice('\n')
				size += int64(len(line))
			}
		}
		if err == io.EOF {
			return size, n, nil
		}
		if err != nil {
			return size, n, err
		}
	}
}
