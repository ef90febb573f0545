package proc

import "golang.org/x/sys/unix"

// Undumpable makes this process's memory and /proc files (environ, mem, fd) unreadable by other
// processes of the same user, as a setuid program's are: the processes of a run, which run as
// this user, cannot read the runner's environment there. Its children are dumpable again once
// they exec, and what they hold is only the run's environment.
func Undumpable() error {
	return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}
