// Command hugesweep measures what one huge answer costs the runner's own memory.
//
//	go run ./bench/hugesweep [-mib 48] [-parallel 1] [-bin PATH] [-keep]
//
// It builds the static toolscore binary once into a temporary directory (or copies -bin there)
// and writes a manifest there: the hostile built-in server's huge tool with arguments {mib: N},
// fault clean, schema as-is, clients raw and mcp-go/call, one run each. It runs
//
//	$TMP/toolscore run $TMP/huge.yaml --backend local --parallel P --out $TMP/out
//
// and, while it runs, reads the high-water mark of the resident set of the toolscore process
// itself (VmHWM in /proc/PID/status, every 5 ms; the adapters, proxies and servers it starts are
// processes of their own, not counted) and prints it beside the size of the largest message on
// the wire (the answer, from the transcript), as a ratio, with the outcomes, the size of
// runs.jsonl and of its largest record, and the CPU time of the toolscore process. The last read comes at most 5 ms before the process
// exits, so the figure can only be low by what it grows in its last 5 ms (writing the results).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
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
	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

func main() {
	mib := flag.Int("mib", 48, "size of the huge answer's text, in MiB")
	parallel := flag.Int("parallel", 1, "runs at once")
	bin := flag.String("bin", "", "an already built static toolscore binary (default: CGO_ENABLED=0 go build ./cmd/toolscore)")
	keep := flag.Bool("keep", false, "keep the temporary directory (its path is printed)")
	timeout := flag.Duration("timeout", 10*time.Minute, "give up (and stop the sweep) after this long")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, *mib, *parallel, *bin, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "hugesweep:", err)
		cancel()
		os.Exit(1)
	}
}

func run(ctx context.Context, mib, parallel int, bin string, keep bool) error {
	fmt.Printf("$ %s\n", enginebench.CommandLine("./bench/hugesweep"))
	fmt.Printf("go %s %s/%s, %d CPUs\n", strings.TrimPrefix(runtime.Version(), "go"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	tmp, cleanup, err := enginebench.TempDir("hugesweep-", keep)
	if err != nil {
		return err
	}
	defer cleanup()
	self, err := enginebench.Toolscore(ctx, tmp, bin)
	if err != nil {
		return err
	}
	manifest := filepath.Join(tmp, "huge.yaml")
	if err := os.WriteFile(manifest, []byte(fmt.Sprintf(`name: huge answer
server: {builtin: hostile}
tool: huge
arguments: {mib: %d}
faults: [clean]
schema_modes: [as-is]
clients: [raw, mcp-go/call]
runs: 1
timeout: 5m
`, mib)), 0o644); err != nil {
		return err
	}
	out := filepath.Join(tmp, "out")
	cmd := exec.CommandContext(ctx, self, "run", manifest, "--backend", "local", "--parallel", strconv.Itoa(parallel), "--out", out)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	fmt.Printf("sweep: toolscore run huge.yaml (hostile huge, mib %d; raw and mcp-go/call; 1 run each) --backend local --parallel %d\n\n", mib, parallel)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var hwm int64
	var cpu time.Duration
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	var werr error
wait:
	for {
		select {
		case werr = <-done:
			break wait
		case <-tick.C:
			if kb := enginebench.PeakRSS(cmd.Process.Pid) >> 10; kb > hwm {
				hwm = kb
			}
			if c := enginebench.CPUTime(cmd.Process.Pid); c > cpu {
				cpu = c
			}
		}
	}
	took := time.Since(start)
	if werr != nil && cmd.ProcessState.ExitCode() != 1 { // 1 is an unmet expectation: none here
		return fmt.Errorf("toolscore run: %v\n%s", werr, stderr.String())
	}

	largest, outcomes, err := inspect(out)
	if err != nil {
		return err
	}
	recMax, runsSize, err := records(filepath.Join(out, record.RunsFile))
	if err != nil {
		return err
	}
	fmt.Printf("  outcomes             %s\n", strings.Join(outcomes, ", "))
	fmt.Printf("  largest message      %.1f MiB (%d bytes, the answer as the transcript holds it)\n", float64(largest)/(1<<20), largest)
	fmt.Printf("  toolscore peak RSS   %.1f MiB (VmHWM of the toolscore run process)\n", float64(hwm)/1024)
	fmt.Printf("  ratio                %.2f × the largest message\n", float64(hwm<<10)/float64(largest))
	fmt.Printf("  runs.jsonl           %d bytes, largest record line %d bytes\n", runsSize, recMax)
	fmt.Printf("  toolscore CPU        %s (user + system of the toolscore run process alone)\n", cpu.Round(10*time.Millisecond))
	fmt.Printf("  wall time            %s\n", took.Round(10*time.Millisecond))
	return nil
}

// inspect finds the largest message in the runs' transcripts, and each cell's outcome.
func inspect(out string) (largest int64, outcomes []string, err error) {
	tees, _ := filepath.Glob(filepath.Join(out, record.RunsDir, "*", "*", record.TeeFile))
	for _, tee := range tees {
		entries, err := transcript.Read(tee)
		if err != nil {
			return 0, nil, fmt.Errorf("%s: %w", tee, err)
		}
		for _, e := range entries {
			size := int64(len(e.Wire))
			if e.Large != nil {
				size = e.Large.Bytes
			}
			largest = max(largest, size)
		}
	}
	b, err := os.ReadFile(outdir.Results(out))
	if err != nil {
		return 0, nil, err
	}
	var res struct {
		Cells []struct {
			Client   string         `json:"client"`
			Outcomes map[string]int `json:"outcomes"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		return 0, nil, err
	}
	for _, c := range res.Cells {
		outcomes = append(outcomes, fmt.Sprintf("%s %v", c.Client, c.Outcomes))
	}
	if largest == 0 {
		return 0, nil, fmt.Errorf("no message in %d transcripts", len(tees))
	}
	return largest, outcomes, nil
}

// records is the size of runs.jsonl and of its largest line.
func records(path string) (largest, total int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var line int64
	for {
		b, err := r.ReadSlice('\n')
		line += int64(len(b))
		total += int64(len(b))
		if err == bufio.ErrBufferFull {
			continue
		}
		largest = max(largest, line)
		line = 0
		if err != nil {
			return largest, total, nil
		}
	}
}
