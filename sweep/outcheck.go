package sweep

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// checkOutDir checks the output directory out can be made and a file written in it, so that a
// sweep whose results could not be kept (out is a file, is read-only) stops before it starts. A
// directory it made is removed again: a sweep that then fails its setup leaves no empty output
// behind (which toolscore baseline would take for the newest).
func checkOutDir(out string) error {
	_, err := os.Stat(out)
	made := errors.Is(err, fs.ErrNotExist)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("the output directory %s: %w", out, err)
	}
	if made {
		defer os.Remove(out)
	}
	f, err := os.CreateTemp(out, ".write-check-*")
	if err != nil {
		return fmt.Errorf("the output directory %s cannot be written: %w", out, err)
	}
	f.Close()
	return os.Remove(f.Name())
}
