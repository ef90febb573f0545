// Command proxybench measures what toolscore's stdio proxy costs (issue 2).
//
//	go run ./bench/proxybench [-rounds N] [-batch N] [-sizes 1,16,64] [-bin PATH]
//
// Part 1, small calls: sequential tools/call round trips (write one request line, read its
// response line) over one long-lived session per setup, after one initialize, for
//
//	a  direct       toolscore ledger
//	b  passthrough  bench/passthrough toolscore ledger (only copies bytes: the floor)
//	c  clean        toolscore proxy --fault clean --tee FILE -- toolscore ledger
//	d  corrupt      toolscore proxy --fault corrupt --tool get_account_balance --tee FILE -- ...
//
// run round-robin in batches, the starting setup rotating every round, so machine noise hits all
// four alike. It prints p10, median, p90 and mean per setup in microseconds, the added median
// time per call against direct, and (c-a)/(b-a) against the target 1.5.
//
// Part 2, large results: one call each to bench/bigserver answering one text block of N MiB,
// direct, through the passthrough and through the clean proxy with its tee on; it checks the
// line arrived byte-intact (sha256 against the direct call's) and that the tee holds it, and
// reports the proxy's peak memory (VmHWM of the proxy process, read once the answer is in)
// as a ratio to the answer's size, against the target 4x.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/toolscore/toolscore/bench/internal/enginebench"
)

const (
	targetRatio  = 1.5 // (c-a)/(b-a), medians
	targetMemory = 4.0 // proxy peak RSS / result size
)

func main() {
	rounds := flag.Int("rounds", 2000, "timed tools/call round trips per setup")
	batch := flag.Int("batch", 50, "calls per setup before moving to the next one")
	warmup := flag.Int("warmup", 100, "untimed calls per setup before the timed rounds")
	sizes := flag.String("sizes", "1,16,64", "result sizes for the large-result part, in MiB (empty: skip it)")
	bin := flag.String("bin", "", "an already built toolscore binary (default: go build ./cmd/toolscore)")
	timeout := flag.Duration("timeout", 110*time.Second, "give up (and stop every process started) after this long")
	flag.Parse()
	if *rounds < 1 || *batch < 1 || *warmup < 0 {
		fmt.Fprintln(os.Stderr, "proxybench: -rounds and -batch must be at least 1, -warmup at least 0")
		os.Exit(2)
	}
	mibs, err := parseSizes(*sizes)
	if err != nil {
		fmt.Fprintln(os.Stderr, "proxybench: -sizes:", err)
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, *rounds, *batch, *warmup, mibs, *bin); err != nil {
		fmt.Fprintln(os.Stderr, "proxybench:", err)
		cancel()
		os.Exit(1)
	}
}

