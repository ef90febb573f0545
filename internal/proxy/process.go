package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/toolscore/toolscore/internal/proc"
	"github.com/toolscore/toolscore/internal/runenv"
	"github.com/toolscore/toolscore/internal/transcript"
)

// Grace is how long the server gets to exit on its own after the client closes its end before
// it is sent SIGTERM, and again before SIGKILL, as the MCP stdio transport asks of a client.
const Grace = 2 * time.Second

// StopGrace is how long the server gets after SIGTERM when the proxy itself is told to stop (the
// run's time is up, the sweep is stopped): less than the backends give the proxy, so that the
// proxy still sees the server's exit and records it before it goes.
const StopGrace = 500 * time.Millisecond

// drainGrace is how long a stopped proxy waits for the last frames to reach a client that may
// have stopped reading: each is recorded already.
const drainGrace = 200 * time.Millisecond

// exitSeen is how long after the server's stdout ends the proxy waits to see it exit, before it
// says the server closed its stdout and kept running.
const exitSeen = 200 * time.Millisecond

// Server is the command the proxy starts and wraps.
type Server struct {
	Command []string
	// Env is the server's own variables (NAME=value): it sees only these and the allowlist of
	// the proxy's environment, never the client's contract variables or anything else.
	Env []string
	Dir string
}

func (s Server) cmd() *exec.Cmd {
	c := exec.Command(s.Command[0], s.Command[1:]...)
	c.Env = append(runenv.Allowed(os.Environ()), s.Env...)
	c.Dir = s.Dir
	return c
}

