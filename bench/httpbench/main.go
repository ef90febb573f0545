// Command httpbench measures what toolscore's streamable HTTP proxy costs (issue 14).
//
//	go run ./bench/httpbench [-rounds N] [-batch N] [-warmup N] [-mib 64] [-bin PATH]
//
// Part 1, small calls: sequential tools/call POSTs in one 2025-11-25 session per setup against
// `toolscore ledger --http` (SSE answers), for
//
//	a  direct  the ledger
//	b  floor   a plain net/http/httputil.ReverseProxy in a process of its own
//	c  proxy   toolscore proxy --listen --upstream LEDGER --fault clean --tee FILE
//
// run round-robin in batches, the starting setup rotating every round, so machine noise hits all
// three alike. It prints p10, median and p90 of the whole call and of the time to the answer's
// first SSE event (the ledger's priming event), (c-a)/(b-a) of the medians against the target
// 1.5, and the proxy's added time to the first event against the target 1 ms.
//
// Part 2, one large answer: a tools/call answered with a text block of N MiB, as an SSE event
// and as an application/json body, by a tiny server of this program's own (it streams the
// answer), direct and through the clean proxy with its tee on; the body must arrive with the
// direct call's sha256, and the proxy's peak memory (VmHWM) is reported against the size.
//
// Part 3, a streamed JSON body: a POST answered with an application/json body the server keeps
// open, writing one message, then another after -gap (a stateless server's
// subscriptions/listen), direct and through the clean proxy with its tee on, interleaved
// -streams times: the time to the first message, which must come before the server sends the
// second (a proxy that reads the body whole gives it only at the end).
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
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
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
	targetRatio = 1.5                  // (c-a)/(b-a), medians
	targetFirst = 1 * time.Millisecond // proxy's first event minus direct's, medians
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "floor": // httpbench floor URL: the ReverseProxy floor, started by the benchmark
			exit(serveFloor(os.Args[2]))
			return
		case "big": // httpbench big [GAP]: the large-answer and streamed-body server, started by the benchmark
			gap := 100 * time.Millisecond
			if len(os.Args) > 2 {
				var err error
				if gap, err = time.ParseDuration(os.Args[2]); err != nil {
					exit(err)
				}
			}
			exit(serveBig(gap))
			return
		}
	}
	rounds := flag.Int("rounds", 600, "timed tools/call round trips per setup")
	batch := flag.Int("batch", 25, "calls per setup before moving to the next one")
	warmup := flag.Int("warmup", 50, "untimed calls per setup before the timed rounds")
	mib := flag.Int("mib", 64, "size of the large answer, in MiB (0: skip it)")
	streams := flag.Int("streams", 40, "streamed JSON bodies per setup (0: skip them)")
	gap := flag.Duration("gap", 100*time.Millisecond, "how long the streamed body's server waits between its two messages")
	bin := flag.String("bin", "", "an already built toolscore binary (default: go build ./cmd/toolscore)")
	timeout := flag.Duration("timeout", 110*time.Second, "give up (and stop every process started) after this long")
	flag.Parse()
	if *rounds < 0 || *batch < 1 || *warmup < 0 || *mib < 0 || *streams < 0 || *gap <= 0 {
		fmt.Fprintln(os.Stderr, "httpbench: -batch must be at least 1, -rounds, -warmup, -mib and -streams at least 0, -gap above 0")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, *rounds, *batch, *warmup, *mib, *streams, *gap, *bin); err != nil {
		fmt.Fprintln(os.Stderr, "httpbench:", err)
		cancel()
		os.Exit(1)
	}
}

func exit(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "httpbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, rounds, batch, warmup, mib, streams int, gap time.Duration, bin string) error {
	name := os.Args[0]
	if strings.Contains(name, "go-build") {
		name = "go run ./bench/httpbench"
	}
	fmt.Printf("$ %s\n", strings.Join(append([]string{name}, os.Args[1:]...), " "))
	fmt.Printf("go %s %s/%s, %d CPUs, GOMAXPROCS %d; rounds %d per setup in batches of %d after %d warm-up calls\n",
		strings.TrimPrefix(runtime.Version(), "go"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), rounds, batch, warmup)
	tmp, err := os.MkdirTemp("", "httpbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if bin == "" {
		bin = filepath.Join(tmp, "toolscore")
		gomod, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
		if err != nil {
			return fmt.Errorf("go env GOMOD: %w", err)
		}
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/toolscore")
		build.Dir, build.Stderr = filepath.Dir(strings.TrimSpace(string(gomod))), os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building toolscore: %w", err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if rounds > 0 {
		if err := small(ctx, tmp, bin, self, rounds, batch, warmup); err != nil {
			return err
		}
	}
	if streams > 0 {
		if err := streamed(ctx, tmp, bin, self, streams, gap); err != nil {
			return err
		}
	}
	if mib > 0 {
		return large(ctx, tmp, bin, self, mib)
	}
	return nil
}

