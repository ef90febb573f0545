package filelock

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestLockRefusesLink: a link where the lock file goes (a run can put one in a cache) is not
// followed: the lock fails, and no file is made where the link points.
func TestLockRefusesLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "made-outside")
	if err := os.Symlink(target, filepath.Join(dir, "entry.lock")); err != nil {
		t.Fatal(err)
	}
	if unlock, err := Lock(context.Background(), filepath.Join(dir, "entry.lock"), "the cache entry"); err == nil {
		unlock()
		t.Error("Lock took a link")
	}
	if _, err := os.Lstat(target); err == nil {
		t.Error("Lock made a file where the link points")
	}
	unlock, err := Lock(context.Background(), filepath.Join(dir, "plain.lock"), "the cache entry")
	if err != nil {
		t.Fatal(err)
	}
	unlock()
}
