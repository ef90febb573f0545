package record

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOpen: a plain file opens; a named pipe in its place is refused at once with what it is,
// as is a device behind a symlink; a missing file is os.ErrNotExist, as os.Open says.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "tee.jsonl")
	if err := os.WriteFile(plain, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(plain); err != nil || string(b) != "{}\n" {
		t.Errorf("ReadFile(plain) = %q, %v", b, err)
	}
	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	device := filepath.Join(dir, "device")
	if err := os.Symlink("/dev/zero", device); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{pipe: "named pipe", device: "character device"} {
		if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), "not a file the run wrote but a "+want) {
			t.Errorf("ReadFile(%s): %v, want it refused as a %s", filepath.Base(path), err, want)
		}
	}
	if _, err := Open(filepath.Join(dir, "none")); !os.IsNotExist(err) {
		t.Errorf("Open(missing): %v, want not-exist", err)
	}
}
