package fault

import (
	"context"
	"encoding/json"
	"fmt"
)

// Transient fails the first target call of a run with its inner fault and lets every later one
// through as the server answered it: a failure that a retry clears, which tells a client that
// retries from one that does not. The proxy spares the later calls, so their records say
// they were not faulted. The inner fault is one of the result's (a fault of the HTTP
// exchange or one that reads the tool's schema is refused), with its own options. It follows
// whatever its inner fault follows.
type Transient struct {
	Inner   string          `json:"inner"`
	Options json.RawMessage `json:"options"`
	inner   Fault
}

func init() { Register("transient", &Transient{Inner: "error"}) }

func (f *Transient) Apply(ctx context.Context, c *Call) (*Effect, error) {
	return f.inner.Apply(ctx, c)
}

func (f *Transient) check() *OptionError {
	tmpl, ok := registry[f.Inner]
	switch {
	case !ok:
		return &OptionError{Option: "inner", Err: fmt.Errorf("unknown fault %q", f.Inner)}
	case f.Inner == "transient" || Transport(f.Inner) || UsesSchema(tmpl):
		return &OptionError{Option: "inner", Err: fmt.Errorf("%s cannot be the inner fault: only a fault of the result that needs no schema can", f.Inner)}
	}
	inner, err := New(f.Inner, f.Options)
	if err != nil {
		return &OptionError{Option: "options", Err: err}
	}
	f.inner = inner
	return nil
}

// Spared says whether the n-th target call (from 1) goes through as the server answered it
// because fault f lets it, and why: a transport fault that starts after some good calls, or a
// transient one after its first.
func Spared(f Fault, n int) (bool, string) {
	switch f := f.(type) {
	case *Transient:
		return n > 1, "the fault is transient: only the first call fails"
	case HTTPFault:
		after := f.HTTP().After
		return n <= after, fmt.Sprintf("the fault lets the first %d calls through", after)
	}
	return false, ""
}
