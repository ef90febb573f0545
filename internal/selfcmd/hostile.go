package selfcmd

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/hostile"
)

// hostileCmd serves the hostile test server on stdio: each of its tools misbehaves one way.
func hostileCmd(_ context.Context, args []string) error {
	fs := flag.NewFlagSet("hostile", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: [HOSTILE_MODE=MODE] toolscore hostile\n\nServes a hostile MCP server on stdin/stdout, for testing clients and reports; its tools:")
		for _, t := range hostile.Tools {
			fmt.Fprintf(fs.Output(), "  %-14s %.90q\n", t.Name, t.Description)
		}
		fmt.Fprintln(fs.Output(), "\n"+hostile.ModeEnv+" makes the whole server misbehave (in a manifest: server: {builtin: hostile, env: {"+hostile.ModeEnv+": MODE}}):")
		for _, m := range hostile.Modes {
			fmt.Fprintf(fs.Output(), "  %-22s %s\n", m.Name, m.Description)
		}
	}
	if err := ParseFlags(fs, args); err != nil {
		return err
	}
	return exitcode.Status(hostile.Main(os.Stdin, os.Stdout, os.Stderr))
}
