package exitcode

import (
	"context"
	"errors"
)

// The exit codes.
const (
	OK          = 0
	Unmet       = 1   // what was checked did not hold: an expectation (or what fail-on names)
	Usage       = 2   // bad flags, a bad manifest, or a setup that failed (the output directory included)
	Interrupted = 130 // cancelled; what finished is kept and counted
)

// Error is an error that ends a command with Code.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// UsageError marks err as a usage, manifest or setup error: exit 2.
func UsageError(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: Usage, Err: err}
}

// UnmetError marks err as a check that did not hold: exit 1.
func UnmetError(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: Unmet, Err: err}
}

// Of is the exit code err ends a command with: nil is OK, an *Error its Code, a cancelled
// context Interrupted, and any other error Usage: toolscore could not do what it was asked,
// which must never read as a finding about the clients measured (1).
func Of(err error) int {
	if err == nil {
		return OK
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	if errors.Is(err, context.Canceled) {
		return Interrupted
	}
	return Usage
}
