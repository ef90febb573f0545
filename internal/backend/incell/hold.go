package incell

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/frame"
)

// HoldArg makes toolscore cell the held container's first process, which starts the cell's runs.
const HoldArg = "--hold"

// HoldRequest is one run, as the docker backend writes it on the held container's stdin: the
// cell command and the run's environment (over the container's own).
type HoldRequest struct {
	Cmd []string `json:"cmd"`
	Env []string `json:"env"`
}

// The kinds of frame on the held container's stdout: a piece of the run's stdout or stderr, and
// the run's end (its exit status).
const (
	FrameStdout = 'o'
	FrameStderr = 'e'
	FrameExit   = 'x'
)

// holder is a held cell container's first process. It starts each run the docker backend asks
// for on its stdin (no exec, whose cost in the engine was most of a fast client's run), relays
// the run's stdout and stderr as frames on its own stdout and ends each run with its exit status.
// As a container's init does, it reaps every process given to it, so nothing of a run lingers
// as a zombie in the next one's process table. Stopped (a run's timeout), it passes the signal
// on to every process of the container, so the run's cell command ends its adapter and still
// sends the run's files and output, and it waits for them before it exits.
type holder struct {
	mu  sync.Mutex // orders frames on out
	out io.Writer
	// run is the pid of the run going on (0: none) and where its exit status goes once reaped.
	runMu  sync.Mutex
	runPID int
	status chan syscall.WaitStatus
}

func hold(ctx context.Context) int {
	h := &holder{out: os.Stdout}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	requests := make(chan HoldRequest)
	go func() {
		defer close(requests)
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			var r HoldRequest
			if json.Unmarshal(sc.Bytes(), &r) == nil && len(r.Cmd) > 0 {
				requests <- r
			}
		}
	}()
	var running chan struct{} // closed once the run going on has sent its end
	for {
		select {
		case r, ok := <-requests:
			if !ok {
				requests = nil // the backend is done with the cell; it removes the container
				continue
			}
			// The backend asks for one run at a time; one asked early waits its turn.
			prev, next := running, make(chan struct{})
			running = next
			go func() {
				if prev != nil {
					<-prev
				}
				h.run(r, next)
			}()
		case s := <-sigs:
			if s == syscall.SIGCHLD {
				h.reap()
				continue
			}
			h.stop(running)
			return 0
		case <-ctx.Done():
			h.stop(running)
			return 0
		}
	}
}

// stop passes a stop on to every process of the container and waits up to 5 s for them to end,
// and for the run going on to send its end.
func (h *holder) stop(running chan struct{}) {
	// -1 is every process this one may signal but itself.
	_ = syscall.Kill(-1, syscall.SIGTERM)
	sent := func() bool {
		if running == nil {
			return true
		}
		select {
		case <-running:
			return true
		default:
			return false
		}
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		h.reap()
		if !others() && sent() {
			return
		}
	}
}

// reap waits for every process that has ended, and hands the run's own status to it.
func (h *holder) reap() {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
		h.runMu.Lock()
		if pid == h.runPID {
			h.status <- ws
			h.runPID = 0
		}
		h.runMu.Unlock()
	}
}

// frame writes one frame on the container's stdout.
func (h *holder) frame(kind byte, p []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	_ = frame.Write(h.out, kind, p)
}

// run starts one run with its stdout and stderr on pipes, relays both as frames, and once the
// run has exited and both pipes are closed (or 2 s after its exit: a process it left holds
// them), sends its end.
func (h *holder) run(r HoldRequest, done chan struct{}) {
	defer close(done)
	code, err := h.start(r)
	if err != nil {
		h.frame(FrameStderr, []byte("toolscore cell: starting the run: "+err.Error()+"\n"))
		code = 127
	}
	h.frame(FrameExit, []byte(strconv.Itoa(code)))
}

func (h *holder) start(r HoldRequest) (int, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return 0, err
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		return 0, err
	}
	defer null.Close()
	var relayed sync.WaitGroup
	// The relays stop sending once the run has ended: what a process it left writes later is not
	// this run's, and no other run's either.
	var endMu sync.Mutex
	ended := false
	relay := func(kind byte, f *os.File) {
		defer relayed.Done()
		buf := make([]byte, 32<<10)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				endMu.Lock()
				if !ended {
					h.frame(kind, buf[:n])
				}
				endMu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}
	h.runMu.Lock()
	h.status = make(chan syscall.WaitStatus, 1)
	status := h.status
	// This process's environment is the container's, which the cell's config and image define
	// (never the runner's): the run's goes over it, as an exec's went over the container's.
	p, err := os.StartProcess(r.Cmd[0], r.Cmd, &os.ProcAttr{
		Dir: backend.CellWorkDir, Env: mergeEnv(os.Environ(), r.Env), Files: []*os.File{null, outW, errW},
	})
	if err == nil {
		h.runPID = p.Pid
	}
	h.runMu.Unlock()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return 0, err
	}
	relayed.Add(2)
	go relay(FrameStdout, outR)
	go relay(FrameStderr, errR)
	// The run is reaped by reap, on SIGCHLD; the status comes from there.
	ws := <-status
	piped := make(chan struct{})
	go func() { relayed.Wait(); close(piped) }()
	select {
	case <-piped:
	case <-time.After(2 * time.Second):
	}
	endMu.Lock()
	ended = true
	endMu.Unlock()
	outR.Close()
	errR.Close()
	switch {
	case ws.Exited():
		return ws.ExitStatus(), nil
	case ws.Signaled():
		return 128 + int(ws.Signal()), nil
	}
	return 0, errors.New("the run ended in an unknown state")
}

// mergeEnv is base with every variable of over set, over's value winning.
func mergeEnv(base, over []string) []string {
	set := map[string]bool{}
	for _, kv := range over {
		k, _, _ := strings.Cut(kv, "=")
		set[k] = true
	}
	out := make([]string, 0, len(base)+len(over))
	for _, kv := range base {
		if k, _, _ := strings.Cut(kv, "="); !set[k] {
			out = append(out, kv)
		}
	}
	return append(out, over...)
}

// others says whether a process other than this one is in the container.
func others() bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	self := strconv.Itoa(os.Getpid())
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err == nil && e.Name() != self {
			if b, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && !zombie(string(b)) {
				return true
			}
		}
	}
	return false
}

// zombie says whether a /proc/PID/stat line is of a process that has exited.
func zombie(stat string) bool {
	i := strings.LastIndexByte(stat, ')')
	return i >= 0 && strings.HasPrefix(strings.TrimSpace(stat[i+1:]), "Z")
}
