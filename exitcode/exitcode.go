package exitcode

import (
	"context"
	"errors"
	"fmt"
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

// Failed marks err as the failure of a command that checks nothing (an image build, a server,
// a bridge, a bisect that found no version): exit 1, the code such commands have always ended
// with. A sweep never returns it.
func Failed(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: Unmet, Err: err}
}

// Status is the error of a command whose exit status is another program's or another
// package's, passed on as it is (a client adapter's, a cell's): nil for OK.
func Status(code int) error {
	if code == OK {
		return nil
	}
	return &Error{Code: code, Err: fmt.Errorf("exit status %d", code)}
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