// Run starts the server, relays between the client's stdio (stdin, stdout) and the server's
// until the server exits, and returns the server's exit status (128+signal when a signal
// killed it). The server's stderr is recorded and copied to stderr. The transcript ends with
// the server's exit, also when ctx is cancelled: the server is then stopped at once.
func Run(ctx context.Context, srv Server, cfg Config, tee *transcript.Tee, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if len(srv.Command) == 0 {
		return 2, errors.New("no server command given (usage: toolscore proxy [flags] -- CMD [ARGS...])")
	}
	if cfg.Fetch == nil {
		cfg.Fetch = func(ctx context.Context, tool string, args json.RawMessage) (map[string]any, error) {
			return fetchOnce(ctx, srv, tool, args, tee)
		}
	}
	if cfg.Schemas == nil {
		cfg.Schemas = func(ctx context.Context) (map[string]map[string]any, error) {
			return listSchemas(ctx, srv, tee)
		}
	}
	cmd := srv.cmd()
	toServer, err := cmd.StdinPipe()
	if err != nil {
		return 1, err
	}
	// The server's output comes through pipes of the proxy's own: cmd.Wait closes the ones it
	// makes, and the server's exit must be seen while its last frames may still be being read.
	fromServer, serverOut, err := os.Pipe()
	if err != nil {
		return 1, err
	}
	defer fromServer.Close()
	serverErr, serverErrOut, err := os.Pipe()
	if err != nil {
		serverOut.Close()
		return 1, err
	}
	defer serverErr.Close()
	cmd.Stdout, cmd.Stderr = serverOut, serverErrOut
	err = proc.Start(cmd)
	serverOut.Close()
	serverErrOut.Close()
	if err != nil {
		tee.Write(&transcript.Record{Dir: transcript.Event, Event: "server-start-failed", Note: err.Error(), Detail: map[string]any{"command": srv.Command}})
		return 127, fmt.Errorf("starting the server %q: %w", srv.Command[0], err)
	}
	tee.Write(&transcript.Record{Dir: transcript.Event, Event: "start", Detail: map[string]any{
		"command": srv.Command, "pid": cmd.Process.Pid, "proxy_pid": os.Getpid(), "pgid": syscall.Getpgrp(),
		"fault": cfg.FaultName, "tool": cfg.Tool, "schema": cfg.Schema, "protocol": cfg.Protocol.name(), "seed": cfg.Seed, "probability": cfg.Probability, "nth": cfg.Nth,
	}})
	p := New(cfg, tee)

	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	send := func(why string, sig syscall.Signal) {
		p.record(&transcript.Record{Dir: transcript.Event, Event: "server-signalled", Note: fmt.Sprintf("%s; sent %v", why, sig)})
		_ = cmd.Process.Signal(sig)
	}
	// stopAfter stops the server the way an MCP client does (its stdin is closed already):
	// SIGTERM after grace, then SIGKILL after grace again, unless it exits first.
	stopAfter := func(why string, grace time.Duration, sigs ...syscall.Signal) {
		for _, sig := range sigs {
			select {
			case <-exited:
				return
			case <-time.After(grace):
			}
			send(why, sig)
		}
	}
	clientClosed := make(chan struct{})
	serverGone := false // the server had exited when the client closed its end; read after clientClosed
	go func() {
		err := p.ClientToServer(ctx, stdin, toServer, stdout)
		// On a loaded machine cmd.Wait may return only after the client has reacted to the
		// server's going; the kernel knows the order, so ask it.
		serverGone = proc.Exited(cmd.Process.Pid)
		close(clientClosed)
		note := "the client closed its end"
		if err != nil {
			note = err.Error()
		}
		p.record(&transcript.Record{Dir: transcript.Event, Event: "client-closed", Note: note})
		_ = toServer.Close()
		stopAfter("the server was still running after the client closed its end", Grace, syscall.SIGTERM, syscall.SIGKILL)
	}()
	go func() {
		select {
		case <-ctx.Done():
			p.record(&transcript.Record{Dir: transcript.Event, Event: "proxy-stopped", Note: "the proxy was told to stop (the run's time ran out, or the sweep was stopped); it stops the server now"})
			_ = toServer.Close()
			send("the proxy was told to stop", syscall.SIGTERM)
			stopAfter("the server was still running after SIGTERM", StopGrace, syscall.SIGKILL)
		case <-exited:
		}
	}()

	clientFirst := false // the client had closed its end when the server exited
	relayed := make(chan error, 1)
	go func() {
		err := p.ServerToClient(ctx, fromServer, stdout)
		// A server that exits closes its stdout a moment before its exit is seen.
		select {
		case <-exited:
			p.closeClient(stdout, false)
		case <-time.After(exitSeen):
			if proc.Exited(cmd.Process.Pid) { // it exited; cmd.Wait has not returned yet
				<-exited
				p.closeClient(stdout, false)
			} else {
				p.closeClient(stdout, true)
			}
		}
		relayed <- err
	}()
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		lr := newLineReader(serverErr)
		for {
			line, err := lr.next()
			if len(line) > 0 {
				p.record(&transcript.Record{Dir: transcript.ServerStderr, Wire: line})
				if stderr != nil {
					_, _ = stderr.Write(line)
				}
			}
			if err != nil {
				return
			}
		}
	}()

	<-exited
	select {
	case <-clientClosed:
		clientFirst = !serverGone
	default:
	}
	// What the server wrote before it went is read to its end, unless the proxy is stopped
	// and the client does not take it: then every frame read is recorded, and that is all.
	// A process the server started may hold its stdout open after it exited: the session goes
	// on, as it would without the proxy, until the client closes its end too.
	stop, returned := make(chan struct{}), make(chan struct{})
	defer close(returned)
	go func() {
		select {
		case <-ctx.Done():
		case <-clientClosed:
		case <-returned:
		}
		close(stop)
	}()
	var relayErr error
	if err, ok := drained(stop, relayed); ok {
		relayErr = err
	} else if ctx.Err() == nil {
		p.record(&transcript.Record{Dir: transcript.Event, Event: "server-stdout-held", Note: "the server exited, but a process it started still holds its stdout open; the proxy stopped reading once the client closed its end"})
	}
	drained(stop, stderrDone)

	return p.serverExit(cmd.ProcessState, waitErr, clientFirst), relayErr
}

// serverExit writes the transcript's last record, the server's exit with the requests it left
// unanswered, and returns its exit code.
func (p *Proxy) serverExit(state *os.ProcessState, waitErr error, clientFirst bool) int {
	code, detail := exitStatus(state, waitErr)
	detail["client_closed_first"] = clientFirst
	unanswered := p.Unanswered()
	note := "the server exited"
	if len(unanswered) > 0 {
		note = fmt.Sprintf("the server exited with %d request(s) unanswered", len(unanswered))
	}
	detail["unanswered"] = unanswered
	p.end(&transcript.Record{Dir: transcript.Event, Event: "server-exit", Note: note, Detail: detail})
	return code
}

// drained waits for ch; once stop is closed, only for drainGrace more.
func drained[T any](stop <-chan struct{}, ch <-chan T) (T, bool) {
	select {
	case v := <-ch:
		return v, true
	case <-stop:
	}
	select {
	case v := <-ch:
		return v, true
	case <-time.After(drainGrace):
		var zero T
		return zero, false
	}
}

func exitStatus(ps *os.ProcessState, waitErr error) (int, map[string]any) {
	d := map[string]any{}
	if ps == nil {
		d["error"] = fmt.Sprint(waitErr)
		return 1, d
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		d["signal"] = ws.Signal().String()
		return 128 + int(ws.Signal()), d
	}
	d["status"] = ps.ExitCode()
	return ps.ExitCode(), d
}
