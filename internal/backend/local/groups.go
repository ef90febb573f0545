package local

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/toolscore/toolscore/internal/backend"
)

// The local backend notes each live process group of a run in a file of the state directory, as
// containers carry labels: a runner that is killed outright cannot kill its groups, and the
// death signal reaches only the processes toolscore started itself (not a server's own children),
// so the next toolscore run kills what is left of the groups whose runner is gone.

// groupRecord is one live process group of a run.
type groupRecord struct {
	PGID int `json:"pgid"`
	// Start is the group leader's start time (see Owner.Start): a pgid names the group only
	// while the leader or a member lives, and the number may be reused after.
	Start uint64        `json:"start"`
	Owner backend.Owner `json:"owner"`
}

// GroupDir is where the records of live process groups are: $XDG_RUNTIME_DIR/toolscore/groups
// (emptied at every boot, like the pids it holds), else under the user's cache directory.
func GroupDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "toolscore", "groups")
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "toolscore", "groups")
	}
	return filepath.Join(os.TempDir(), "toolscore-"+strconv.Itoa(os.Getuid()), "groups")
}

// recordGroup notes the live group whose leader is pid; forget removes the note, once the group
// is dead.
func recordGroup(pid int) (forget func(), err error) {
	st, err := backend.ReadStat(strconv.Itoa(pid))
	if err != nil {
		return func() {}, err
	}
	dir := GroupDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return func() {}, err
	}
	b, _ := json.Marshal(groupRecord{PGID: pid, Start: st.Start, Owner: backend.Self()})
	name := filepath.Join(dir, fmt.Sprintf("%d-%d.json", pid, st.Start))
	// Written aside and renamed, so a sweep never reads half a record.
	tmp := filepath.Join(dir, "."+filepath.Base(name))
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return func() {}, err
	}
	if err := os.Rename(tmp, name); err != nil {
		os.Remove(tmp)
		return func() {}, err
	}
	return func() { os.Remove(name) }, nil
}

// SweepGroups kills the process groups of runs whose runner is gone, and says how many it
// killed. Groups of a runner it cannot judge (another boot, machine or PID namespace) are left.
func SweepGroups() (int, error) {
	dir := GroupDir()
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("reading the records of process groups in %s: %w", dir, err)
	}
	me := backend.Self()
	n := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(path)
		var r groupRecord
		if err != nil || json.Unmarshal(b, &r) != nil || r.PGID <= 1 {
			continue
		}
		gone, known := r.Owner.Gone()
		if !known && r.Owner.Host == me.Host && r.Owner.Boot != "" && r.Owner.Boot != me.Boot {
			os.Remove(path) // of an earlier boot of this machine: none of its processes lives
			continue
		}
		if !gone {
			continue
		}
		// While any process of the group lives, its number is not given to another process; a
		// leader with another start time means the group is long gone and the number reused.
		if st, err := backend.ReadStat(strconv.Itoa(r.PGID)); err == nil && st.Start != r.Start {
			os.Remove(path)
			continue
		}
		if syscall.Kill(-r.PGID, syscall.SIGKILL) == nil {
			n++
		}
		os.Remove(path)
	}
	return n, nil
}