// proc is a process of the benchmark that printed its URL.
type proc struct {
	cmd *exec.Cmd
	url string
}

// start runs argv and reads the URL it prints as its first stdout line.
func start(ctx context.Context, argv ...string) (*proc, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("%s printed no URL: %w", argv[0], err)
	}
	return &proc{cmd: cmd, url: strings.TrimSpace(line)}, nil
}

func (p *proc) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	_ = p.cmd.Wait()
}

// session is one 2025-11-25 session of a bare client.
type session struct {
	url, sid string
	client   *http.Client
	id       int
}

func newSession(ctx context.Context, url string) (*session, error) {
	s := &session{url: url, client: &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 4}}}
	resp, body, err := s.post(ctx, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"httpbench","version":"1"}}`)
	if err != nil {
		return nil, err
	}
	if s.sid = resp.Header.Get("Mcp-Session-Id"); s.sid == "" {
		return nil, fmt.Errorf("initialize at %s: no session id: %s", url, body)
	}
	if _, _, err := s.post(ctx, "notifications/initialized", ""); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *session) request(ctx context.Context, method, params string) *http.Request {
	var msg string
	if strings.HasPrefix(method, "notifications/") {
		msg = fmt.Sprintf(`{"jsonrpc":"2.0","method":%q}`, method)
	} else {
		s.id++
		msg = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, s.id, method, params)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.url, strings.NewReader(msg))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.sid != "" {
		req.Header.Set("Mcp-Session-Id", s.sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	return req
}

func (s *session) post(ctx context.Context, method, params string) (*http.Response, []byte, error) {
	resp, err := s.client.Do(s.request(ctx, method, params))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", method, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode/100 != 2 {
		err = fmt.Errorf("%s: status %d: %s", method, resp.StatusCode, body)
	}
	return resp, body, err
}

// call makes one tools/call and returns the time to the end of the answer's first SSE event and
// to the end of the answer.
func (s *session) call(ctx context.Context) (first, whole time.Duration, err error) {
	req := s.request(ctx, "tools/call", `{"name":"get_account_balance","arguments":{"account_id":"ACC-4471"}}`)
	t0 := time.Now()
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	var body []byte
	for {
		line, err := br.ReadBytes('\n')
		body = append(body, line...)
		if first == 0 && len(bytes.TrimRight(line, "\r\n")) == 0 && len(line) > 0 {
			first = time.Since(t0)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, 0, err
		}
	}
	whole = time.Since(t0)
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte("4071877")) {
		return 0, 0, fmt.Errorf("tools/call: status %d: %.200s", resp.StatusCode, body)
	}
	return first, whole, nil
}

func small(ctx context.Context, tmp, bin, self string, rounds, batch, warmup int) error {
	ledger, err := start(ctx, bin, "ledger", "--http", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ledger.stop()
	floor, err := start(ctx, self, "floor", ledger.url)
	if err != nil {
		return err
	}
	defer floor.stop()
	px, err := start(ctx, bin, "proxy", "--listen", "127.0.0.1:0", "--upstream", ledger.url, "--fault", "clean", "--tee", filepath.Join(tmp, "small.tee.jsonl"))
	if err != nil {
		return err
	}
	defer px.stop()
	names := []string{"a direct", "b floor (ReverseProxy)", "c proxy, clean, tee on"}
	var sessions []*session
	for _, u := range []string{ledger.url, floor.url, px.url} {
		s, err := newSession(ctx, u)
		if err != nil {
			return err
		}
		for range warmup {
			if _, _, err := s.call(ctx); err != nil {
				return err
			}
		}
		sessions = append(sessions, s)
	}
	first := make([][]float64, 3)
	whole := make([][]float64, 3)
	for round := 0; round*batch < rounds; round++ {
		for k := range 3 {
			i := (round + k) % 3
			for range min(batch, rounds-round*batch) {
				f, w, err := sessions[i].call(ctx)
				if err != nil {
					return fmt.Errorf("%s: %w", names[i], err)
				}
				first[i] = append(first[i], us(f))
				whole[i] = append(whole[i], us(w))
			}
		}
	}
	fmt.Printf("\n%-24s %9s %9s %9s %12s %12s\n", "setup", "p10 µs", "p50 µs", "p90 µs", "first p50 µs", "added p50 µs")
	for i, n := range names {
		added := ""
		if i > 0 {
			added = fmt.Sprintf("%+.1f", pct(whole[i], 50)-pct(whole[0], 50))
		}
		fmt.Printf("%-24s %9.1f %9.1f %9.1f %12.1f %12s\n", n, pct(whole[i], 10), pct(whole[i], 50), pct(whole[i], 90), pct(first[i], 50), added)
	}
	ratio := (pct(whole[2], 50) - pct(whole[0], 50)) / (pct(whole[1], 50) - pct(whole[0], 50))
	firstAdded := time.Duration((pct(first[2], 50) - pct(first[0], 50)) * 1000)
	fmt.Printf("\nper call: (c-a)/(b-a) = %.2f (target <= %.1f): %s\n", ratio, targetRatio, verdict(ratio <= targetRatio))
	fmt.Printf("first SSE event: proxy %+.1f µs over direct (target within %v): %s\n", us(firstAdded), targetFirst, verdict(firstAdded <= targetFirst))
	return nil
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

func pct(xs []float64, p int) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

// streamed times the first message of a streamed JSON body, direct and through the proxy,
// interleaved (the starting side alternating), n times each.
func streamed(ctx context.Context, tmp, bin, self string, n int, gap time.Duration) error {
	srv, err := start(ctx, self, "big", gap.String())
	if err != nil {
		return err
	}
	defer srv.stop()
	upstream := srv.url + "/stream"
	px, err := start(ctx, bin, "proxy", "--listen", "127.0.0.1:0", "--upstream", upstream, "--fault", "clean", "--tee", filepath.Join(tmp, "stream.tee.jsonl"))
	if err != nil {
		return err
	}
	defer px.stop()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	var direct, proxied []float64
	for i := range n {
		sides := []string{upstream, px.url}
		if i%2 == 1 {
			slices.Reverse(sides)
		}
		for _, u := range sides {
			first, err := firstMessage(ctx, client, u)
			if err != nil {
				return fmt.Errorf("streamed JSON body from %s: %w", u, err)
			}
			if first >= gap {
				return fmt.Errorf("streamed JSON body from %s: the first message came after %v, not before the server's second (%v)", u, first, gap)
			}
			if u == upstream {
				direct = append(direct, us(first))
			} else {
				proxied = append(proxied, us(first))
			}
		}
	}
	fmt.Printf("\nstreamed application/json body, %d per setup, second message %v after the first: time to the first message\n", n, gap)
	fmt.Printf("%-10s %10s %10s %10s\n", "setup", "p10 µs", "p50 µs", "p90 µs")
	for _, r := range []struct {
		name string
		xs   []float64
	}{{"direct", direct}, {"proxy", proxied}} {
		fmt.Printf("%-10s %10.1f %10.1f %10.1f\n", r.name, pct(r.xs, 10), pct(r.xs, 50), pct(r.xs, 90))
	}
	fmt.Printf("first message: proxy %+.1f µs over direct (p50), every one before the server's second message\n", pct(proxied, 50)-pct(direct, 50))
	return nil
}

// firstMessage posts to url and returns the time to the first line of the answer's body; it
// reads the rest, so the server's stream ends before the next.
func firstMessage(ctx context.Context, client *http.Client, url string) (time.Duration, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	t0 := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if _, err := br.ReadString('\n'); err != nil {
		return 0, err
	}
	first := time.Since(t0)
	if _, err := io.Copy(io.Discard, br); err != nil {
		return 0, err
	}
	return first, nil
}

// large sends one N MiB answer in each form, direct and through the proxy.
func large(ctx context.Context, tmp, bin, self string, mib int) error {
	big, err := start(ctx, self, "big")
	if err != nil {
		return err
	}
	defer big.stop()
	fmt.Printf("\n%-6s %-5s %10s %10s %8s %10s %10s %7s\n", "form", "MiB", "direct ms", "proxy ms", "intact", "idle MiB", "VmHWM MiB", "xsize")
	for _, form := range []string{"sse", "json"} {
		upstream := big.url + "/" + form
		t0 := time.Now()
		direct, err := bigCall(ctx, upstream, mib)
		if err != nil {
			return fmt.Errorf("%s direct: %w", form, err)
		}
		directTook := time.Since(t0)
		px, err := start(ctx, bin, "proxy", "--listen", "127.0.0.1:0", "--upstream", upstream, "--fault", "clean", "--tee", filepath.Join(tmp, "big-"+form+".tee.jsonl"))
		if err != nil {
			return err
		}
		idle := enginebench.PeakRSS(px.cmd.Process.Pid)
		t0 = time.Now()
		proxied, err := bigCall(ctx, px.url, mib)
		took := time.Since(t0)
		hwm := enginebench.PeakRSS(px.cmd.Process.Pid)
		px.stop()
		if err != nil {
			return fmt.Errorf("%s through the proxy: %w", form, err)
		}
		size := float64(int64(mib) << 20)
		fmt.Printf("%-6s %-5d %10.0f %10.0f %8v %10.1f %10.1f %7.2f\n", form, mib, float64(directTook.Milliseconds()), float64(took.Milliseconds()),
			direct == proxied, float64(idle)/(1<<20), float64(hwm)/(1<<20), float64(hwm)/size)
		if direct != proxied {
			return fmt.Errorf("%s: the %d MiB answer through the proxy is not the server's (sha256 differs)", form, mib)
		}
	}
	fmt.Println("intact: the body through the proxy has the direct body's sha256; VmHWM: the proxy's peak RSS once the answer was in; xsize = VmHWM / answer size")
	return nil
}

// bigCall posts one tools/call to url and returns the sha256 of the answer's body.
func bigCall(ctx context.Context, url string, mib int) ([32]byte, error) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big","arguments":{"mib":%d}}}`, mib)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		return [32]byte{}, err
	}
	defer resp.Body.Close()
	h := sha256.New()
	n, err := io.Copy(h, resp.Body)
	if err != nil {
		return [32]byte{}, err
	}
	if resp.StatusCode != http.StatusOK || n < int64(mib)<<20 {
		return [32]byte{}, fmt.Errorf("status %d, %d bytes", resp.StatusCode, n)
	}
	return [32]byte(h.Sum(nil)), nil
}

