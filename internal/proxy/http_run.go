package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/toolscore/toolscore/internal/proc"
	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/scenario"
)

// ServerStdout is the direction of a line an HTTP server wrote on its stdout: not the protocol,
// which travels over HTTP.
const ServerStdout = "stdout"

// HTTPRun is how the proxy serves streamable HTTP: where it listens, and either the upstream
// URL or the command of a server to start on a free port.
type HTTPRun struct {
	Listen string
	// Upstream is the server to relay to; with Server.Command set, its URL is made up from
	// the port given to the command and Path.
	Upstream Upstream
	// Server is started with the text {port} in its arguments replaced by a free loopback port.
	Server Server
	Path   string
}

// startWait bounds how long a started server may take to accept connections.
const startWait = 30 * time.Second

// RunHTTP relays streamable HTTP from its own listener to the server until ctx ends or the
// server it started exits. Once it listens it writes its MCP endpoint URL, and nothing else, to
// stdout. It returns the server's exit status (0 for an upstream it did not start).
func RunHTTP(ctx context.Context, hr HTTPRun, cfg Config, tee *transcript.Tee, stdout, stderr io.Writer) (int, error) {
	var cmd *runningServer
	up := hr.Upstream
	p := New(cfg, tee)
	if len(hr.Server.Command) > 0 {
		s, code, err := startHTTPServer(ctx, hr, p, stderr)
		if err != nil {
			return code, err
		}
		cmd = s
		up.URL = &url.URL{Scheme: "http", Host: s.addr, Path: hr.Path}
	} else if up.URL == nil {
		return 2, errors.New("no upstream URL and no server command given (usage: toolscore proxy --listen ADDR (--upstream URL | -- CMD ...))")
	}
	if p.cfg.Schemas == nil {
		p.cfg.Schemas = func(ctx context.Context) (map[string]map[string]any, error) { return listSchemasHTTP(ctx, up, tee) }
	}
	if cmd == nil {
		p.record(&transcript.Record{Dir: transcript.Event, Event: "start", Detail: map[string]any{
			"upstream": up.URL.Redacted(), "listen": hr.Listen, "proxy_pid": os.Getpid(), "pgid": syscall.Getpgrp(),
			"fault": cfg.FaultName, "tool": cfg.Tool, "schema": cfg.Schema, "protocol": cfg.Protocol.name(), "seed": cfg.Seed, "probability": cfg.Probability, "nth": cfg.Nth,
		}})
	} else {
		cmd.start(p, cfg, hr.Listen)
	}
	stopServer := func(why string) (int, error) {
		if cmd == nil {
			p.end(&transcript.Record{Dir: transcript.Event, Event: "session-end", Note: why})
			return 0, nil
		}
		return cmd.stop(p, why)
	}
	l, err := net.Listen("tcp", hr.Listen)
	if err != nil {
		code, _ := stopServer("the proxy could not listen")
		return max(code, 1), fmt.Errorf("--listen %s: %w", hr.Listen, err)
	}
	srv := &http.Server{Handler: p.Handler(up), ReadHeaderTimeout: 30 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	if _, err := fmt.Fprintf(stdout, "http://%s%s\n", l.Addr(), up.URL.EscapedPath()); err != nil {
		return 1, err
	}
	var exited <-chan struct{}
	if cmd != nil {
		exited = cmd.exited
	}
	select {
	case <-ctx.Done():
		p.record(&transcript.Record{Dir: transcript.Event, Event: "proxy-stopped", Note: "the proxy was told to stop (the run's time ran out, or the sweep was stopped); it stops the server now"})
	case <-exited:
	case err := <-served:
		p.record(&transcript.Record{Dir: transcript.Event, Event: "proxy-stopped", Note: "the proxy's listener failed: " + err.Error()})
	}
	// Open streams end with the server: Close, not Shutdown, which would wait on a GET stream.
	_ = srv.Close()
	return stopServer("the proxy was told to stop")
}

// runningServer is the HTTP server the proxy started.
type runningServer struct {
	srv     Server
	proc    *os.Process
	addr    string
	exited  chan struct{}
	output  sync.WaitGroup // the readers of its stdout and stderr
	waitErr error
	state   *os.ProcessState
}

// startHTTPServer starts the command on a free loopback port and waits until it accepts
// connections; a server that exits first is recorded, and the error says so.
func startHTTPServer(ctx context.Context, hr HTTPRun, p *Proxy, stderr io.Writer) (*runningServer, int, error) {
	port, err := freePort()
	if err != nil {
		return nil, 1, fmt.Errorf("finding a free port for the server: %w", err)
	}
	srv := hr.Server
	srv.Command = make([]string, len(hr.Server.Command))
	for i, a := range hr.Server.Command {
		srv.Command[i] = strings.ReplaceAll(a, scenario.PortPlaceholder, strconv.Itoa(port))
	}
	c := srv.cmd()
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, 1, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, 1, err
	}
	c.Stdout, c.Stderr = outW, errW
	err = proc.Start(c)
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		p.end(&transcript.Record{Dir: transcript.Event, Event: "server-start-failed", Note: err.Error(), Detail: map[string]any{"command": srv.Command}})
		return nil, 127, fmt.Errorf("starting the server %q: %w", srv.Command[0], err)
	}
	s := &runningServer{srv: srv, proc: c.Process, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), exited: make(chan struct{})}
	// The server's own output is not the protocol: kept in the transcript, shown on stderr.
	s.output.Add(2)
	for _, o := range []struct {
		r   *os.File
		dir string
	}{{outR, ServerStdout}, {errR, transcript.ServerStderr}} {
		go func() {
			defer s.output.Done()
			defer o.r.Close()
			lr := newLineReader(o.r)
			for {
				line, err := lr.next()
				if len(line) > 0 {
					p.record(&transcript.Record{Dir: o.dir, Wire: line})
					if stderr != nil {
						_, _ = stderr.Write(line)
					}
				}
				if err != nil {
					return
				}
			}
		}()
	}
	go func() {
		s.waitErr = c.Wait()
		s.state = c.ProcessState
		close(s.exited)
	}()
	deadline := time.Now().Add(startWait)
	for {
		conn, err := net.DialTimeout("tcp", s.addr, time.Second)
		if err == nil {
			conn.Close()
			return s, 0, nil
		}
		select {
		case <-s.exited:
			code, detail := exitStatus(s.state, s.waitErr)
			p.end(&transcript.Record{Dir: transcript.Event, Event: "server-exit", Note: "the server exited before it accepted connections on " + s.addr, Detail: detail})
			return nil, max(code, 1), fmt.Errorf("the server %q exited before it accepted connections on %s", srv.Command[0], s.addr)
		case <-ctx.Done():
			_ = s.proc.Kill()
			<-s.exited
			code, detail := exitStatus(s.state, s.waitErr)
			p.end(&transcript.Record{Dir: transcript.Event, Event: "server-exit", Note: "the proxy was told to stop before the server accepted connections", Detail: detail})
			return nil, max(code, 1), ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = s.proc.Kill()
			<-s.exited
			code, detail := exitStatus(s.state, s.waitErr)
			p.end(&transcript.Record{Dir: transcript.Event, Event: "server-exit", Note: fmt.Sprintf("the server did not accept connections on %s within %v", s.addr, startWait), Detail: detail})
			return nil, max(code, 1), fmt.Errorf("the server %q did not accept connections on %s within %v", srv.Command[0], s.addr, startWait)
		}
	}
}

