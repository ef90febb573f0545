package backend

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/toolscore/toolscore/runner/proc"
)

// The cell's stream: what `toolscore cell` writes on its stdout once the adapter is done, one
// tar stream holding the run's work directory (under work/), the adapter's stdout, and last the
// exit entry, whose presence says the stream is whole. It brings a run's files out over the
// attach connection the run already has, so most runs need no copy-out through the engine's
// archive endpoint (which re-executes the daemon for every copy); a cell killed before it could
// write the stream is copied out the slow way.
const (
	streamWork   = "work/"
	streamStdout = "stdout"
	streamExit   = "exit"
)

// EnvCellStream, set to 1, has toolscore's own adapters (client, agent) write the cell's stream
// themselves, so their cells need no wrapper process.
const EnvCellStream = "TOOLSCORE_CELL_STREAM"

// InCell runs an adapter of toolscore's own in this process, its stdout kept, then writes the
// cell's stream to stdout. The exit status is the adapter's.
func InCell(adapter func(stdout io.Writer) int) int {
	out := &capped{max: maxOutput}
	code := adapter(out)
	if err := writeStream(os.Stdout, ".", out.buf, code); err != nil {
		fmt.Fprintf(os.Stderr, "toolscore: writing the run's files out: %v\n", err)
	}
	return code
}

// CellCommand is what a cell container runs for the adapter command: toolscore's own adapters
// as they are, told to write the stream; any other under the toolscore cell wrapper. Exported
// for bench/dockerbench, whose copy of Run must start the same command.
func CellCommand(command []string) (cmd, env []string) {
	if len(command) > 1 && command[0] == CellBinary && (command[1] == "client" || command[1] == "agent") {
		return command, []string{EnvCellStream + "=1"}
	}
	return append([]string{CellBinary, "cell", "--"}, command...), nil
}

// Cell runs the adapter command inside a cell: stdin and stderr are the adapter's own, its
// stdout is kept, and when it exits the cell's stream is written to stdout. A stop signal is
// passed on to the adapter. The exit status is the adapter's.
func Cell(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: toolscore cell -- ADAPTER [ARGS...] (inside a cell container)")
		return 2
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr
	out := &capped{max: maxOutput}
	cmd.Stdout = out
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)
	if err := proc.Start(cmd); err != nil {
		fmt.Fprintf(os.Stderr, "toolscore cell: starting the adapter: %v\n", err)
		return 127
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	case err != nil:
		fmt.Fprintf(os.Stderr, "toolscore cell: %v\n", err)
		code = 1
	}
	if err := writeStream(os.Stdout, ".", out.buf, code); err != nil {
		fmt.Fprintf(os.Stderr, "toolscore cell: writing the run's files out: %v\n", err)
	}
	return code
}

// writeStream writes the cell's stream: every regular file under dir, the adapter's stdout, the
// exit status.
func writeStream(w io.Writer, dir string, stdout []byte, code int) error {
	tw := tar.NewWriter(w)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil // a file that vanished or cannot be read is left out, not fatal
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil {
			return nil
		}
		if err := tw.WriteHeader(&tar.Header{Name: streamWork + filepath.ToSlash(rel), Mode: 0o644, Size: info.Size(), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		// A file still growing is cut at the size its header promised.
		_, err = io.CopyN(tw, f, info.Size())
		return err
	})
	if err != nil {
		return err
	}
	for _, e := range []struct {
		name string
		body []byte
	}{{streamStdout, stdout}, {streamExit, []byte(strconv.Itoa(code))}} {
		if err := tw.WriteHeader(&tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.body)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		if _, err := tw.Write(e.body); err != nil {
			return err
		}
	}
	return tw.Close()
}

// ReadStream reads the cell's stream from r as it comes, writing the work directory's files
// into dir. It returns the adapter's stdout, and whether the stream was whole. It reads r to
// its end whatever it holds, so the cell's output never backs up. Exported for
// bench/dockerbench, whose copy of Run must read the same stream.
func ReadStream(r io.Reader, dir string) (stdout []byte, whole bool) {
	defer io.Copy(io.Discard, r)
	out := &capped{max: maxOutput}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err != nil {
			return out.buf, false
		}
		switch {
		case h.Name == streamExit:
			b, err := io.ReadAll(tr)
			_, perr := strconv.Atoi(string(b))
			return out.buf, err == nil && perr == nil
		case h.Name == streamStdout:
			if _, err := io.Copy(out, tr); err != nil {
				return out.buf, false
			}
		case strings.HasPrefix(h.Name, streamWork) && h.Typeflag == tar.TypeReg:
			if err := extractFile(tr, dir, strings.TrimPrefix(h.Name, streamWork)); err != nil {
				return out.buf, false
			}
		}
	}
}

// extractFile writes one file of a tar stream from a cell into dir: only plain names inside
// it, so a hostile cell cannot write elsewhere.
func extractFile(r io.Reader, dir, name string) error {
	name = path.Clean(name)
	if name == "." || name == ".." || strings.HasPrefix(name, "../") || path.IsAbs(name) {
		return nil
	}
	dst := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
