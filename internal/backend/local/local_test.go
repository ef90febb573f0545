package local

import (
	"context"
	"testing"
	"time"

	"github.com/toolscore/toolscore/internal/backend"
)

// TestLocalCPU: a local run says how much CPU its adapter used, also when its timeout stopped
// it; a run that spins shows it, one that sleeps does not (the machine may be busy: the bar is low).
func TestLocalCPU(t *testing.T) {
	for _, c := range []struct {
		name    string
		command []string
		spins   bool
	}{
		{"spins", []string{"sh", "-c", "while :; do :; done"}, true},
		{"sleeps", []string{"sleep", "5"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Backend{}.Run(context.Background(), backend.Spec{Dir: t.TempDir(), Command: c.command, Timeout: 700 * time.Millisecond})
			if !r.TimedOut {
				t.Fatalf("the run was not stopped at its timeout: %+v", r)
			}
			if spun := r.CPU > 50*time.Millisecond; spun != c.spins || r.CPU > r.Took {
				t.Errorf("CPU %v in %v, want spinning %v", r.CPU, r.Took, c.spins)
			}
		})
	}
}
