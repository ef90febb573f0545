// Command passthrough starts its arguments as a child and only copies bytes both ways: its stdin
// to the child's stdin and the child's stdout to its stdout. It understands nothing of what it
// copies, so its cost is the floor any stdio proxy approaches (two extra pipe hops, one process).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: passthrough CMD [ARGS...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stderr = os.Stderr
	toChild, err := cmd.StdinPipe()
	if err != nil {
		fail(err)
	}
	fromChild, err := cmd.StdoutPipe()
	if err != nil {
		fail(err)
	}
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	go func() {
		_, _ = io.Copy(toChild, os.Stdin)
		_ = toChild.Close() // the client closed its end: pass the EOF on
	}()
	_, _ = io.Copy(os.Stdout, fromChild)
	err = cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		os.Exit(exit.ExitCode())
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "passthrough:", err)
	os.Exit(1)
}
