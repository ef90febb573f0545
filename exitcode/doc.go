// Package exitcode holds toolscore's exit codes, one meaning each for every command (the
// user docs list them), and the error that carries one: a command returns an error, and [Of]
// turns it into the process's exit code in one place.
//
// The codes: [OK]; [Unmet] (1), what was checked did not hold, the only code that is a finding
// about the clients measured; [Usage] (2), toolscore could not do what it was asked (bad
// flags, a bad manifest, a setup that failed); [Interrupted] (130), cancelled, with what
// finished kept and counted.
//
// A command wraps an error with [UsageError] or [UnmetError] (an [*Error] with its Code) and
// returns it; [Of] gives nil OK, an *Error its Code, a cancelled context Interrupted, and any
// other error Usage, so a failure of toolscore itself never reads as a finding:
//
//	err := run(ctx, args)
//	if err != nil {
//		fmt.Fprintln(os.Stderr, "toolscore:", err)
//	}
//	os.Exit(exitcode.Of(err))
//
// Used by: the CLI's commands, the Action and report (its verdict, report.Decide). Uses
// nothing.
package exitcode