func parseSizes(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a whole number of MiB above 0", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// commandLine is how the program was invoked, with go run's temporary binary named as the
// package it was built from.
func commandLine() string {
	name := os.Args[0]
	if strings.Contains(name, "go-build") {
		name = "go run ./bench/proxybench"
	}
	return strings.Join(append([]string{name}, os.Args[1:]...), " ")
}

func run(ctx context.Context, rounds, batch, warmup int, mibs []int, bin string) error {
	fmt.Printf("$ %s\n", commandLine())
	fmt.Printf("go %s %s/%s, %d CPUs, GOMAXPROCS %d; rounds %d per setup in batches of %d after %d warm-up calls\n",
		strings.TrimPrefix(runtime.Version(), "go"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), rounds, batch, warmup)

	tmp, err := os.MkdirTemp("", "proxybench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bins, err := build(ctx, tmp, bin)
	if err != nil {
		return err
	}
	if err := small(ctx, tmp, bins, rounds, batch, warmup); err != nil {
		return err
	}
	if len(mibs) > 0 {
		return large(ctx, tmp, bins, mibs)
	}
	return nil
}

type binaries struct{ toolscore, passthrough, bigserver string }

// build compiles the helpers (and toolscore, unless given) from the module holding this program.
func build(ctx context.Context, dir, toolscore string) (binaries, error) {
	gomod, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return binaries{}, fmt.Errorf("go env GOMOD: %w", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	pkgs := []string{"./bench/passthrough", "./bench/bigserver"}
	if toolscore == "" {
		pkgs = append(pkgs, "./cmd/toolscore")
		toolscore = filepath.Join(dir, "toolscore")
	} else if toolscore, err = filepath.Abs(toolscore); err != nil {
		return binaries{}, err
	}
	cmd := exec.CommandContext(ctx, "go", append([]string{"build", "-o", dir + string(filepath.Separator)}, pkgs...)...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return binaries{}, fmt.Errorf("go build %s: %w\n%s", strings.Join(pkgs, " "), err, out)
	}
	fmt.Printf("built: (cd %s && go build -o %s/ %s)\n", root, dir, strings.Join(pkgs, " "))
	return binaries{toolscore, filepath.Join(dir, "passthrough"), filepath.Join(dir, "bigserver")}, nil
}

// session is one MCP stdio session over a started process, spoken as bare JSON-RPC lines.
type session struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	nextID int
}

func start(ctx context.Context, argv []string) (*session, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	cmd.WaitDelay = 5 * time.Second
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", argv[0], err)
	}
	s := &session{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10)}
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"proxybench","version":"1"}}}`+"\n", s.id())
	if _, err := s.roundTrip([]byte(init), nil); err != nil {
		s.close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *session) id() int { s.nextID++; return s.nextID }

// roundTrip writes one request line and reads one response line, handing each piece of it to
// sink (nil: kept in the returned slice, valid until the next read). It returns the line's size.
func (s *session) roundTrip(req []byte, sink io.Writer) ([]byte, error) {
	if _, err := s.in.Write(req); err != nil {
		return nil, fmt.Errorf("writing the request: %w", err)
	}
	if sink == nil {
		line, err := s.out.ReadSlice('\n')
		if err != nil {
			return nil, fmt.Errorf("reading the response: %w", err)
		}
		return line, nil
	}
	for {
		chunk, err := s.out.ReadSlice('\n')
		sink.Write(chunk)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading the response: %w", err)
		}
		return nil, nil
	}
}

// close ends the session the way an MCP client does (closes the server's stdin) and returns the
// process's resource usage once it has exited.
func (s *session) close() (*syscall.Rusage, error) {
	_ = s.in.Close()
	err := s.cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		err = nil
	}
	var ru *syscall.Rusage
	if s.cmd.ProcessState != nil {
		ru, _ = s.cmd.ProcessState.SysUsage().(*syscall.Rusage)
	}
	return ru, err
}

// --- part 1: small calls ---------------------------------------------------------------------

type setup struct {
	key, name string
	argv      []string
	sess      *session
	times     []time.Duration
	sums      []uint64        // fnv-64a of each timed response, to compare setups call by call
	roundMed  []time.Duration // the median of each round's batch, for the paired estimate
	cpu       time.Duration
	tee       string
}

func small(ctx context.Context, tmp string, b binaries, rounds, batch, warmup int) error {
	ledger := []string{b.toolscore, "ledger"}
	teeC, teeD := filepath.Join(tmp, "clean.tee.jsonl"), filepath.Join(tmp, "corrupt.tee.jsonl")
	setups := []*setup{
		{key: "a", name: "direct", argv: ledger},
		{key: "b", name: "passthrough", argv: append([]string{b.passthrough}, ledger...)},
		{key: "c", name: "proxy clean", argv: append([]string{b.toolscore, "proxy", "--fault", "clean", "--tee", teeC, "--"}, ledger...), tee: teeC},
		{key: "d", name: "proxy corrupt", argv: append([]string{b.toolscore, "proxy", "--fault", "corrupt", "--tool", "get_account_balance", "--tee", teeD, "--"}, ledger...), tee: teeD},
	}
	fmt.Println()
	fmt.Println("== small calls: get_account_balance {\"account_id\":\"ACC-4471\"}, one session per setup ==")
	for _, s := range setups {
		fmt.Printf("  %s %-13s %s\n", s.key, s.name, strings.Join(shortArgv(s.argv, tmp), " "))
	}
	for _, s := range setups {
		sess, err := start(ctx, s.argv)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		s.sess = sess
		s.times = make([]time.Duration, 0, rounds)
		s.sums = make([]uint64, 0, rounds)
	}
	defer func() {
		for _, s := range setups {
			if s.sess != nil {
				_, _ = s.sess.close()
			}
		}
	}()

	call := func(s *setup, timed bool) error {
		id := s.sess.id()
		req := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_account_balance","arguments":{"account_id":"ACC-4471"}}}`+"\n", id)
		t0 := time.Now()
		line, err := s.sess.roundTrip(req, nil)
		d := time.Since(t0)
		if err != nil {
			return fmt.Errorf("%s, call id %d: %w", s.name, id, err)
		}
		if !bytes.Contains(line, fmt.Appendf(nil, `"id":%d,`, id)) {
			return fmt.Errorf("%s, call id %d: the response is not for it: %.200s", s.name, id, line)
		}
		if timed {
			h := fnv.New64a()
			h.Write(line)
			s.times = append(s.times, d)
			s.sums = append(s.sums, h.Sum64())
		}
		return nil
	}
	for i := 0; i < warmup; i++ {
		for _, s := range setups {
			if err := call(s, false); err != nil {
				return err
			}
		}
	}
	began := time.Now()
	for round := 0; len(setups[0].times) < rounds; round++ {
		n := min(batch, rounds-len(setups[0].times))
		for k := range setups {
			s := setups[(round+k)%len(setups)]
			for i := 0; i < n; i++ {
				if err := call(s, true); err != nil {
					return err
				}
			}
			last := slices.Clone(s.times[len(s.times)-n:])
			slices.Sort(last)
			s.roundMed = append(s.roundMed, pct(last, 0.5))
		}
	}
	wall := time.Since(began)
	calls := warmup + rounds
	for _, s := range setups {
		ru, err := s.sess.close()
		s.sess = nil
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		if ru != nil {
			s.cpu = time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
		}
	}

	fmt.Printf("%d timed calls per setup, %d interleaved in %s\n\n", rounds, rounds*len(setups), wall.Round(time.Millisecond))
	fmt.Printf("%-3s %-14s %8s %8s %8s %8s %10s %14s\n", "", "setup", "p10 µs", "p50 µs", "p90 µs", "mean µs", "cpu µs/call", "same as a")
	med := map[string]float64{}
	for _, s := range setups {
		sorted := slices.Clone(s.times)
		slices.Sort(sorted)
		med[s.key] = us(pct(sorted, 0.5))
		same := 0
		for i, h := range s.sums {
			if h == setups[0].sums[i] {
				same++
			}
		}
		fmt.Printf("%-3s %-14s %8.1f %8.1f %8.1f %8.1f %10.1f %14s\n", s.key, s.name,
			us(pct(sorted, 0.1)), med[s.key], us(pct(sorted, 0.9)), us(mean(sorted)),
			us(s.cpu)/float64(calls), fmt.Sprintf("%d/%d", same, len(s.sums)))
	}
	fmt.Println()
	fmt.Println("cpu µs/call: user+sys of the whole process tree (the setup's process and the ledger under it), start-up included, over all its calls")
	fmt.Println("same as a: timed responses byte-identical to the direct one with the same id (clean must be all, corrupt none)")
	fmt.Println()
	ba, ca, da := med["b"]-med["a"], med["c"]-med["a"], med["d"]-med["a"]
	fmt.Printf("added per call, medians:  b-a %+.1f µs   c-a %+.1f µs   d-a %+.1f µs\n", ba, ca, da)
	if ba > 0 {
		r := ca / ba
		fmt.Printf("(c-a)/(b-a) = %.2f   target <= %.1f: %s\n", r, targetRatio, verdict(r <= targetRatio))
	} else {
		fmt.Printf("(c-a)/(b-a) = n/a (the passthrough added nothing measurable: %+.1f µs)   target <= %.1f: n/a\n", ba, targetRatio)
	}
	paired := map[string]float64{}
	for _, s := range setups[1:] {
		diffs := make([]time.Duration, len(s.roundMed))
		for r := range diffs {
			diffs[r] = s.roundMed[r] - setups[0].roundMed[r]
		}
		slices.Sort(diffs)
		paired[s.key] = us(pct(diffs, 0.5))
	}
	pr := "n/a"
	if paired["b"] > 0 {
		pr = fmt.Sprintf("%.2f", paired["c"]/paired["b"])
	}
	fmt.Printf("added per call, paired:   b-a %+.1f µs   c-a %+.1f µs   d-a %+.1f µs   (c-a)/(b-a) = %s\n", paired["b"], paired["c"], paired["d"], pr)
	fmt.Printf("  (paired: the median over the %d rounds of each round's batch median minus direct's in the same round; less moved by load that comes and goes)\n", len(setups[0].roundMed))
	fmt.Println("note: the direct baseline can be bimodal on 2 cores (the server's goroutines on one or both); read the added microseconds, not only the ratio")
	for _, s := range setups {
		if s.tee == "" {
			continue
		}
		if st, err := os.Stat(s.tee); err == nil {
			fmt.Printf("tee %s: %d bytes, %.0f bytes per call\n", s.name, st.Size(), float64(st.Size())/float64(calls))
		}
	}
	return nil
}

