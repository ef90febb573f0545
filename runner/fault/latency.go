package fault

import (
	"context"
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
