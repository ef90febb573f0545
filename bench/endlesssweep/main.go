// Command endlesssweep measures what one endless message from an HTTP server costs the proxy's
// memory.
//
//	go run ./bench/endlesssweep [-mib 128,512,2048] [-forms sse,json] [-fault error] [-bin PATH] [-keep]
//
// It builds the static toolscore binary once into a temporary directory (or copies -bin there)
// and serves, in this process, a streamable HTTP endpoint on loopback that answers every POST
// with one message of N MiB, streamed in 64 KiB writes: one SSE event of one data line, or one
// JSON body. For each form and each N of -mib it starts
//
//	$TMP/toolscore proxy --listen 127.0.0.1:0 --fault error --tee $TMP/tee.jsonl --upstream URL
//
// (-fault names another; error would replace a message it read whole, so -fault clean is how a
// build from before the cap is measured with -bin).
//
// posts one tools/call through it and reads the answer to its end, reading the high-water mark
// of the proxy's resident set (VmHWM in /proc/PID/status) every 5 ms. A message past the proxy's
// cap (64 MiB) is passed on as it comes, so the largest N stands for a message without end: the
// peak must not grow with N. It prints each peak beside the bytes the client got (checked
// against the server's by sha256), the transcript's size and the wall time, and per form the
// ratio of the largest peak to the smallest (target: at most 2; before the cap the proxy held
// the whole message, 2 GiB and more).
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/toolscore/toolscore/bench/internal/enginebench"
)

func main() {
	mibs := flag.String("mib", "128,512,2048", "message sizes in MiB, comma-separated")
	forms := flag.String("forms", "sse,json", "how the message travels: sse (one event), json (one body)")
	bin := flag.String("bin", "", "an already built static toolscore binary (default: CGO_ENABLED=0 go build ./cmd/toolscore)")
	faultName := flag.String("fault", "error", "the proxy's fault")
	keep := flag.Bool("keep", false, "keep the temporary directory (its path is printed)")
	timeout := flag.Duration("timeout", 30*time.Minute, "give up after this long")
	flag.Parse()
	var sizes []int
	for f := range strings.SplitSeq(*mibs, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "endlesssweep: -mib: %q is not a size\n", f)
			os.Exit(2)
		}
		sizes = append(sizes, n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, sizes, strings.Split(*forms, ","), *faultName, *bin, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "endlesssweep:", err)
		cancel()
		os.Exit(1)
	}
}

// chunk is what the server writes at a time; the text is plain letters, needing no escape.
var chunk = bytes.Repeat([]byte("a"), 64<<10)

// message is the head and tail around the N MiB of text of one answer in form.
func message(form string) (head, tail string) {
	head, tail = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`, `"}]}}`
	if form == "sse" {
		return "event: message\ndata: " + head, tail + "\n\n"
	}
	return head, tail
}

// serve answers every POST with one message of the MiB the path's last element names.
func serve(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	form, size, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	mib, _ := strconv.Atoi(size)
	if form == "sse" {
		w.Header().Set("Content-Type", "text/event-stream")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	head, tail := message(form)
	_, _ = io.WriteString(w, head)
	for n := 0; n < mib<<20; n += len(chunk) {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
	_, _ = io.WriteString(w, tail)
}

func run(ctx context.Context, sizes []int, forms []string, faultName, bin string, keep bool) error {
	fmt.Printf("$ %s\n", enginebench.CommandLine("./bench/endlesssweep"))
	fmt.Printf("go %s %s/%s, %d CPUs\n", strings.TrimPrefix(runtime.Version(), "go"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	tmp, cleanup, err := enginebench.TempDir("endlesssweep-", keep)
	if err != nil {
		return err
	}
	defer cleanup()
	self, err := enginebench.Toolscore(ctx, tmp, bin)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.HandlerFunc(serve)}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	fmt.Printf("proxy: toolscore proxy --listen 127.0.0.1:0 --fault %s --tee FILE --upstream (one message of N MiB per POST)\n\n", faultName)
	fmt.Printf("%-5s %9s  %15s  %12s  %12s  %9s\n", "form", "MiB", "proxy peak RSS", "client got", "transcript", "wall")
	for _, form := range forms {
		var lo, hi int64
		for _, mib := range sizes {
			f, err := once(ctx, tmp, self, faultName, "http://"+ln.Addr().String()+"/"+form+"/"+strconv.Itoa(mib), form, mib)
			if err != nil {
				return fmt.Errorf("%s, %d MiB: %w", form, mib, err)
			}
			fmt.Printf("%-5s %9d  %11.1f MiB  %8.1f MiB  %8.1f KiB  %9s\n", form, mib, float64(f.hwm)/1024,
				float64(f.got)/(1<<20), float64(f.tee)/1024, f.wall.Round(10*time.Millisecond))
			if lo == 0 || f.hwm < lo {
				lo = f.hwm
			}
			hi = max(hi, f.hwm)
		}
		fmt.Printf("%s: proxy peak RSS, largest ÷ smallest: %.2f (target ≤ 2)\n\n", form, float64(hi)/float64(lo))
	}
	return nil
}

// figures are what one message measured.
type figures struct {
	hwm      int64 // KiB
	got, tee int64
	wall     time.Duration
}

// once relays one message of mib MiB through a fresh proxy and measures it.
func once(ctx context.Context, tmp, self, faultName, upstream, form string, mib int) (figures, error) {
	var f figures
	tee := filepath.Join(tmp, fmt.Sprintf("tee-%s-%d.jsonl", form, mib))
	cmd := exec.CommandContext(ctx, self, "proxy", "--listen", "127.0.0.1:0", "--fault", faultName, "--tee", tee, "--upstream", upstream)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		return f, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return f, err
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	line := make([]byte, 0, 128)
	for b := make([]byte, 1); ; {
		if _, err := out.Read(b); err != nil {
			return f, fmt.Errorf("the proxy printed no URL: %v\n%s", err, enginebench.Tail(stderr.Bytes(), 2000))
		}
		if b[0] == '\n' {
			break
		}
		line = append(line, b[0])
	}
	stop := make(chan struct{})
	sampled := make(chan int64)
	go func() {
		var hwm int64
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				sampled <- max(hwm, enginebench.PeakRSS(cmd.Process.Pid)>>10)
				return
			case <-tick.C:
				hwm = max(hwm, enginebench.PeakRSS(cmd.Process.Pid)>>10)
			}
		}
	}()
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, string(line), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big","arguments":{}}}`))
	if err != nil {
		close(stop)
		<-sampled
		return f, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		close(stop)
		<-sampled
		return f, err
	}
	h := sha256.New()
	f.got, err = io.Copy(h, resp.Body)
	resp.Body.Close()
	f.wall = time.Since(start)
	close(stop)
	f.hwm = <-sampled
	if err != nil {
		return f, err
	}
	want := sha256.New()
	head, tail := message(form)
	want.Write([]byte(head))
	for n := 0; n < mib<<20; n += len(chunk) {
		want.Write(chunk)
	}
	want.Write([]byte(tail))
	if !bytes.Equal(h.Sum(nil), want.Sum(nil)) {
		return f, fmt.Errorf("the client got %d bytes that are not the server's", f.got)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
	if st, err := os.Stat(tee); err == nil {
		f.tee = st.Size()
	}
	return f, nil
}
