package exitcode

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// TestOf: each error's exit code, also when wrapped, and an error nothing classified is a setup
// error (2), never 1, which only a check that did not hold may give.
func TestOf(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, OK},
		{UnmetError(errors.New("1 expectation did not hold")), Unmet},
		{fmt.Errorf("sweep: %w", UsageError(errors.New("--runs 0"))), Usage},
		{&Error{Code: OK, Err: errors.New("help")}, OK},
		{fmt.Errorf("building an image: %w", context.Canceled), Interrupted},
		{errors.New("the Docker engine did not answer"), Usage},
	} {
		if got := Of(tc.err); got != tc.want {
			t.Errorf("Of(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
	if UsageError(nil) != nil || UnmetError(nil) != nil {
		t.Error("a nil error marked is not nil")
	}
}
