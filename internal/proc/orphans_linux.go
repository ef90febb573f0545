package proc

import (
	"os"
	"strconv"
	"strings"
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
	var killed []int
	for range 100 { // each round ends one generation; a fork bomb is cut off here
		kids := children(os.Getpid())
		if len(kids) == 0 {
			break
		}
		for _, pid := range kids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		for _, pid := range kids {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, 0, nil)
		}
		killed = append(killed, kids...)
	}
	return killed
}

// children lists the pids whose parent is ppid, from /proc.
func children(ppid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(ppid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// HasChildren says whether this process has a child, exited or not.
func HasChildren() bool { return len(children(os.Getpid())) > 0 }
