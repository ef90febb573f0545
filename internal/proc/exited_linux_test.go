package proc

import (
	"os/exec"
	"testing"
	"time"
)

// Exited sees a child's exit before its Wait does, and leaves the exit to Wait.
func TestExited(t *testing.T) {
	running := exec.Command("sleep", "30")
	if err := running.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = running.Process.Kill(); _ = running.Wait() })
	if Exited(running.Process.Pid) {
		t.Error("Exited says a running child has exited")
	}

	done := exec.Command("sh", "-c", "exit 3")
	if err := done.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !Exited(done.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatal("Exited never saw a child that exits at once")
		}
		time.Sleep(10 * time.Millisecond)
	}
	err := done.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("Wait after Exited: %v, want exit status 3 (Exited must not reap the child)", err)
	}
	if !Exited(done.Process.Pid) {
		t.Error("Exited says a child that was waited for has not exited")
	}
}
