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
	for _, code := range []int{OK, Unmet, Usage, 127, Interrupted} {
		if got := Of(Status(code)); got != code {
			t.Errorf("Of(Status(%d)) = %d", code, got)
		}
	}
	if Of(Failed(errors.New("the image did not build"))) != Unmet {
		t.Error("Failed is not exit 1")
	}
	if UsageError(nil) != nil || UnmetError(nil) != nil || Failed(nil) != nil || Status(OK) != nil {
		t.Error("a nil error marked is not nil")
	}
}
