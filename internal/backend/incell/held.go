package incell

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/proc"
)

// EnvCellHeld, set to 1 in a run's exec, says the cell container outlives the run: its other
// runs follow in it, so the run must leave nothing behind (held.go).
const EnvCellHeld = "TOOLSCORE_CELL_HELD"

// heldRun is a run in a held cell, as its cell command sees it: what the kernel had killed for
// want of memory in the container before the run started.
type heldRun struct{ oomBefore int }

// startRun says whether this run's container is held for the cell's next runs (nil when not);
// when it is, what the run starts is given to this process when its parent goes, so endRun can
// find it.
func startRun() *heldRun {
	if os.Getenv(EnvCellHeld) != "1" {
		return nil
	}
	_ = proc.Subreaper()
	return &heldRun{oomBefore: oomKills()}
}

// oomKills is how many processes the kernel's OOM killer has killed in this container's memory
// cgroup (cgroup v2, else v1), or -1 when it cannot tell.
func oomKills() int {
	for _, f := range []string{"/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "oom_kill "); ok {
				if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
					return n
				}
			}
		}
	}
	return -1
}

// endRun ends a run in its cell: in a held cell, what the run left behind is ended first, and
// its files are cleared once they are in the stream. It returns the stream's exit entry.
func endRun(h *heldRun, code int) func() string {
	if h == nil {
		return func() string { return StreamEnd{Code: code, Clean: true}.String() }
	}
	end := StreamEnd{Code: code, Left: leftBehind()}
	end.OOM = h.oomBefore >= 0 && oomKills() > h.oomBefore
	return func() string {
		end.Clean = wipe(backend.CellWorkDir, "/tmp")
		return end.String()
	}
}

// leftGrace is how long what the adapter started may take to end by itself once the adapter is
// done (a proxy closing its transcript) before it counts as left behind.
const leftGrace = 500 * time.Millisecond

// leftBehind waits up to leftGrace for the processes the adapter left to end, then kills what
// is still there and says how many those were.
func leftBehind() int {
	for deadline := time.Now().Add(leftGrace); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for {
			var ws syscall.WaitStatus
			if pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); pid <= 0 || err != nil {
				break
			}
		}
		if !proc.HasChildren() {
			return 0
		}
	}
	return len(proc.KillOrphans())
}

// wipe empties the run's directory and the shared temporary one of what this user wrote, so the
// cell's next run starts from the image's state. It says whether it could.
func wipe(dirs ...string) bool {
	ok := true
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			info, err := os.Lstat(p)
			if err != nil {
				continue
			}
			if st, isUnix := info.Sys().(*syscall.Stat_t); isUnix && int(st.Uid) != os.Getuid() {
				continue // another user's (the image's own): not the run's to remove
			}
			// A tree made read-only (a Go module cache) is made writable first.
			_ = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
				if err == nil && d.IsDir() {
					_ = os.Chmod(q, 0o700)
				}
				return nil
			})
			if os.RemoveAll(p) != nil {
				ok = false
			}
		}
	}
	return ok
}

// StreamEnd is the stream's last entry: the adapter's exit status, and for a held cell how many
// processes the run left behind, whether the kernel killed one of its processes for want of
// memory, and whether its files could be cleared after it.
type StreamEnd struct {
	Whole bool // the entry was read: the stream is whole
	Code  int
	Left  int
	OOM   bool
	Clean bool
}

func (e StreamEnd) String() string {
	s := strconv.Itoa(e.Code)
	if e.Left > 0 {
		s += " left=" + strconv.Itoa(e.Left)
	}
	if e.OOM {
		s += " oom"
	}
	if !e.Clean {
		s += " unclean"
	}
	return s
}

// parseEnd reads an exit entry.
func parseEnd(s string) StreamEnd {
	f := strings.Fields(s)
	if len(f) == 0 {
		return StreamEnd{}
	}
	code, err := strconv.Atoi(f[0])
	if err != nil {
		return StreamEnd{}
	}
	e := StreamEnd{Whole: true, Code: code, Clean: true}
	for _, x := range f[1:] {
		switch {
		case strings.HasPrefix(x, "left="):
			e.Left, _ = strconv.Atoi(strings.TrimPrefix(x, "left="))
		case x == "oom":
			e.OOM = true
		case x == "unclean":
			e.Clean = false
		}
	}
	return e
}
