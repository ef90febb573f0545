package proc

import (
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"
)

// TestEndStrays: what a finished group left, in the group and in a session of its own, is
// killed and reaped; a child os/exec still waits for is neither, and its Wait sees its own exit.
func TestEndStrays(t *testing.T) {
	if err := Subreaper(); err != nil {
		t.Skipf("no child subreaper here: %v", err)
	}
	other := exec.Command("sh", "-c", "sleep 0.5; exit 7")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	group := exec.Command("sh", "-c", "sleep 1000 & setsid sleep 1000 & sleep 0.2")
	group.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := Start(group); err != nil {
		t.Fatal(err)
	}
	pgid := group.Process.Pid
	if err := group.Wait(); err != nil {
		t.Fatal(err)
	}
	ended := EndStrays(pgid)
	if len(ended) != 2 || slices.Contains(ended, other.Process.Pid) {
		t.Errorf("EndStrays ended %v; want the two sleeps the group left, not %d", ended, other.Process.Pid)
	}
	for _, pid := range ended {
		if err := syscall.Kill(pid, 0); err == nil {
			t.Errorf("pid %d is still there", pid)
		}
	}
	done := make(chan error, 1)
	go func() { done <- other.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 7 {
			t.Errorf("the other child's Wait: %v, want exit status 7", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the other child was never seen to exit")
	}
}
