package proc

import (
	"os/exec"
	"runtime"
)

// Start starts cmd with the death signal set, from a thread that lives as long as this process:
// the kernel ties the signal to the thread that forked the child, not to the process, and a Go
// thread can end while the process lives on (when a goroutine locked to it exits).
func Start(cmd *exec.Cmd) error {
	DieWithParent(cmd)
	done := make(chan error, 1)
	starts <- start{cmd, done}
	return <-done
}

type start struct {
	cmd  *exec.Cmd
	done chan<- error
}

var starts = make(chan start)

// The starter is there from the start, so it is no goroutine of whoever calls Start first.
func init() { go starter() }

// starter forks every child of Start on one thread, locked and never released, so the thread
// (and with it every child's link to this process) ends only when the process does.
func starter() {
	runtime.LockOSThread()
	for s := range starts {
		s.done <- s.cmd.Start()
	}
}
