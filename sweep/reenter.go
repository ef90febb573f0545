package sweep

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/selfcmd"
)

// Reenter runs the toolscore command this process was started as, and exits, when a sweep
// started it as toolscore; otherwise it returns at once. A sweep's runs start Config.Self as
// toolscore's proxy, built-in adapters and servers (toolscore proxy, toolscore client NAME,
// toolscore ledger, ...): with Self "", that is this program's own executable, which then
// must run those commands. A program that sweeps so calls Reenter first thing, in main or in
// TestMain, as testscript's RunMain re-enters a test binary: a Go test then sweeps with no
// toolscore binary built. It tells the commands by the first argument, a toolscore command's
// name, which a go test run never gives.
func Reenter() {
	if len(os.Args) < 2 || !selfcmd.Has(os.Args[1]) {
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := selfcmd.Run(ctx, os.Args[1], os.Args[2:])
	stop()
	os.Exit(exitcode.Of(err))
}
