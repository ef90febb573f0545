package incell

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/proc"
)

// Serve is what a cell on the http transport serves before its adapter starts (toolscore cell
// --serve JSON): Command serves the cell's server over streamable HTTP on loopback (the proxy)
// and prints its endpoint's URL as its first stdout line; ProxyEnv names the variables of the
// cell's environment meant for it alone (an upstream's Authorization, the server's from_env
// values), which the adapter does not get.
type Serve struct {
	Command  []string `json:"command"`
	ProxyEnv []string `json:"proxy_env,omitempty"`
	// Await, when set, is an address on the cell's loopback that must accept connections before
	// Command starts: an image server's, starting in the container beside the cell.
	Await string `json:"await,omitempty"`
}

// The adapter contract's variables that cell sets or takes away (internal/client imports backend,
// so they are spelt out here too).
const (
	envServer = "TOOLSCORE_SERVER"
	envURL    = "TOOLSCORE_URL"
)

// stopWait is how long a served proxy has, once asked to stop, to stop its server and close
// its transcript before it is killed.
const stopWait = 10 * time.Second

// maxURLLine caps the first line read from the proxy: a URL, never more.
const maxURLLine = 4096

// served is a started Serve command.
type served struct {
	cmd  *exec.Cmd
	done chan error // the command's Wait, once
}

// startServe starts s.Command and waits for its first stdout line, the URL the adapter is to
// connect to. The command keeps the cell's process group, so whatever stops the cell stops it.
func startServe(ctx context.Context, s Serve) (*served, string, error) {
	if len(s.Command) == 0 {
		return nil, "", errors.New("--serve names no command")
	}
	if s.Await != "" {
		if err := await(ctx, s.Await); err != nil {
			return nil, "", err
		}
	}
	cmd := exec.Command(s.Command[0], s.Command[1:]...)
	cmd.Env = without(os.Environ(), EnvCellStream)
	// What it says on stderr stays the cell's stderr; its last words also go into the error
	// when it fails to start, where the run's evidence shows them.
	said := &backend.LastBytes{Max: 600}
	cmd.Stderr = io.MultiWriter(os.Stderr, said)
	cmd.WaitDelay = time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := proc.Start(cmd); err != nil {
		return nil, "", fmt.Errorf("starting %s: %w", s.Command[0], err)
	}
	sv := &served{cmd: cmd, done: make(chan error, 1)}
	line := make(chan string, 1)
	go func() {
		r := bufio.NewReaderSize(out, maxURLLine)
		first, _ := r.ReadSlice('\n')
		line <- string(first)
		_, _ = io.Copy(io.Discard, r) // nothing else is said on stdout; never let it block
		sv.done <- cmd.Wait()
	}()
	select {
	case l := <-line:
		u := strings.TrimSpace(l)
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			sv.stop()
			err := fmt.Errorf("%s did not print its URL first (it printed %q)", s.Command[0], truncate(l, 200))
			if t := said.String(); t != "" {
				err = fmt.Errorf("%w; its stderr ended: %s", err, t)
			}
			return nil, "", err
		}
		return sv, u, nil
	case <-ctx.Done():
		sv.stop()
		return nil, "", fmt.Errorf("stopped before %s printed its URL: %w", s.Command[0], ctx.Err())
	}
}

// awaitWait is how long a cell waits for an image server beside it to accept connections.
const awaitWait = 60 * time.Second

// await waits until addr accepts a connection, for at most awaitWait.
func await(ctx context.Context, addr string) error {
	ctx, cancel := context.WithTimeout(ctx, awaitWait)
	defer cancel()
	var d net.Dialer
	for {
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			return conn.Close()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the server did not accept connections on %s within %s: %w", addr, awaitWait, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stop asks the command to stop (SIGTERM), so the proxy stops the server and completes its
// transcript, and kills it if it is not gone within stopWait.
func (sv *served) stop() error {
	_ = sv.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-sv.done:
		return err
	case <-time.After(stopWait):
		_ = sv.cmd.Process.Kill()
		<-sv.done
		return fmt.Errorf("%s did not stop within %s of SIGTERM, and was killed", sv.cmd.Args[0], stopWait)
	}
}

// adapterEnv is the cell's environment for the adapter of an http cell: the URL instead of a
// server command, and nothing meant for the proxy alone.
func adapterEnv(s Serve, u string) []string {
	return append(without(os.Environ(), append([]string{EnvCellStream, envServer, envURL}, s.ProxyEnv...)...), envURL+"="+u)
}

// without is env less the variables named.
func without(env []string, names ...string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(names, name)
	})
}

// parseCellArgs reads toolscore cell's arguments: [--serve JSON] [--] ADAPTER [ARGS...].
func parseCellArgs(args []string) (*Serve, []string, error) {
	var s *Serve
	if len(args) > 0 && args[0] == "--serve" {
		if len(args) < 2 {
			return nil, nil, errors.New("--serve needs a JSON value")
		}
		s = &Serve{}
		if err := json.Unmarshal([]byte(args[1]), s); err != nil || len(s.Command) == 0 {
			return nil, nil, fmt.Errorf("--serve must be a JSON object with a command, got %q", truncate(args[1], 200))
		}
		args = args[2:]
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	return s, args, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
