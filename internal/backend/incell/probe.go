package incell

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/toolscore/toolscore/internal/backend"
)

// ProbeRefused is the probe's exit status when the server exited before it listened; it then
// writes a ProbeReport on stdout.
const ProbeRefused = 3

// ProbeReport is what the probe writes of a server that exited before it listened.
type ProbeReport struct {
	Status int    `json:"status"`
	Output string `json:"output"`
}

// initializeRequest is what the probe sends a stdio server: any answer to it (a result or an
// error) says the server listens.
const initializeRequest = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"toolscore-server-check","version":"1"}}}` + "\n"

// ProbeServer is toolscore probe-server (hidden), what CheckServer runs in a server container:
// args [--wait D] [--http ADDR] -- CMD [ARGS...]. It starts the server as the bridge does (its
// own process group, the container's environment) and waits for it to listen: a stdio server's
// answer to initialize, or ADDR accepting connections. It exits 0 once the server listens or
// is still running after D; when the server exits first, it writes a ProbeReport to stdout and
// exits ProbeRefused.
func ProbeServer(ctx context.Context, args []string, stdout io.Writer) int {
	fs := flag.NewFlagSet("probe-server", flag.ContinueOnError)
	wait := fs.Duration("wait", 30*time.Second, "how long a silent server is waited for")
	addr := fs.String("http", "", "the address an HTTP server listens on")
	if err := fs.Parse(args); err != nil || fs.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: toolscore probe-server [--wait D] [--http ADDR] -- CMD [ARGS...]")
		return 2
	}
	tail := &backend.LastBytes{Max: 1000}
	answered := make(chan struct{})
	cmd := exec.Command(fs.Arg(0), fs.Args()[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout = &answerWatch{tail: tail, answered: answered}
	cmd.Stderr = tail
	// A helper the server left holding its output must not keep the exit from being seen.
	cmd.WaitDelay = time.Second
	stdin, err := cmd.StdinPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		return refuse(stdout, 127, "starting the server: "+err.Error())
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	kill := func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if *addr == "" {
		_, _ = io.WriteString(stdin, initializeRequest)
	} else {
		go func() {
			for {
				if conn, err := net.DialTimeout("tcp", *addr, time.Second); err == nil {
					conn.Close()
					close(answered)
					return
				}
				select {
				case <-exited:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}()
	}
	select {
	case <-answered:
		kill()
		return 0
	case <-exited:
		select {
		case <-answered: // it answered, then exited: it listened
			return 0
		default:
		}
		return refuse(stdout, exitStatus(cmd.ProcessState), tail.String())
	case <-time.After(*wait):
		kill()
		return 0
	case <-ctx.Done():
		kill()
		return 1
	}
}

// refuse writes the probe's report of a server that exited before it listened.
func refuse(w io.Writer, status int, output string) int {
	b, _ := json.Marshal(ProbeReport{Status: status, Output: output})
	fmt.Fprintln(w, string(b))
	return ProbeRefused
}

// exitStatus is a process's exit status, 128+signal when a signal ended it.
func exitStatus(ps *os.ProcessState) int {
	if ps == nil {
		return 1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// answerWatch is a stdio server's stdout for the probe: kept in tail, and answered is closed at
// the first line that is a JSON-RPC answer; other lines are the server's
// noise, which the runs measure.
type answerWatch struct {
	tail     *backend.LastBytes
	answered chan struct{}
	line     []byte
	done     bool
}

// maxProbeLine caps a line the probe looks into; a longer one is taken as an answer.
const maxProbeLine = 1 << 20

func (w *answerWatch) Write(p []byte) (int, error) {
	n := len(p)
	_, _ = w.tail.Write(p)
	if w.done {
		return n, nil
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.line = append(w.line, p...)
			if len(w.line) > maxProbeLine {
				w.answer()
			}
			break
		}
		w.line = append(w.line, p[:i]...)
		p = p[i+1:]
		if isAnswer(w.line) {
			w.answer()
			break
		}
		w.line = w.line[:0]
	}
	return n, nil
}

// isAnswer says whether a line is a JSON-RPC answer: an object with an id and a result or an
// error.
func isAnswer(line []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(bytes.TrimSpace(line), &m) != nil {
		return false
	}
	_, id := m["id"]
	_, result := m["result"]
	_, isErr := m["error"]
	return id && (result || isErr)
}

func (w *answerWatch) answer() {
	if !w.done {
		w.done = true
		w.line = nil
		close(w.answered)
	}
}
