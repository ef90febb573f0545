package bridge

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/toolscore/toolscore/internal/frame"
	"github.com/toolscore/toolscore/internal/proc"
)

// The kinds of frame. From the server's side: its stdout, its stderr, its exit status (the last
// frame); from the client's side: the server's stdin, the end of its stdin, a signal for it.
const (
	kindStdout = 'o'
	kindStderr = 'e'
	kindExit   = 'x'
	kindStdin  = 'i'
	kindEOF    = 'c'
	kindSignal = 's'
)

// maxFrame bounds one frame's payload: a reader of hostile frames never allocates more.
const maxFrame = 1 << 20

// frameWriter writes frames of one kind to a connection shared with other writers.
type frameWriter struct {
	mu   *sync.Mutex
	w    io.Writer
	kind byte
}

func (f frameWriter) Write(p []byte) (int, error) {
	for done := 0; done < len(p); {
		n := min(len(p)-done, maxFrame)
		if err := writeFrame(f.mu, f.w, f.kind, p[done:done+n]); err != nil {
			return done, err
		}
		done += n
	}
	return len(p), nil
}

func writeFrame(mu *sync.Mutex, w io.Writer, kind byte, payload []byte) error {
	mu.Lock()
	defer mu.Unlock()
	return frame.Write(w, kind, payload)
}

// readFrame reads one frame; buf is reused when it is big enough.
func readFrame(r io.Reader, buf []byte) (byte, []byte, error) {
	return frame.Read(r, buf, maxFrame)
}

// Serve accepts connections on ln until ctx is done, and serves each with a fresh process of
// command (environment env), so every connection (a run's session, a fault's fetch of a
// neighbouring record) talks to a server of its own.
func Serve(ctx context.Context, ln net.Listener, command, env []string) error {
	if len(command) == 0 {
		return errors.New("no server command given")
	}
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			serveOne(ctx, conn, command, env)
		}()
	}
}

// serveOne runs one server process for one connection. A client that goes without ending the
// server's stdin (killed) takes the server's whole process group with it.
func serveOne(ctx context.Context, conn net.Conn, command, env []string) {
	defer conn.Close()
	var mu sync.Mutex
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout = frameWriter{&mu, conn, kindStdout}
	cmd.Stderr = frameWriter{&mu, conn, kindStderr}
	// A grandchild holding the output open must not keep the exit from being told.
	cmd.WaitDelay = 2 * time.Second
	stdin, err := cmd.StdinPipe()
	if err == nil {
		err = proc.Start(cmd)
	}
	if err != nil {
		_ = writeFrame(&mu, conn, kindStderr, []byte("toolscore serve-stdio: starting the server: "+err.Error()+"\n"))
		_ = writeFrame(&mu, conn, kindExit, []byte("127"))
		return
	}
	pgid := cmd.Process.Pid
	exited := make(chan struct{})
	go func() {
		r := bufio.NewReader(conn)
		var buf []byte
		for {
			kind, payload, err := readFrame(r, buf)
			if err != nil {
				select {
				case <-exited:
				default:
					// The client is gone without ending the session: nothing may outlive it.
					_ = syscall.Kill(-pgid, syscall.SIGKILL)
				}
				return
			}
			buf = payload
			switch kind {
			case kindStdin:
				_, _ = stdin.Write(payload)
			case kindEOF:
				_ = stdin.Close()
			case kindSignal:
				if n, err := strconv.Atoi(string(payload)); err == nil && (n == int(syscall.SIGTERM) || n == int(syscall.SIGINT) || n == int(syscall.SIGKILL)) {
					_ = cmd.Process.Signal(syscall.Signal(n))
				}
			}
		}
	}()
	go func() {
		select {
		case <-ctx.Done():
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		case <-exited:
		}
	}()
	werr := cmd.Wait()
	close(exited)
	_ = syscall.Kill(-pgid, syscall.SIGKILL) // whatever the server left of its group
	_ = writeFrame(&mu, conn, kindExit, []byte(strconv.Itoa(exitCode(cmd.ProcessState, werr))))
}

// exitCode is a process's exit status, 128+signal when a signal killed it.
func exitCode(ps *os.ProcessState, err error) int {
	if ps == nil {
		return 1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	if ps.ExitCode() < 0 && err != nil {
		return 1
	}
	return ps.ExitCode()
}

// DialWait is how long Connect keeps trying to reach the bridge, which starts beside it.
const DialWait = 30 * time.Second

// Connect reaches the bridge at addr and is its server here: stdin goes to the server, its
// stdout and stderr come out on stdout and stderr, and the server's exit status is returned.
// When ctx is done the server is sent SIGTERM, and the exit still awaited.
func Connect(ctx context.Context, addr string, stdin io.Reader, stdout, stderr io.Writer) int {
	conn, err := dial(ctx, addr)
	if err != nil {
		fmt.Fprintf(stderr, "toolscore connect: %v\n", err)
		return 1
	}
	defer conn.Close()
	var mu sync.Mutex
	go func() {
		_, _ = io.Copy(frameWriter{&mu, conn, kindStdin}, stdin)
		_ = writeFrame(&mu, conn, kindEOF, nil)
	}()
	got := make(chan struct{})
	defer close(got)
	go func() {
		select {
		case <-ctx.Done():
			_ = writeFrame(&mu, conn, kindSignal, []byte(strconv.Itoa(int(syscall.SIGTERM))))
		case <-got:
		}
	}()
	r := bufio.NewReader(conn)
	var buf []byte
	for {
		kind, payload, err := readFrame(r, buf)
		if err != nil {
			fmt.Fprintf(stderr, "toolscore connect: the server's bridge at %s closed before the server's exit: %v\n", addr, err)
			return 1
		}
		buf = payload
		switch kind {
		case kindStdout:
			// A reader that is gone is not the server's failure: the rest is read and dropped.
			_, _ = stdout.Write(payload)
		case kindStderr:
			_, _ = stderr.Write(payload)
		case kindExit:
			code, err := strconv.Atoi(string(payload))
			if err != nil {
				return 1
			}
			return code
		}
	}
}

// dial tries addr until it answers, the bridge's container having started just before.
func dial(ctx context.Context, addr string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, DialWait)
	defer cancel()
	var d net.Dialer
	for {
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			return conn, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("nothing answered at %s within %s: %w", addr, DialWait, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
