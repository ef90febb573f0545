package grade

import "time"

// Run is what the grader reads of a finished run besides its transcript: how its adapter ended
// and where its stdout is. It is the grader's own, so grading links no backend (the runner
// copies it out of backend.Result).
type Run struct {
	// Stdout is the path of the file holding the adapter's stdout; it may not exist when the
	// adapter never started.
	Stdout   string
	Stderr   []byte
	ExitCode int
	// TimedOut is true when the run's timeout stopped it; OOMKilled when the cell ran out of
	// memory and the kernel killed it.
	TimedOut  bool
	OOMKilled bool
	Took      time.Duration
	// CPU is the CPU time the run's processes used, where the backend could tell; 0 where not.
	CPU time.Duration
	// Err says why the run could not start at all.
	Err error
}
