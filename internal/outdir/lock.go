package outdir

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/report"
)

// A sweep holds the lock file (record.LockFile) locked while it writes its output directory, and it
// says who holds it. The lock is flock(2)'s: it dies with the process that holds it, so a
// killed sweep never leaves a stale lock, and the file is never removed (removing a lock file
// another process has open lets two hold it).

// Holder is what the lock file says of the sweep that holds it.
type Holder struct {
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	Command string    `json:"command,omitempty"`
}

// LockedError says the output directory is another sweep's, and whose.
type LockedError struct {
	Dir    string
	Holder Holder // zero when the holder had not written its name yet
}

func (e *LockedError) Error() string {
	who := "another sweep"
	if e.Holder.PID > 0 {
		who = fmt.Sprintf("another sweep (pid %d, started %s, %s ago", e.Holder.PID,
			e.Holder.Started.Local().Format("2006-01-02 15:04:05 MST"), time.Since(e.Holder.Started).Round(time.Second))
		if e.Holder.Command != "" {
			who += ": " + report.Plain(e.Holder.Command)
		}
		who += ")"
	}
	return fmt.Sprintf("the output directory %s is in use by %s; wait for it to end, or give another --out", e.Dir, who)
}

// Lock makes the output directory dir if need be and locks it for this process, until release
// is called or the process ends; a directory another sweep holds is a *LockedError naming it.
func Lock(dir string) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("making the output directory: %w", err)
	}
	path := filepath.Join(dir, record.LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("locking the output directory: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			locked := &LockedError{Dir: dir}
			if b, rerr := os.ReadFile(path); rerr == nil {
				_ = json.Unmarshal(b, &locked.Holder)
			}
			return nil, locked
		}
		return nil, fmt.Errorf("locking the output directory: flock %s: %w", path, err)
	}
	h := Holder{PID: os.Getpid(), Started: time.Now().UTC(), Command: strings.Join(os.Args, " ")}
	b, _ := json.Marshal(h)
	// The holder's name is for the message of a sweep refused; the lock holds without it.
	if f.Truncate(0) == nil {
		_, _ = f.WriteAt(append(b, '\n'), 0)
	}
	// f stays open: closing it would release the lock.
	return func() { f.Close() }, nil
}
