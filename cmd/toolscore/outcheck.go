package main

import (
	"fmt"
	"os"
)

// checkOutDir makes the output directory out and checks a file can be written in it, so that a
// sweep whose results could not be kept (out is a file, is read-only) stops before it starts.
func checkOutDir(out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("the output directory %s: %w", out, err)
	}
	f, err := os.CreateTemp(out, ".write-check-*")
	if err != nil {
		return fmt.Errorf("the output directory %s cannot be written: %w", out, err)
	}
	f.Close()
	return os.Remove(f.Name())
}
