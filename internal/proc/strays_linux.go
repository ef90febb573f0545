package proc

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// EndStrays kills and reaps what a finished process group left among this process's children,
// once the group's leader was waited for: the processes still in group pgid (given to this
// process, a subreaper, when their parent died) and those in a session of their own (a daemon
// that left the group with setsid). It returns their pids. It never touches a child that
// os/exec waits for: those are in this process's session, and in no group it ends.
func EndStrays(pgid int) []int {
	self := os.Getpid()
	sid, err := unix.Getsid(0)
	if err != nil {
		return nil
	}
	return killRounds(func() []int {
		var strays []int
		for _, c := range childStats(self) {
			if c.pgid == pgid || c.sid != sid {
				strays = append(strays, c.pid)
			}
		}
		return strays
	})
}

type childStat struct{ pid, pgid, sid int }

// childStats lists the children of ppid with their group and session, from /proc.
func childStats(ppid int) []childStat {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := strconv.Itoa(ppid)
	var out []childStat
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp session ...: comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 4 || f[1] != want {
			continue
		}
		pgid, _ := strconv.Atoi(f[2])
		sid, _ := strconv.Atoi(f[3])
		out = append(out, childStat{pid, pgid, sid})
	}
	return out
}
