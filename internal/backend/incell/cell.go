package incell

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
	"strings"
	"syscall"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/proc"
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

// Adapter runs an adapter of toolscore's own in this process, its stdout kept, then writes the
// cell's stream to stdout. The exit status is the adapter's.
func Adapter(adapter func(stdout io.Writer) int) int {
	out, err := stdoutFile()
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscore: keeping the adapter's output: %v\n", err)
		return 1
	}
	defer out.Close()
	h := startRun()
	code := adapter(out)
	if err := writeStream(os.Stdout, ".", out, endRun(h, code)); err != nil {
		fmt.Fprintf(os.Stderr, "toolscore: writing the run's files out: %v\n", err)
	}
	return code
}

// stdoutFile keeps the adapter's stdout in the cell until the stream is written: a file that
// is unlinked at once, so it costs no memory whatever its size and is not one of the run's files.
func stdoutFile() (*os.File, error) {
	f, err := os.CreateTemp(".", ".stdout-*")
	if err != nil {
		if f, err = os.CreateTemp("", "toolscore-stdout-*"); err != nil {
			return nil, err
		}
	}
	os.Remove(f.Name())
	return f, nil
}

// Command is what a cell container runs for the adapter command: toolscore's own adapters
// and cell commands as they are, told to write the stream; any other under the toolscore cell
// wrapper. Exported for bench/dockerbench, whose copy of Run must start the same command.
func Command(command []string) (cmd, env []string) {
	if len(command) > 1 && command[0] == backend.CellBinary && (command[1] == "client" || command[1] == "agent" || command[1] == "cell") {
		return command, []string{EnvCellStream + "=1"}
	}
	return append([]string{backend.CellBinary, "cell", "--"}, command...), nil
}

// Cell runs the adapter command inside a cell, args being [--serve JSON] [--] ADAPTER [ARGS...]:
// stdin and stderr are the adapter's own, its stdout is kept, and when it exits the cell's
// stream is written to stdout. With --serve (an http cell), the Serve command is started first
// and stopped once the adapter is done, and the adapter connects to the URL it printed; there the
// stream is written only in a container (EnvCellStream), elsewhere the adapter's stdout is
// passed on as it comes. A stop signal is passed on to the adapter. The exit status is the
// adapter's.
func Cell(ctx context.Context, args []string) int {
	if len(args) == 1 && args[0] == HoldArg {
		return hold(ctx)
	}
	h := startRun()
	serve, args, err := parseCellArgs(args)
	if err != nil || len(args) == 0 {
		if err != nil {
			fmt.Fprintln(os.Stderr, "toolscore cell:", err)
		}
		fmt.Fprintln(os.Stderr, "usage: toolscore cell [--serve JSON] -- ADAPTER [ARGS...] (inside a cell)")
		return 2
	}
	stream := serve == nil || os.Getenv(EnvCellStream) == "1"
	var out *os.File
	if stream {
		if out, err = stdoutFile(); err != nil {
			fmt.Fprintf(os.Stderr, "toolscore cell: keeping the adapter's output: %v\n", err)
			return 127
		}
		defer out.Close()
	}
	code := runAdapter(ctx, serve, args, out)
	if stream {
		if err := writeStream(os.Stdout, ".", out, endRun(h, code)); err != nil {
			fmt.Fprintf(os.Stderr, "toolscore cell: writing the run's files out: %v\n", err)
		}
	}
	return code
}

// runAdapter serves what serve says (if anything), runs the adapter with its stdout to out (nil:
// this process's), stops what it served, and returns the adapter's exit status.
func runAdapter(ctx context.Context, serve *Serve, args []string, out *os.File) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if out != nil {
		cmd.Stdout = out
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)
	if serve != nil {
		sv, u, err := startServe(ctx, *serve)
		if err != nil {
			fmt.Fprintf(os.Stderr, "toolscore cell: serving the server over HTTP: %v\n", err)
			return 1
		}
		// Stopped once the adapter is done, so the transcript is whole before it is read.
		defer func() {
			if err := sv.stop(); err != nil && !signalled(err) {
				fmt.Fprintf(os.Stderr, "toolscore cell: %s: %v\n", serve.Command[0], err)
			}
		}()
		cmd.Env = adapterEnv(*serve, u)
	} else {
		cmd.Env = without(os.Environ(), EnvCellStream, EnvCellHeld)
	}
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
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	case err != nil:
		fmt.Fprintf(os.Stderr, "toolscore cell: %v\n", err)
		return 1
	}
	return 0
}

// signalled says whether err is the exit of a process that SIGTERM ended, as asked.
func signalled(err error) bool {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		ws, ok := ee.Sys().(syscall.WaitStatus)
		return ok && ws.Signaled() && ws.Signal() == syscall.SIGTERM
	}
	return false
}

// writeStream writes the cell's stream: every regular file under dir, the adapter's stdout (all
// of stdout, read from its start; nil for none), and last the exit entry, made once the rest is
// written.
func writeStream(w io.Writer, dir string, stdout *os.File, exitAfter func() string) error {
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
	var out io.Reader = strings.NewReader("")
	var size int64
	if stdout != nil {
		info, err := stdout.Stat()
		if err != nil {
			return err
		}
		size = info.Size()
		out = io.NewSectionReader(stdout, 0, size)
	}
	if err := tw.WriteHeader(&tar.Header{Name: streamStdout, Mode: 0o644, Size: size, Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	if _, err := io.CopyN(tw, out, size); err != nil {
		return err
	}
	exit := exitAfter()
	if err := tw.WriteHeader(&tar.Header{Name: streamExit, Mode: 0o644, Size: int64(len(exit)), Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	if _, err := io.WriteString(tw, exit); err != nil {
		return err
	}
	return tw.Close()
}

// ReadStream reads the cell's stream from r as it comes, writing the work directory's files
// into dir and the adapter's stdout to StdoutFile there. It says whether the stream was whole.
// It reads r to its end whatever it holds, so the cell's output never backs up. Exported for
// bench/dockerbench, whose copy of Run must read the same stream.
func ReadStream(r io.Reader, dir string) (whole bool) {
	return ReadStreamEnd(r, dir).Whole
}

// ReadStreamEnd is ReadStream that returns the stream's exit entry, which for a held cell says
// more about how the run ended.
func ReadStreamEnd(r io.Reader, dir string) StreamEnd {
	defer io.Copy(io.Discard, r)
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err != nil {
			return StreamEnd{}
		}
		switch {
		case h.Name == streamExit:
			b, err := io.ReadAll(io.LimitReader(tr, 64))
			if err != nil {
				return StreamEnd{}
			}
			return parseEnd(string(b))
		case h.Name == streamStdout:
			if err := writeFile(filepath.Join(dir, backend.StdoutFile), tr); err != nil {
				return StreamEnd{}
			}
		case strings.HasPrefix(h.Name, streamWork) && h.Typeflag == tar.TypeReg:
			if err := ExtractFile(tr, dir, strings.TrimPrefix(h.Name, streamWork)); err != nil {
				return StreamEnd{}
			}
		}
	}
}

// ExtractFile writes one file of a tar stream from a cell into dir: only plain names inside
// it, so a hostile cell cannot write elsewhere.
func ExtractFile(r io.Reader, dir, name string) error {
	name = path.Clean(name)
	if name == "." || name == ".." || strings.HasPrefix(name, "../") || path.IsAbs(name) {
		return nil
	}
	if name == backend.StdoutFile {
		return nil // the adapter's stdout comes from the stream's own entry, never from the cell's files
	}
	dst := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return writeFile(dst, r)
}

func writeFile(dst string, r io.Reader) error {
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