// serveFloor relays to upstream with a plain ReverseProxy: the floor of any HTTP proxy.
func serveFloor(upstream string) error {
	u, err := url.Parse(upstream)
	if err != nil {
		return err
	}
	rp := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.Out.URL.Scheme, pr.Out.URL.Host, pr.Out.URL.Path = u.Scheme, u.Host, u.Path
		pr.Out.Host = u.Host
	}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("http://%s%s\n", l.Addr(), u.Path)
	// The request is read whole first, as toolscore's proxy does: relaying the inbound body as
	// it streamed failed about one call in a hundred here (the upstream connection closed under
	// the answer, "use of closed network connection"), and a floor that fails measures nothing.
	return http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		rp.ServeHTTP(w, r)
	}))
}

// serveBig answers any tools/call at /sse (one SSE event) or /json (an application/json body)
// with one text block of the call's "mib" MiB, streamed. The text needs JSON escaping and holds
// non-ASCII UTF-8, so a relay that re-encodes or cuts it shows in the hash. At /stream it answers
// any POST with an application/json body of two notifications, one line each, gap apart.
func serveBig(gap time.Duration) error {
	var line bytes.Buffer
	for line.Len() < 1<<20 {
		fmt.Fprintf(&line, "%010d é \"quoted\" back\\slash\ttab ünïcödé\n", line.Len())
	}
	text, _ := json.Marshal(line.String())
	block := text[1 : len(text)-1] // the escaped text without its quotes, about 1 MiB and more
	answer := func(w http.ResponseWriter, r *http.Request, sse bool) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Params struct {
				Arguments struct {
					MiB int `json:"mib"`
				} `json:"arguments"`
			} `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.ID) == 0 {
			http.Error(w, "want a tools/call", http.StatusBadRequest)
			return
		}
		head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, req.ID)
		tail := `"}]}}`
		if sse {
			head, tail = "event: message\ndata: "+head, tail+"\n\n"
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(head)+len(tail)+req.Params.Arguments.MiB*len(block)))
		}
		if _, err := io.WriteString(w, head); err != nil {
			return
		}
		for range req.Params.Arguments.MiB {
			if _, err := w.Write(block); err != nil {
				return
			}
		}
		_, _ = io.WriteString(w, tail)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /sse", func(w http.ResponseWriter, r *http.Request) { answer(w, r, true) })
	mux.HandleFunc("POST /json", func(w http.ResponseWriter, r *http.Request) { answer(w, r, false) })
	mux.HandleFunc("POST /stream", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		rc := http.NewResponseController(w)
		for i := range 2 {
			if i > 0 {
				time.Sleep(gap)
			}
			fmt.Fprintf(w, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///%d"}}`+"\n", i)
			if rc.Flush() != nil {
				return
			}
		}
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("http://%s\n", l.Addr())
	err = http.Serve(l, mux)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
