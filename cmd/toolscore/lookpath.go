package main

import (
	"fmt"
	"os"
	"os/exec"
)

// lookpathCmd is hidden: it resolves a command the way exec does where it runs (in a cell
// image, most of which have no shell for `command -v`), so a sweep can check its server first.
func lookpathCmd(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: toolscore lookpath COMMAND")
		return 2
	}
	path, err := exec.LookPath(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 127
	}
	fmt.Println(path)
	return 0
}
