package proc

import (
	"errors"

	"golang.org/x/sys/unix"
)

// Exited says whether the child pid has exited, without reaping it: its Wait still returns as
// usual. A child that is gone already (waited for) counts as exited.
func Exited(pid int) bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	if errors.Is(err, unix.ECHILD) {
		return true
	}
	// With WNOHANG the kernel leaves info zeroed when the child is still running.
	return err == nil && info.Signo != 0
}
