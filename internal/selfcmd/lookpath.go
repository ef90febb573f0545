package selfcmd

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/toolscore/toolscore/exitcode"
)

// lookpathCmd is hidden: it resolves a command the way exec does where it runs (in a cell
// image, most of which have no shell for `command -v`), so a sweep can check its server first.
func lookpathCmd(args []string) error {
	if len(args) != 1 {
		err := errors.New("usage: toolscore lookpath COMMAND")
		fmt.Fprintln(os.Stderr, err)
		return exitcode.UsageError(err)
	}
	path, err := exec.LookPath(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		// 127, as a shell says a command was not found: the server check reads it so.
		return &exitcode.Error{Code: 127, Err: err}
	}
	fmt.Println(path)
	return nil
}
