package fault

import (
	"context"
	"fmt"
	"time"
)

// Latency sends the server's result unchanged, but only after a delay.
type Latency struct {
	Latency Duration `json:"latency"`
}

func init() { Register("latency", &Latency{Latency: Duration(2 * time.Second)}) }

func (f *Latency) Apply(context.Context, *Call) (*Effect, error) {
	return &Effect{Delay: time.Duration(f.Latency)}, nil
}

func (f *Latency) check() *OptionError {
	if f.Latency < 0 {
		return &OptionError{Option: "latency", Err: fmt.Errorf("must not be negative, got %s", time.Duration(f.Latency))}
	}
	return nil
}
