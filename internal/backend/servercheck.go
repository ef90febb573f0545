package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"
)

// StartFailure is an image server that exited before it listened: a setup error of the sweep,
// never an outcome of a client.
type StartFailure struct {
	Image   string   // server.image, as the manifest names it
	Command []string // server.command
	HTTP    bool
	Status  int
	Output  string // its last output, stdout and stderr as they came, lines joined with " | "
	// Container says the server container itself exited (the probe did not run in it).
	Container bool
}

func (e *StartFailure) Error() string {
	what := "answered initialize"
	if e.HTTP {
		what = "accepted connections on " + ServerAddr
	}
	who := fmt.Sprintf("the server %q in the image %s (server.image)", e.Command, e.Image)
	if e.Container {
		who = fmt.Sprintf("the container of the image %s (server.image) for the server %q", e.Image, e.Command)
	}
	out := "it printed nothing"
	if e.Output != "" {
		out = fmt.Sprintf("its output ended: %q", e.Output)
	}
	return fmt.Sprintf("%s exited with status %d before it %s; %s", who, e.Status, what, out)
}

// probeRefused is the probe's exit status when the server exited before it listened; it then
// writes a probeReport on stdout.
const probeRefused = 3

type probeReport struct {
	Status int    `json:"status"`
	Output string `json:"output"`
}

// maxProbeOutput caps what the check reads of the probe container's output.
const maxProbeOutput = 64 << 10

// CheckServer starts the sweep's image server once before any run, in a container made as a
// run's server container is (ServerConfig) with the probe in front of the server: a server that
// exits before it answers initialize (over HTTP: before it accepts connections) is a
// *StartFailure naming ref, its exit status and its last output. A server still silent after
// timeout passes: the runs measure it. Any other error means the check could not run.
func (d *Docker) CheckServer(ctx context.Context, ref string, s ServerSpec, timeout time.Duration) error {
	if d.ServerImage == "" {
		return errors.New("no server image was built for server.image")
	}
	cfg, host := ServerConfig(d.ServerImage, d.Sandbox, Spec{Cell: "server check", Server: &s, Timeout: timeout})
	probe := []string{CellBinary, "probe-server", "--wait", timeout.String()}
	if s.HTTP {
		probe = append(probe, "--http", ServerAddr)
	}
	cfg.Entrypoint, cfg.Cmd = Argv(append(append(probe, "--"), s.Command...))
	cfg.AttachStdout, cfg.AttachStderr = true, true
	cfg.Labels[LabelMarker], cfg.Labels[LabelSession], cfg.Labels[LabelOwner] = "1", d.session, d.owner
	created, err := d.api.ContainerCreate(ctx, cfg, host, nil, nil, "")
	if err != nil {
		return fmt.Errorf("creating the server container from %s: %w", ref, err)
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = d.api.ContainerRemove(rctx, created.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
	}()
	att, err := d.api.ContainerAttach(ctx, created.ID, container.AttachOptions{Stream: true, Stdout: true, Stderr: true})
	if err != nil {
		return fmt.Errorf("attaching to the server container: %w", err)
	}
	defer att.Close()
	waitCh, waitErr := d.api.ContainerWait(context.WithoutCancel(ctx), created.ID, container.WaitConditionNextExit)
	if err := d.api.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		return fmt.Errorf("starting the server container from %s: %w", ref, err)
	}
	stdout, both := &Capped{Max: maxProbeOutput}, &lastBytes{max: 1000}
	read := make(chan struct{})
	go func() {
		_, _ = stdcopy.StdCopy(io.MultiWriter(stdout, both), both, att.Reader)
		close(read)
	}()
	var status int
	select {
	case w := <-waitCh:
		status = int(w.StatusCode)
	case err := <-waitErr:
		return fmt.Errorf("waiting for the server container: %w", err)
	case <-time.After(timeout + time.Minute):
		return fmt.Errorf("the check of the server container from %s did not end within %s", ref, timeout+time.Minute)
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-read:
	case <-time.After(5 * time.Second):
	}
	if status == 0 {
		return nil
	}
	fail := &StartFailure{Image: ref, Command: s.Command, HTTP: s.HTTP, Status: status, Output: both.String(), Container: true}
	var r probeReport
	if status == probeRefused && json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &r) == nil {
		fail.Status, fail.Output, fail.Container = r.Status, r.Output, false
	}
	return fail
}

// initializeRequest is what the probe sends a stdio server: any answer to it (a result or an
// error) says the server listens.
const initializeRequest = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"toolscore-server-check","version":"1"}}}` + "\n"

// ProbeServer is toolscore probe-server (hidden), what CheckServer runs in a server container:
// args [--wait D] [--http ADDR] -- CMD [ARGS...]. It starts the server as the bridge does (its
// own process group, the container's environment) and waits for it to listen: a stdio server's
// answer to initialize, or ADDR accepting connections. It exits 0 once the server listens or
// is still running after D; when the server exits first, it writes a probeReport to stdout and
// exits probeRefused.
func ProbeServer(ctx context.Context, args []string, stdout io.Writer) int {
	fs := flag.NewFlagSet("probe-server", flag.ContinueOnError)
	wait := fs.Duration("wait", 30*time.Second, "how long a silent server is waited for")
	addr := fs.String("http", "", "the address an HTTP server listens on")
	if err := fs.Parse(args); err != nil || fs.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: toolscore probe-server [--wait D] [--http ADDR] -- CMD [ARGS...]")
		return 2
	}
	tail := &lastBytes{max: 1000}
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
	b, _ := json.Marshal(probeReport{Status: status, Output: output})
	fmt.Fprintln(w, string(b))
	return probeRefused
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
	tail     *lastBytes
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
