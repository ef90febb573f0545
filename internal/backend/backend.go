package backend

import (
	"strings"
	"sync"
	"time"

	"github.com/toolscore/toolscore/record"
)

// Spec is one run to execute.
type Spec struct {
	// Dir is the run's own directory on this machine: its files are the run's inputs, and the
	// transcript lands in it.
	Dir string
	// Client names the client adapter (it picks the cell image); Cell and Run label the run.
	Client string
	Cell   string
	Run    int
	// Command is the client adapter to start; Env is added to its environment.
	Command []string
	Env     []string
	Timeout time.Duration
	// CellRuns is how many runs of the cell the sweep makes: the docker backend's held
	// container for the cell must outlive them all.
	CellRuns int
	// Network, when set, is this run's network instead of the sandbox's (a cell that must reach
	// a real model); the local backend has no say over networks and ignores it.
	Network string
	// Server, when set, is the run's image server: a container of its own whose loopback the
	// cell shares (docker only).
	Server *ServerSpec
}

// ServerSpec is a run's server container (server.image): the stdio server's command, run in the
// sweep's server image (Docker.ServerImage) behind toolscore serve-stdio, and its variables.
type ServerSpec struct {
	Command []string
	Env     []string
	// HTTP says the command serves streamable HTTP itself on ServerAddr (its {port} written
	// as ServerAddr's port), so the container runs it as it is, with no bridge.
	HTTP bool
}

// ServerAddr is where a server container's bridge (or its HTTP server) listens: on the loopback
// it shares with the run's cell only, so one fixed port serves every run.
const ServerAddr = "127.0.0.1:7464"

// Paths inside a cell container: the docker backend, the images and the cell's own side agree
// on them.
const (
	CellBinary  = "/opt/toolscore/toolscore"
	CellWorkDir = "/run/toolscore"
)

// StdoutFile is the file in a run's directory that holds the adapter's stdout: its observation
// is the last line. It is streamed there, never held in memory, so an observation of any size
// is kept whole; a cell's own work files of that name are not taken.
const StdoutFile = record.StdoutFile

// Result is what came of a run. A crash, a timeout or a dead adapter is a result, not an error.
type Result struct {
	// Stdout is the path of the file holding the adapter's stdout (StdoutFile in the run's
	// directory); it may not exist when the adapter never started.
	Stdout   string
	Stderr   []byte
	ExitCode int
	// TimedOut is true when the run's timeout stopped it; Cancelled when the sweep was.
	TimedOut  bool
	Cancelled bool
	// OOMKilled is true when the cell ran out of memory and the kernel killed it.
	OOMKilled bool
	Took      time.Duration
	// CPU is the CPU time the run's processes used, where the backend can tell: on the local
	// backend the adapter's and that of the processes it waited for; on docker the cell's cgroup,
	// read only for a run stopped at its timeout (a cell that exited has no cgroup left to read).
	CPU time.Duration
	// Err says why the run could not start at all.
	Err error
}

// MaxOutput caps what is kept of a run's stderr, which only its last lines are read of.
const MaxOutput = 16 << 20

// Capped is an io.Writer that keeps the first Max bytes and counts the rest: a run's stderr on
// either backend.
type Capped struct {
	Max     int
	buf     []byte
	dropped int
}

func (c *Capped) Write(p []byte) (int, error) {
	room := c.Max - len(c.buf)
	if room >= len(p) {
		c.buf = append(c.buf, p...)
	} else {
		if room > 0 {
			c.buf = append(c.buf, p[:room]...)
		}
		c.dropped += len(p) - max(room, 0)
	}
	return len(p), nil
}

// Bytes is what was kept.
func (c *Capped) Bytes() []byte { return c.buf }

// LastBytes keeps the last Max bytes written to it.
type LastBytes struct {
	mu  sync.Mutex
	buf []byte
	Max int
}

func (l *LastBytes) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	if over := len(l.buf) - l.Max; over > 0 {
		l.buf = l.buf[over:]
	}
	return len(p), nil
}

// String is what was kept, trimmed, its lines joined with " | ".
func (l *LastBytes) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(l.buf)), "\n", " | ")), " ")
}
