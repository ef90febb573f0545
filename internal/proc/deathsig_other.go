//go:build !linux

package proc

import "os/exec"

// DieWithParent does nothing where the kernel has no death signal (macOS, for the release's
// darwin binaries): there nothing ties a child's life to its parent's, so the processes of a
// toolscore killed outright (SIGKILL) can outlive it.
func DieWithParent(cmd *exec.Cmd) {}
