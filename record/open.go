package record

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// Open opens a file a run left in an output directory (its transcript, its stdout) to read it.
// What ran in the run could put a named pipe, a device or a socket in the file's place: that is
// refused, saying so, never read (a pipe would be waited on forever, a device read without end).
func Open(path string) (*os.File, error) {
	// Non-blocking, so opening a pipe returns at once; it changes nothing for a plain file.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a file the run wrote but a %s: something in the run replaced it", path, kind(info.Mode()))
	}
	return f, nil
}

// ReadFile is os.ReadFile through Open.
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// kind names a file mode that is not a plain file's.
func kind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "named pipe"
	case m&os.ModeCharDevice != 0:
		return "character device"
	case m&os.ModeDevice != 0:
		return "device"
	case m&os.ModeSocket != 0:
		return "socket"
	case m.IsDir():
		return "directory"
	}
	return "special file (" + m.String() + ")"
}
