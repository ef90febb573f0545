package proc

import (
	"os"
	"syscall"
)

// Subreaper makes this process the one its orphaned descendants are given to (as a container's
// init is), so that what a server leaves running, even in a session of its own (setsid), can be
// found and ended by KillOrphans.
func Subreaper() error {
	const prSetChildSubreaper = 36
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// KillOrphans kills and reaps every child this process has left, and the children those leave
// in turn, and returns their pids. Call it once every child started on purpose was waited for:
// what is left is what they left behind.
func KillOrphans() []int {
	return killRounds(func() []int { return children(os.Getpid()) })
}

// killRounds kills and reaps what pick lists, round after round until it lists nothing, and
// returns their pids: each round ends one generation, and a fork bomb is cut off at 100.
func killRounds(pick func() []int) []int {
	var killed []int
	for range 100 {
		pids := pick()
		if len(pids) == 0 {
			break
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		for _, pid := range pids {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, 0, nil)
		}
		killed = append(killed, pids...)
	}
	return killed
}

// children lists the pids whose parent is ppid, from /proc.
func children(ppid int) []int {
	var pids []int
	for _, c := range childStats(ppid) {
		pids = append(pids, c.pid)
	}
	return pids
}

// HasChildren says whether this process has a child, exited or not.
func HasChildren() bool { return len(children(os.Getpid())) > 0 }