// start records the session's start, as the stdio proxy does, with where it listens.
func (s *runningServer) start(p *Proxy, cfg Config, listen string) {
	p.record(&transcript.Record{Dir: transcript.Event, Event: "start", Detail: map[string]any{
		"command": s.srv.Command, "pid": s.proc.Pid, "proxy_pid": os.Getpid(), "pgid": syscall.Getpgrp(), "listen": listen, "upstream": "http://" + s.addr,
		"fault": cfg.FaultName, "tool": cfg.Tool, "schema": cfg.Schema, "protocol": cfg.Protocol.name(), "seed": cfg.Seed, "probability": cfg.Probability, "nth": cfg.Nth,
	}})
}

// stop ends the server (SIGTERM, then SIGKILL after StopGrace) unless it has exited already,
// and writes its exit as the transcript's last record.
func (s *runningServer) stop(p *Proxy, why string) (int, error) {
	select {
	case <-s.exited:
	default:
		p.record(&transcript.Record{Dir: transcript.Event, Event: "server-signalled", Note: why + "; sent terminated"})
		_ = s.proc.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(StopGrace):
			p.record(&transcript.Record{Dir: transcript.Event, Event: "server-signalled", Note: "the server was still running after SIGTERM; sent killed"})
			_ = s.proc.Kill()
			<-s.exited
		}
	}
	// What the server wrote before it went is recorded before its exit, unless it left a
	// child holding its output.
	output := make(chan struct{})
	go func() {
		s.output.Wait()
		close(output)
	}()
	select {
	case <-output:
	case <-time.After(drainGrace):
	}
	return p.serverExit(s.state, s.waitErr, false), nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
