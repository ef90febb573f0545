package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/proc"
	"github.com/toolscore/toolscore/internal/runenv"
)

// Backend runs each adapter as a fresh process group on this machine.
type Backend struct {
	// Binary is the toolscore binary on this machine.
	Binary string
}

func (Backend) Name() string { return "local" }

// Self is the toolscore binary the runs start.
func (l Backend) Self() string { return l.Binary }

// WorkDir is the run's own directory: runs execute right here.
func (Backend) WorkDir(hostDir string) string { return hostDir }

// Run starts the adapter in its own process group, and afterwards kills the whole group and
// what left it (proc.EndStrays), so a proxy, server or daemon the adapter left behind never
// outlives the run. The adapter dies with this
// process (proc.Start), and the group is on record until it is dead, for the next sweep
// (SweepGroups) should this process be killed before it could kill the group.
func (Backend) Run(ctx context.Context, s backend.Spec) backend.Result {
	if s.Server != nil {
		return backend.Result{Err: errors.New("an image server (server.image) runs only on the docker backend")}
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return backend.Result{Err: fmt.Errorf("making the run's directory: %w", err)}
	}
	cmd := exec.Command(s.Command[0], s.Command[1:]...)
	cmd.Dir = s.Dir
	// Nothing of toolscore's own environment but the allowlist: the run's home and temporary
	// directory are its own, and the rest is what the run defines.
	cmd.Env = append(append(runenv.Allowed(os.Environ()), "HOME="+s.Dir, "TMPDIR="+s.Dir), s.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdoutPath := filepath.Join(s.Dir, backend.StdoutFile)
	stdout, err := os.Create(stdoutPath)
	if err != nil {
		return backend.Result{Err: fmt.Errorf("making the file for the adapter's output: %w", err)}
	}
	defer stdout.Close()
	stderr := &backend.Capped{Max: backend.MaxOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// The pipes' copying goroutines may wait on a grandchild holding them open; the group is
	// killed by then, so this bounds the wait.
	cmd.WaitDelay = 2 * time.Second
	// What the adapter's tree leaves behind when its parent dies (a daemon, even in a session of
	// its own) is given to this process, which ends it with the run (proc.EndStrays).
	_ = proc.Subreaper()
	start := time.Now()
	if err := proc.Start(cmd); err != nil {
		return backend.Result{Err: fmt.Errorf("starting %q: %w", s.Command[0], err)}
	}
	pgid := cmd.Process.Pid
	// Without the record the run goes as well; only a sweep after a killed runner misses it.
	forget, _ := recordGroup(pgid)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	timer := time.NewTimer(s.Timeout)
	defer timer.Stop()
	var r backend.Result
	select {
	case err = <-done:
	case <-timer.C:
		r.TimedOut = true
		err = stopGroup(pgid, done)
	case <-ctx.Done():
		r.Cancelled = true
		err = stopGroup(pgid, done)
	}
	endGroup(pgid) // whatever is left of the group
	proc.EndStrays(pgid)
	forget()
	r.Took = time.Since(start)
	if ps := cmd.ProcessState; ps != nil {
		r.CPU = ps.UserTime() + ps.SystemTime()
	}
	r.Stdout, r.Stderr = stdoutPath, stderr.Bytes()
	r.ExitCode = 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.ExitCode = exit.ExitCode()
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.ExitCode = 128 + int(ws.Signal())
		}
	case err != nil && !errors.Is(err, exec.ErrWaitDelay):
		r.ExitCode = -1
		r.Err = err
	}
	return r
}

// endGroup ends what is left of the group once the adapter is gone. A proxy still stopping
// gets SIGTERM and a moment first: it ends what its server left running outside the group (a
// helper in a session of its own), which SIGKILL would leave behind.
func endGroup(pgid int) {
	if groupLives(pgid) {
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		for deadline := time.Now().Add(time.Second); groupLives(pgid) && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// groupLives says whether a process of the group runs (a zombie does not: it waits to be
// reaped, by an init that may never do it); false where there is no /proc.
func groupLives(pgid int) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		if st, err := backend.ReadStat(e.Name()); err == nil && st.PGID == pgid && st.State != 'Z' && st.State != 'X' {
			return true
		}
	}
	return false
}

// stopGroup asks the group to end (SIGTERM), then makes it (SIGKILL).
func stopGroup(pgid int, done <-chan error) error {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case err := <-done:
		return err
	case <-time.After(2 * time.Second):
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	return <-done
}