// shortArgv names the binaries and files in argv without the temporary directory.
func shortArgv(argv []string, tmp string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = strings.ReplaceAll(a, tmp+string(filepath.Separator), "$TMP/")
	}
	return out
}

func pct(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func mean(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(max(1, len(ds)))
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

// --- part 2: large results -------------------------------------------------------------------

type countingHash struct {
	h interface {
		io.Writer
		Sum([]byte) []byte
	}
	n int64
}

func (c *countingHash) Write(p []byte) (int, error) { c.n += int64(len(p)); return c.h.Write(p) }

type bigResult struct {
	d    time.Duration
	sum  [32]byte
	size int64
	idle int64 // VmHWM of the session's process after initialize, before the call, bytes
	hwm  int64 // VmHWM of the session's process once the answer is in, bytes; -1 when unread
	ru   *syscall.Rusage
}

// bigCall starts argv, initializes, makes one tools/call for mib MiB and times it.
func bigCall(ctx context.Context, argv []string, mib int) (bigResult, error) {
	r := bigResult{idle: -1, hwm: -1}
	s, err := start(ctx, argv)
	if err != nil {
		return r, err
	}
	r.idle = enginebench.PeakRSS(s.cmd.Process.Pid)
	req := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"big","arguments":{"mib":%d}}}`+"\n", s.id(), mib)
	h := &countingHash{h: sha256.New()}
	t0 := time.Now()
	_, err = s.roundTrip(req, h)
	r.d = time.Since(t0)
	if err == nil {
		copy(r.sum[:], h.h.Sum(nil))
		r.size = h.n
		r.hwm = enginebench.PeakRSS(s.cmd.Process.Pid)
	}
	ru, cerr := s.close()
	r.ru = ru
	if err != nil {
		return r, err
	}
	return r, cerr
}

// teeHolds reports whether the transcript has a to-client record whose wire bytes hash to sum.
func teeHolds(path string, sum [32]byte) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	for {
		var rec struct {
			Dir  string `json:"dir"`
			Wire string `json:"wire"`
		}
		if err := dec.Decode(&rec); err == io.EOF {
			return false, nil
		} else if err != nil {
			return false, err
		}
		if rec.Dir == "to-client" && len(rec.Wire) > 1<<20 && sha256.Sum256([]byte(rec.Wire)) == sum {
			return true, nil
		}
	}
}

func large(ctx context.Context, tmp string, b binaries, mibs []int) error {
	fmt.Println()
	fmt.Println("== large results: one tools/call to bench/bigserver -mib N, answer of one N MiB text block ==")
	fmt.Printf("  direct       $TMP/bigserver -mib N\n")
	fmt.Printf("  passthrough  $TMP/passthrough $TMP/bigserver -mib N\n")
	fmt.Printf("  proxy clean  $TMP/toolscore proxy --fault clean --tee $TMP/big-N.tee.jsonl -- $TMP/bigserver -mib N\n\n")
	fmt.Printf("%5s %12s %10s %10s %10s %7s %5s %9s %10s %11s %7s %11s %7s\n",
		"MiB", "line bytes", "direct ms", "pass ms", "proxy ms", "intact", "tee", "idle MiB", "VmHWM MiB", "maxrss MiB", "xsize", "(-idle)/sz", "<= 4x")
	var failed []string
	for _, n := range mibs {
		server := []string{b.bigserver, "-mib", strconv.Itoa(n)}
		direct, err := bigCall(ctx, server, n)
		if err != nil {
			return fmt.Errorf("%d MiB direct: %w", n, err)
		}
		pass, err := bigCall(ctx, append([]string{b.passthrough}, server...), n)
		if err != nil {
			return fmt.Errorf("%d MiB passthrough: %w", n, err)
		}
		tee := filepath.Join(tmp, fmt.Sprintf("big-%d.tee.jsonl", n))
		px, err := bigCall(ctx, append([]string{b.toolscore, "proxy", "--fault", "clean", "--tee", tee, "--"}, server...), n)
		if err != nil {
			return fmt.Errorf("%d MiB through the proxy: %w", n, err)
		}
		intact := px.sum == direct.sum && px.size == direct.size && pass.sum == direct.sum
		inTee, err := teeHolds(tee, direct.sum)
		if err != nil {
			return fmt.Errorf("%d MiB: reading the tee: %w", n, err)
		}
		_ = os.Remove(tee)
		maxrss := int64(-1)
		if px.ru != nil {
			maxrss = px.ru.Maxrss << 10 // KiB on Linux
		}
		ratio := float64(px.hwm) / float64(px.size)
		// The 4x target is set for the 64 MiB result; below that the Go runtime's fixed
		// ~9 MiB dominates a total ratio, so smaller sizes are measured, not judged.
		ok := px.hwm > 0 && ratio <= targetMemory
		judged := verdict(ok)
		if n < 64 {
			judged, ok = "-", true
		}
		if !ok || !intact || !inTee {
			failed = append(failed, strconv.Itoa(n)+" MiB")
		}
		fmt.Printf("%5d %12d %10.1f %10.1f %10.1f %7s %5s %9.1f %10.1f %11.1f %7.2f %11.2f %7s\n", n, px.size,
			ms(direct.d), ms(pass.d), ms(px.d), yes(intact), yes(inTee),
			mib(px.idle), mib(px.hwm), mib(maxrss), ratio, float64(px.hwm-px.idle)/float64(px.size), judged)
	}
	fmt.Println()
	fmt.Println("intact: the line through the proxy (and through the passthrough) has the direct line's sha256 and length")
	fmt.Println("tee: the transcript holds a to-client record whose wire bytes have that sha256")
	fmt.Println("VmHWM: the proxy process's peak RSS, read from /proc once the answer was in; xsize = VmHWM / line bytes (the target)")
	fmt.Println("idle: the proxy's VmHWM after initialize, before the call (the Go runtime's fixed cost); (-idle)/sz = (VmHWM - idle) / line bytes")
	fmt.Println("maxrss: getrusage of the proxy after exit, the larger of its own peak and its server's")
	if len(failed) > 0 {
		fmt.Printf("large results: target missed or result damaged at %s\n", strings.Join(failed, ", "))
	} else {
		fmt.Println("large results: every size intact and in the tee; the 64 MiB one within 4x")
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func mib(b int64) float64 {
	if b < 0 {
		return math.NaN()
	}
	return float64(b) / (1 << 20)
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "NO"
}
