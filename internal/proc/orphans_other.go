//go:build !linux

package proc

// Subreaper does nothing where the kernel has no child subreaper (macOS): there a process a
// server leaves behind in a session of its own outlives the run.
func Subreaper() error { return nil }

// KillOrphans finds nothing where orphans are not given to this process.
func KillOrphans() []int { return nil }

// HasChildren says whether this process has a child; it cannot tell here.
func HasChildren() bool { return false }
