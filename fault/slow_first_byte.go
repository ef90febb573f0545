package fault

import (
	"fmt"
	"time"
)

// SlowFirstByte holds the answer's headers back for delay, unlike latency, which holds the
// message (after an SSE answer's headers went); a client that leaves ends the wait.
type SlowFirstByte struct {
	passResult
	Delay Duration `json:"delay"`
}

func init() { Register("slow-first-byte", &SlowFirstByte{Delay: Duration(2 * time.Second)}) }

func (f *SlowFirstByte) HTTP() *HTTPEffect { return &HTTPEffect{HeaderDelay: time.Duration(f.Delay)} }

func (f *SlowFirstByte) check() *OptionError {
	if f.Delay < 0 {
		return &OptionError{Option: "delay", Err: fmt.Errorf("must not be negative, got %s", time.Duration(f.Delay))}
	}
	return nil
}
