package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/toolscore/toolscore/runner/proc"
)

// Grace is how long the server gets to exit on its own after the client closes its end (or the
// run is cancelled) before it is sent SIGTERM, and again before SIGKILL, as the MCP stdio
// transport asks of a client.
const Grace = 2 * time.Second

// Server is the command the proxy starts and wraps.
type Server struct {
	Command []string
	Env     []string // added to the proxy's own environment
	Dir     string
}

func (s Server) cmd() *exec.Cmd {
	c := exec.Command(s.Command[0], s.Command[1:]...)
	c.Env = append(os.Environ(), s.Env...)
	c.Dir = s.Dir
	return c
}

// Run starts the server, relays between the client's stdio (stdin, stdout) and the server's
// until the server exits, and returns the server's exit status (128+signal when a signal
// killed it). The server's stderr is recorded and copied to stderr.
func Run(ctx context.Context, srv Server, cfg Config, tee *Tee, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if len(srv.Command) == 0 {
		return 2, errors.New("no server command given (usage: toolscore proxy [flags] -- CMD [ARGS...])")
	}
	if cfg.Fetch == nil {
		cfg.Fetch = func(ctx context.Context, tool string, args json.RawMessage) (map[string]any, error) {
			return fetchOnce(ctx, srv, tool, args, tee)
		}
	}
	cmd := srv.cmd()
	toServer, err := cmd.StdinPipe()
	if err != nil {
		return 1, err
	}
	fromServer, err := cmd.StdoutPipe()
	if err != nil {
		return 1, err
	}
	serverErr, err := cmd.StderrPipe()
	if err != nil {
		return 1, err
	}
	if err := proc.Start(cmd); err != nil {
		tee.Write(&Record{Dir: Event, Event: "server-start-failed", Note: err.Error(), Detail: map[string]any{"command": srv.Command}})
		return 127, fmt.Errorf("starting the server %q: %w", srv.Command[0], err)
	}
	tee.Write(&Record{Dir: Event, Event: "start", Detail: map[string]any{
		"command": srv.Command, "pid": cmd.Process.Pid, "fault": cfg.FaultName, "tool": cfg.Tool,
		"schema": cfg.Schema, "seed": cfg.Seed, "probability": cfg.Probability, "nth": cfg.Nth,
	}})
	p := New(cfg, tee)

	exited := make(chan struct{})
	var stopOnce sync.Once
	// stop asks the server to go the way an MCP client would: stdin is already closed, then
	// SIGTERM after a grace period, then SIGKILL.
	stop := func(why string) {
		stopOnce.Do(func() {
			go func() {
				for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
					select {
					case <-exited:
						return
					case <-time.After(Grace):
					}
					tee.Write(&Record{Dir: Event, Event: "server-signalled", Note: fmt.Sprintf("%s; sent %v", why, sig)})
					_ = cmd.Process.Signal(sig)
				}
			}()
		})
	}
	go func() {
		err := p.ClientToServer(ctx, stdin, toServer)
		note := "the client closed its end"
		if err != nil {
			note = err.Error()
		}
		tee.Write(&Record{Dir: Event, Event: "client-closed", Note: note})
		_ = toServer.Close()
		stop("the server was still running after the client closed its end")
	}()
	go func() {
		select {
		case <-ctx.Done():
			_ = toServer.Close()
			_ = cmd.Process.Signal(syscall.SIGTERM)
			stop("the run was cancelled")
		case <-exited:
		}
	}()

	var stderrDone sync.WaitGroup
	stderrDone.Add(1)
	go func() {
		defer stderrDone.Done()
		lr := newLineReader(serverErr)
		for {
			line, err := lr.next()
			if len(line) > 0 {
				tee.Write(&Record{Dir: ServerStderr, Wire: line})
				if stderr != nil {
					_, _ = stderr.Write(line)
				}
			}
			if err != nil {
				return
			}
		}
	}()

	relayErr := p.ServerToClient(ctx, fromServer, stdout)
	stderrDone.Wait()
	waitErr := cmd.Wait()
	close(exited)

	code, detail := exitStatus(cmd.ProcessState, waitErr)
	unanswered := p.Unanswered()
	note := "the server exited"
	if len(unanswered) > 0 {
		note = fmt.Sprintf("the server exited with %d request(s) unanswered", len(unanswered))
	}
	detail["unanswered"] = unanswered
	tee.Write(&Record{Dir: Event, Event: "server-exit", Note: note, Detail: detail})
	if relayErr != nil {
		return code, relayErr
	}
	return code, nil
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
