package proc

import (
	"os/exec"
	"syscall"
)

// DieWithParent sets cmd's death signal, for a library that starts cmd itself. The goroutine
// that makes the library start it must hold its thread (runtime.LockOSThread) until cmd has
// exited, for the reason Start gives.
func DieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
