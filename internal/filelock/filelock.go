// Package filelock is the exclusive lock on a file that the caches share (the client installs,
// the cells): held by one process at a time, waited for by the others, released by the kernel
// when its holder dies.
package filelock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// Lock takes an exclusive lock on path, waiting for another holder (this process or another)
// until ctx ends; what is the name of the thing locked, for the errors.
func Lock(ctx context.Context, path, what string) (func(), error) {
	// O_NOFOLLOW: the lock file sits in a cache a run may have written, and a link there would
	// make this create a file wherever it points.
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return nil, fmt.Errorf("locking %s %s: %w", what, path, err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("locking %s %s: %w", what, path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
